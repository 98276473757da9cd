/* View (c), the time plane: bandwidth time vs compute time, run-time isocurves, overhead regions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "chart-internal.h"
#include "rooftime/core/analysis.h"
#include "rooftime/render/draw.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* Overhead region of each config: both times below n tau (deduplicated like the boxes). */
static void overhead_regions(rt_chart *ch)
{
    const rt_analysis *a = ch->a;
    double tau = ch->m->tau;
    if (!(tau > 0))
        return;
    rt_draw_group(ch->d, "overhead-regions");
    bool items = rt_chart_draws_items(ch);
    size_t np = rt_chart_n_points(ch), off = 0;
    struct seen_box {
        double x, y;
        uint32_t color;
    } *seen = rt_xcalloc(np + 1, sizeof *seen);
    size_t n_seen = 0;
    for (size_t c = 0; c < np; c++) {
        const rt_verdict *v = rt_chart_point_v(ch, c);
        if (!rt_chart_point_sel(ch, c) || !(v->n > 0))
            continue;
        rt_marker_style ms;
        rt_chart_style(ch, c, items, &ms);
        double t = v->n * tau;
        bool cut = rt_chart_X(ch, t) > ch->px + ch->pw || rt_chart_Y(ch, t) < ch->py;
        double x1 = fmin(rt_chart_X(ch, t), ch->px + ch->pw), y1 = fmax(rt_chart_Y(ch, t), ch->py);
        if (x1 <= ch->px || y1 >= ch->py + ch->ph)
            continue;
        /* Configs with (nearly) the same launch count share one outline. */
        bool dup = false;
        for (size_t o = 0; o < n_seen && !dup; o++)
            dup = seen[o].color == ms.color && fabs(seen[o].x - x1) < 2.5 &&
                  fabs(seen[o].y - y1) < 2.5;
        if (dup)
            continue;
        seen[n_seen++] = (struct seen_box){x1, y1, ms.color};
        char ts[48];
        rt_fmt_time(ts, sizeof ts, t);
        const char *name = items ? a->items[c].kernel->name : a->configs[c].label;
        char *title = rt_asprintf("overhead region: %.0f launches x %.3g µs = %s\n(e.g. %s)", v->n,
                                  tau * 1e6, ts, name ? name : "");
        rt_stroke s = {.color = ms.color, .width = 1, .dash = 1, .opacity = 0.9};
        rt_draw_rect(ch->d, ch->px, y1, x1 - ch->px, ch->py + ch->ph - y1, ms.color, 0.035, &s,
                     title);
        free(title);
        rt_chart_box_cut_marker(ch, x1, y1, cut, ms.color);
        off += cut;
    }
    free(seen);
    rt_draw_group(ch->d, NULL);
    if (off)
        rt_chart_note(ch, "%zu overhead region%s run%s off the chart (a triangle marks where)", off,
                      off == 1 ? "" : "s", off == 1 ? "s" : "");
}

/* L-shaped lines max(x, y) = T at each decade of T: a point's run time is the isocurve it sits on.
 */
static void isocurves(rt_chart *ch)
{
    rt_stroke s = {.color = 0xa8a8a8, .width = 0.9};
    double lo = pow(10, fmin(ch->x.lo, ch->y.lo)) / 10;
    rt_draw_group(ch->d, "isocurves");
    for (int k = (int)ceil(fmin(ch->x.lo, ch->y.lo)); k <= (int)floor(fmax(ch->x.hi, ch->y.hi));
         k++) {
        double T = pow(10, k);
        rt_chart_data_line(ch, T, lo, T, T, &s);
        rt_chart_data_line(ch, lo, T, T, T, &s);
        char buf[48];
        rt_fmt_time(buf, sizeof buf, T);
        /* Label on the horizontal arm near the compute-time axis, away from the diagonal. */
        double xl = pow(10, ch->x.lo);
        if (T > xl)
            rt_chart_line_label(ch, xl, T, T, T, buf, RT_MUTED, false, 0.15);
    }
    rt_draw_group(ch->d, NULL);
}

int rt_chart_timeplane(rt_chart *ch, rt_error *err)
{
    (void)err;
    size_t n = rt_chart_n_points(ch) + 1;
    double *x = rt_xcalloc(n, sizeof *x), *y = rt_xcalloc(n, sizeof *y);
    for (size_t c = 0; c + 1 < n; c++) {
        x[c] = rt_chart_point_v(ch, c)->bw_time;
        y[c] = rt_chart_point_v(ch, c)->compute_time;
    }
    /* The axes fit the points; overhead regions larger than the plot run off it. */
    rt_range r = {0};
    rt_chart_config_range(ch, x, y, &r, &r);
    /* One range for both axes: the diagonal x = y and the L-shapes keep their meaning. */
    rt_range_axis(&r, 2, &ch->x);
    ch->y = ch->x;
    ch->x.label = "Bandwidth time (s)";
    ch->y.label = "Compute time (s)";
    ch->x.scale_exp = ch->y.scale_exp = 0;
    rt_chart_layout(ch);
    rt_chart_frame(ch);
    overhead_regions(ch);
    isocurves(ch);
    double lo = pow(10, ch->x.lo), hi = pow(10, ch->x.hi);
    rt_stroke ds = {.color = RT_CEILING, .width = 1.4, .dash = 1};
    rt_chart_data_line(ch, lo, lo, hi, hi, &ds);
    rt_chart_line_label(ch, lo, lo, hi, hi, "compute-bound above, bandwidth-bound below",
                        RT_CEILING, false, 0.5);
    size_t skipped = rt_chart_points(ch, x, y, false, true);
    if (skipped)
        rt_chart_note(ch, "%zu %s%s with no FLOPs or no bytes (a zero time coordinate) not shown",
                      skipped, rt_chart_draws_items(ch) ? "kernel" : "config",
                      skipped == 1 ? "" : "s");
    free(x);
    free(y);
    return 0;
}
