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
    rt_chart_overhead_boxes(ch, true);
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
