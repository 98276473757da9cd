/* The time-based roofline across ranks: for each config, its FLOPs per rank on x and, on y, a box
 * of its time per rank (quartiles), whiskers from the fastest to the slowest rank, the median as a
 * bar and the slowest rank as a red cross named by its rank. Log-log, drawn through the drawing
 * table; self-contained so that the main charts' layout stays their own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/across.h"
#include "rooftime/core/machine.h"
#include "rooftime/render/chart-across.h"
#include "rooftime/render/draw.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/format.h"

#define W 760.0
#define H 520.0
#define LEFT 78.0
#define RIGHT 24.0
#define TOP 44.0
#define BOTTOM 56.0
#define MAX_BOXES 200 /* the configs with the longest medians; the rest are counted in a note */

typedef struct axis {
    double lo, hi; /* log10 */
} axis;

static double px(const axis *x, double v)
{
    return LEFT + (log10(v) - x->lo) / (x->hi - x->lo) * (W - LEFT - RIGHT);
}

static double py(const axis *y, double v)
{
    return H - BOTTOM - (log10(v) - y->lo) / (y->hi - y->lo) * (H - TOP - BOTTOM);
}

static void widen(axis *a, double v, int *any)
{
    if (!(v > 0) || !isfinite(v))
        return;
    double l = log10(v);
    if (!*any) {
        a->lo = a->hi = l;
        *any = 1;
    } else {
        a->lo = fmin(a->lo, l);
        a->hi = fmax(a->hi, l);
    }
}

static void finish_axis(axis *a, int any)
{
    if (!any)
        a->lo = 0, a->hi = 1;
    a->lo = floor(a->lo - 0.15);
    a->hi = ceil(a->hi + 0.15);
    if (a->hi - a->lo < 2)
        a->hi = a->lo + 2;
}

static void draw_axes(rt_draw *d, const axis *x, const axis *y)
{
    rt_stroke grid = {0xdddddd, 0.6, 0, 0}, frame = {0x444444, 1, 0, 0};
    rt_text_style tick = {.size = 10, .color = 0x333333, .anchor = RT_ANCHOR_MIDDLE};
    char buf[32];
    for (int k = (int)x->lo; k <= (int)x->hi; k++) {
        double xx = px(x, pow(10, k));
        rt_draw_line(d, xx, TOP, xx, H - BOTTOM, &grid);
        rt_fmt_si(buf, sizeof buf, pow(10, k), "");
        rt_draw_text(d, xx, H - BOTTOM + 14, buf, &tick);
    }
    tick.anchor = RT_ANCHOR_END;
    for (int k = (int)y->lo; k <= (int)y->hi; k++) {
        double yy = py(y, pow(10, k));
        rt_draw_line(d, LEFT, yy, W - RIGHT, yy, &grid);
        rt_fmt_time(buf, sizeof buf, pow(10, k));
        rt_draw_text(d, LEFT - 5, yy + 3.5, buf, &tick);
    }
    rt_draw_rect(d, LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM, 0, 0, &frame, NULL);
    rt_text_style lab = {.size = 11, .color = 0x222222, .anchor = RT_ANCHOR_MIDDLE};
    rt_draw_text(d, (LEFT + W - RIGHT) / 2, H - 18, "work per rank W (FLOPs)", &lab);
    lab.rotate = -90;
    rt_draw_text(d, 18, (TOP + H - BOTTOM) / 2, "time per rank (s)", &lab);
}

/* The time-based roofline of m over the x range: T = W / P_ref (dashed). */
static void draw_roof(rt_draw *d, const rt_machine *m, const axis *x, const axis *y)
{
    double p = rt_machine_ref_flops(m);
    if (!(p > 0))
        return;
    double xy[2 * 64];
    size_t n = 0;
    for (int i = 0; i < 64; i++) {
        double w = pow(10, x->lo + (x->hi - x->lo) * i / 63.0), t = w / p;
        double l = log10(t);
        if (l < y->lo || l > y->hi)
            continue;
        xy[2 * n] = px(x, w);
        xy[2 * n + 1] = py(y, t);
        n++;
    }
    rt_stroke roof = {0x1f77b4, 1.4, 1, 0};
    rt_draw_polyline(d, xy, n, &roof);
    if (n) {
        char buf[96], p_s[32];
        rt_fmt_si(p_s, sizeof p_s, p, "FLOP/s");
        snprintf(buf, sizeof buf, "W / %s (%s)", p_s, m->ref_unit ? m->ref_unit : "reference");
        rt_text_style t = {.size = 10, .color = 0x1f77b4, .halo = true};
        rt_draw_text(d, xy[0] + 4, xy[1] - 4, buf, &t);
    }
}

static void draw_box(rt_draw *d, const rt_across_entry *e, double w, double straggler,
                     const axis *x, const axis *y)
{
    double cx = px(x, w), half = 6;
    rt_stroke s = {0x333333, 1, 0, 0};
    char title[512], med[32], mn[32], mx[32];
    rt_fmt_seconds(med, sizeof med, e->median);
    rt_fmt_seconds(mn, sizeof mn, e->min);
    rt_fmt_seconds(mx, sizeof mx, e->max);
    snprintf(title, sizeof title,
             "%.300s: %zu ranks, median %s, min %s (rank %ld), max %s (rank %ld)", e->name,
             e->n_ranks, med, mn, e->min_rank, mx, e->max_rank);
    rt_draw_line(d, cx, py(y, e->min), cx, py(y, e->q1), &s);
    rt_draw_line(d, cx, py(y, e->q3), cx, py(y, e->max), &s);
    rt_draw_line(d, cx - half / 2, py(y, e->min), cx + half / 2, py(y, e->min), &s);
    double top = py(y, e->q3), bottom = py(y, e->q1);
    rt_draw_rect(d, cx - half, top, 2 * half, fmax(bottom - top, 1), 0x9ecae1, 0.7, &s, title);
    rt_draw_line(d, cx - half, py(y, e->median), cx + half, py(y, e->median), &s);
    /* The slowest rank: a red cross at its time, its rank beside it. */
    rt_marker_style mk = {.shape = RT_MARKER_CROSS, .size = 9, .color = 0xd62728, .width = 1.6};
    rt_draw_marker(d, cx, py(y, e->max), &mk, title);
    /* Named only when it is a straggler: the others would crowd the labels. */
    if (!(e->max > e->median * (1 + straggler)) || e->n_ranks < 2)
        return;
    char r[32];
    snprintf(r, sizeof r, "r%ld", e->max_rank);
    rt_text_style t = {.size = 9, .color = 0xd62728, .halo = true};
    rt_draw_text(d, cx + 7, py(y, e->max) + 3, r, &t);
}

static int rt_chart_across_draw(const rt_across *a, const rt_machine *m, rt_draw *d)
{
    size_t *ix = rt_across_by_median(a, true);
    size_t n = 0, skipped = 0;
    axis x = {0, 1}, y = {0, 1};
    int any_x = 0, any_y = 0;
    for (size_t i = 0; i < a->n_configs; i++) {
        const rt_across_entry *e = &a->configs[ix[i]];
        double w = rt_values_sum(&e->flops) / (double)(e->n_ranks ? e->n_ranks : 1);
        if (!(w > 0) || !(e->max > 0) || n >= MAX_BOXES) {
            skipped++;
            continue;
        }
        ix[n++] = ix[i];
        widen(&x, w, &any_x);
        widen(&y, e->min > 0 ? e->min : e->max, &any_y);
        widen(&y, e->max, &any_y);
    }
    finish_axis(&x, any_x);
    finish_axis(&y, any_y);
    rt_text_style title = {.size = 12, .color = 0x111111, .bold = true};
    char buf[256];
    snprintf(buf, sizeof buf, "Time per rank across %zu ranks, a box per config", a->n_profiles);
    rt_draw_text(d, LEFT, 18, buf, &title);
    rt_text_style sub = {.size = 10, .color = 0x555555};
    snprintf(buf, sizeof buf,
             "box: quartiles; bar: median; whiskers: fastest to slowest rank; red cross: the "
             "slowest rank, named when over %.4g%% above the median",
             a->opts.straggler * 100);
    rt_draw_text(d, LEFT, 34, buf, &sub);
    draw_axes(d, &x, &y);
    if (m)
        draw_roof(d, m, &x, &y);
    rt_draw_group(d, "configs");
    for (size_t i = 0; i < n; i++) {
        const rt_across_entry *e = &a->configs[ix[i]];
        draw_box(d, e, rt_values_sum(&e->flops) / (double)e->n_ranks, a->opts.straggler, &x, &y);
    }
    rt_draw_group(d, NULL);
    if (skipped) {
        rt_text_style note = {.size = 10, .color = 0x666666};
        snprintf(buf, sizeof buf,
                 "%zu config%s not drawn (no FLOPs, no time, or beyond the %d "
                 "longest)",
                 skipped, skipped == 1 ? "" : "s", MAX_BOXES);
        rt_draw_text(d, LEFT, H - 4, buf, &note);
    }
    free(ix);
    return 0;
}

int rt_chart_across_svg(const rt_across *a, const rt_machine *m, FILE *fp, rt_error *err)
{
    rt_draw *d = rt_draw_new(RT_DRAW_SVG, fp, W, H, err);
    if (!d)
        return -1;
    rt_chart_across_draw(a, m, d);
    return rt_draw_finish(d, err);
}

int rt_chart_across_write(const rt_across *a, const rt_machine *m, const char *path, rt_error *err)
{
    rt_draw_format f;
    if (rt_draw_format_from_path(path, &f, err) != 0)
        return -1;
    rt_atomic_file af;
    if (rt_atomic_open(&af, path, err) != 0)
        return -1;
    rt_draw *d = rt_draw_new(f, af.fp, W, H, err);
    if (!d) {
        rt_atomic_abort(&af);
        return -1;
    }
    rt_chart_across_draw(a, m, d);
    if (rt_draw_finish(d, err) != 0) {
        rt_atomic_abort(&af);
        return -1;
    }
    return rt_atomic_commit(&af, err);
}
