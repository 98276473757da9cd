/* View (b), the complexity plane: bytes vs FLOPs, machine balance, constant AI, overhead boxes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart-internal.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/render/draw.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* The launch-overhead outline of each point, at n tau with the tau its profile pays (v->t_oh): in
 * the complexity plane the box Q < B n tau, W < P n tau, inside which launches cost more than the
 * work (method sec. 2b); in the time plane the region where both times are below n tau. Points with
 * the same outline and color share one. */
void rt_chart_overhead_boxes(rt_chart *ch, bool time_plane)
{
    double B = rt_machine_ref_bw(ch->m), P = rt_machine_ref_flops(ch->m);
    const char *what = time_plane ? "region" : "box";
    rt_draw_group(ch->d, time_plane ? "overhead-regions" : "overhead-boxes");
    bool items = rt_chart_draws_items(ch);
    size_t np = rt_chart_n_points(ch), off = 0;
    struct seen_box {
        double x, y;
        uint32_t color;
    } *seen = rt_xcalloc(np + 1, sizeof *seen);
    size_t n_seen = 0;
    for (size_t c = 0; c < np; c++) {
        const rt_verdict *v = rt_chart_point_v(ch, c);
        if (!rt_chart_point_sel(ch, c) || !(v->n > 0) || !(v->t_oh > 0))
            continue;
        rt_marker_style ms;
        rt_chart_style(ch, c, items, &ms);
        double t = v->t_oh;
        double x1 = rt_chart_X(ch, time_plane ? t : B * t),
               y1 = rt_chart_Y(ch, time_plane ? t : P * t);
        /* The axes fit the data, not the boxes: a box larger than the plot runs off it. */
        bool cut = x1 > ch->px + ch->pw || y1 < ch->py;
        x1 = fmin(x1, ch->px + ch->pw);
        y1 = fmax(y1, ch->py);
        if (x1 <= ch->px || y1 >= ch->py + ch->ph)
            continue;
        bool dup = false;
        for (size_t o = 0; o < n_seen && !dup; o++)
            dup = seen[o].color == ms.color && fabs(seen[o].x - x1) < 2.5 &&
                  fabs(seen[o].y - y1) < 2.5;
        if (dup)
            continue;
        seen[n_seen++] = (struct seen_box){x1, y1, ms.color};
        char ts[48];
        rt_fmt_time(ts, sizeof ts, t);
        const char *name = items ? ch->a->items[c].kernel->name : ch->a->configs[c].label;
        char *title = rt_asprintf("overhead %s: %.0f launches x %.3g µs = %s\n(e.g. %s)", what,
                                  v->n, 1e6 * t / v->n, ts, name ? name : "");
        rt_stroke s = {.color = ms.color, .width = 1, .dash = 1, .opacity = 0.9};
        rt_draw_rect(ch->d, ch->px, y1, x1 - ch->px, ch->py + ch->ph - y1, ms.color, 0.035, &s,
                     title);
        free(title);
        rt_chart_box_cut_marker(ch, x1, y1, cut, ms.color);
        off += cut;
        ch->n_oh_drawn++;
    }
    free(seen);
    rt_draw_group(ch->d, NULL);
    if (off)
        rt_chart_note(ch, "%zu overhead %s%s run%s off the chart (a triangle marks where)", off,
                      what, off == 1 ? "" : (time_plane ? "s" : "es"), off == 1 ? "s" : "");
}

void rt_chart_balance_line(rt_chart *ch)
{
    double mb = rt_machine_balance(ch->m);
    if (!(mb > 0) || !isfinite(mb))
        return;
    double xl = pow(10, ch->x.lo), xh = pow(10, ch->x.hi);
    rt_stroke s = {.color = RT_CEILING, .width = 1.6};
    rt_chart_data_line(ch, xl, mb * xl, xh, mb * xh, &s);
    rt_chart_obstacle_line(ch, xl, mb * xl, xh, mb * xh);
    char num[32], buf[96];
    rt_fmt_num(num, sizeof num, mb);
    snprintf(buf, sizeof buf, "machine balance %s FLOP/B", num);
    rt_chart_line_label(ch, xl, mb * xl, xh, mb * xh, buf, RT_CEILING, false, 0.78);
}

/* Diagonals of constant AI at each decade, labelled at their upper end. */
static void ai_lines(rt_chart *ch)
{
    double mb = rt_machine_balance(ch->m);
    double xl = pow(10, ch->x.lo), xh = pow(10, ch->x.hi);
    int k0 = (int)floor(ch->y.lo - ch->x.hi), k1 = (int)ceil(ch->y.hi - ch->x.lo);
    rt_stroke s = {.color = 0xb8b8b8, .width = 0.8, .dash = 2};
    for (int k = k0; k <= k1; k++) {
        double ai = pow(10, k);
        if (mb > 0 && fabs(log10(ai / mb)) < 0.2)
            continue; /* the balance line is there */
        rt_chart_data_line(ch, xl, ai * xl, xh, ai * xh, &s);
        char num[32], buf[48];
        rt_fmt_decade(num, sizeof num, k, k0, k1);
        snprintf(buf, sizeof buf, "AI %s", num);
        rt_chart_line_label(ch, xl, ai * xl, xh, ai * xh, buf, RT_MUTED, true, 0.93);
    }
}

static void region_hints(rt_chart *ch)
{
    double s = ch->ts;
    rt_text_style ts = {.size = 11 * s, .color = RT_MUTED, .anchor = RT_ANCHOR_START};
    double w, h;
    rt_draw_text_extent(ch->d, "compute-bound", ts.size, false, &w, &h);
    rt_draw_text(ch->d, ch->px + 8, ch->py + 16 * s, "compute-bound", &ts);
    rt_chart_obstacle(ch, ch->px + 6, ch->py + 4, ch->px + 10 + w, ch->py + 20 * s);
    ts.anchor = RT_ANCHOR_END;
    rt_draw_text_extent(ch->d, "bandwidth-bound", ts.size, false, &w, &h);
    rt_draw_text(ch->d, ch->px + ch->pw - 8, ch->py + ch->ph - 8, "bandwidth-bound", &ts);
    rt_chart_obstacle(ch, ch->px + ch->pw - 10 - w, ch->py + ch->ph - 8 - 12 * s,
                      ch->px + ch->pw - 6, ch->py + ch->ph - 4);
}

/* Complexity coordinates of every point: Q at the reference level, W (NAN: not drawable). */
static void complexity_coords(const rt_chart *ch, double *x, double *y)
{
    for (size_t c = 0; c < rt_chart_n_points(ch); c++) {
        x[c] = rt_chart_point_v(ch, c)->q_ref;
        y[c] = rt_chart_point_v(ch, c)->W;
    }
}

void rt_chart_box_cut_marker(rt_chart *ch, double x1, double y1, bool cut, uint32_t color)
{
    if (!cut)
        return;
    /* At the corner where the box leaves the plot, pointing the way it goes on. */
    bool up = y1 <= ch->py + 0.5;
    rt_marker_style ms = {.shape = up ? RT_MARKER_TRIANGLE : RT_MARKER_DIAMOND,
                          .size = 8,
                          .color = color,
                          .filled = true,
                          .opacity = 0.9};
    double x = fmin(x1, ch->px + ch->pw - 5), y = up ? ch->py + 5 : y1;
    rt_draw_marker(ch->d, x, y, &ms, "the overhead box runs off the chart here");
    rt_chart_obstacle_point(ch, x, y, 5);
}

int rt_chart_complexity(rt_chart *ch, rt_error *err)
{
    (void)err;
    size_t n = rt_chart_n_points(ch) + 1;
    double *x = rt_xcalloc(n, sizeof *x), *y = rt_xcalloc(n, sizeof *y);
    complexity_coords(ch, x, y);
    rt_range rx = {0}, ry = {0};
    rt_chart_config_range(ch, x, y, &rx, &ry);
    rt_range_axis(&rx, 2, &ch->x);
    rt_range_axis(&ry, 2, &ch->y);
    char lx[64], ly[64];
    snprintf(lx, sizeof lx, "Bandwidth complexity Q(%s) (GB)",
             ch->m->ref_level ? ch->m->ref_level : "ref");
    snprintf(ly, sizeof ly, "Computational complexity W (GFLOP)");
    ch->x.label = lx, ch->x.scale_exp = 9;
    ch->y.label = ly, ch->y.scale_exp = 9;
    rt_chart_layout(ch);
    rt_chart_frame(ch);
    region_hints(ch);
    rt_chart_overhead_boxes(ch, false);
    ai_lines(ch);
    rt_chart_balance_line(ch);
    size_t skipped = rt_chart_points(ch, x, y, false, true);
    if (skipped)
        rt_chart_note(ch, "%zu %s%s with no FLOPs or no %s bytes not shown", skipped,
                      rt_chart_draws_items(ch) ? "kernel" : "config", skipped == 1 ? "" : "s",
                      ch->m->ref_level ? ch->m->ref_level : "reference");
    free(x);
    free(y);
    return 0;
}

int rt_chart_4d(rt_chart *ch, rt_error *err)
{
    (void)err;
    size_t n = rt_chart_n_points(ch) + 1;
    double *x = rt_xcalloc(n, sizeof *x), *y = rt_xcalloc(n, sizeof *y);
    double *ox = rt_xcalloc(n, sizeof *ox), *oy = rt_xcalloc(n, sizeof *oy);
    double B = rt_machine_ref_bw(ch->m), P = rt_machine_ref_flops(ch->m);
    complexity_coords(ch, x, y);
    for (size_t c = 0; c < rt_chart_n_points(ch); c++) {
        /* Open symbol: the run time's coordinates scaled by the peaks (method sec. 2d). */
        ox[c] = B * rt_chart_point_v(ch, c)->bw_time;
        oy[c] = P * rt_chart_point_v(ch, c)->compute_time;
    }
    rt_range rx = {0}, ry = {0};
    rt_chart_config_range(ch, x, y, &rx, &ry);
    rt_chart_config_range(ch, ox, oy, &rx, &ry);
    rt_range_axis(&rx, 2, &ch->x);
    rt_range_axis(&ry, 2, &ch->y);
    char lx[64], ly[64];
    snprintf(lx, sizeof lx, "Bandwidth complexity Q(%s) (GB)",
             ch->m->ref_level ? ch->m->ref_level : "ref");
    ch->x.label = lx, ch->x.scale_exp = 9;
    snprintf(ly, sizeof ly, "Computational complexity W (GFLOP)");
    ch->y.label = ly, ch->y.scale_exp = 9;
    /* Secondary axes: the same positions read as seconds, x / B and y / P. */
    ch->x2 = ch->x;
    ch->x2.lo -= log10(B), ch->x2.hi -= log10(B), ch->x2.scale_exp = 0;
    ch->x2.label = "Bandwidth time (s)";
    ch->y2 = ch->y;
    ch->y2.lo -= log10(P), ch->y2.hi -= log10(P), ch->y2.scale_exp = 0;
    ch->y2.label = "Compute time (s)";
    rt_chart_layout(ch);
    rt_chart_frame(ch);
    region_hints(ch);
    rt_chart_overhead_boxes(ch, false);
    rt_chart_balance_line(ch);
    /* A faint link from each closed symbol to its open one: both lie on the config's AI diagonal.
     */
    rt_draw_group(ch->d, "links");
    for (size_t c = 0; c < rt_chart_n_points(ch); c++) {
        if (!rt_chart_point_sel(ch, c) || !(x[c] > 0 && y[c] > 0 && ox[c] > 0 && oy[c] > 0))
            continue;
        rt_marker_style ms;
        rt_chart_style(ch, c, rt_chart_draws_items(ch), &ms);
        rt_stroke s = {.color = ms.color, .width = 0.7, .dash = 2, .opacity = 0.45};
        rt_chart_data_line(ch, x[c], y[c], ox[c], oy[c], &s);
    }
    rt_draw_group(ch->d, NULL);
    size_t skipped = rt_chart_points(ch, ox, oy, true, false);
    skipped += rt_chart_points(ch, x, y, false, true);
    if (skipped)
        rt_chart_note(ch, "%zu symbol%s of %s with no FLOPs or no %s bytes not shown", skipped,
                      skipped == 1 ? "" : "s", rt_chart_draws_items(ch) ? "kernels" : "configs",
                      ch->m->ref_level ? ch->m->ref_level : "reference");
    free(x);
    free(y);
    free(ox);
    free(oy);
    return 0;
}
