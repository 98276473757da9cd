/* The chart views, one row each (as lstopo lists its outputs): name, title, axes, what it draws,
 * its legend, its default mode. Everything that needs "all views" loops over rt_views; adding a
 * view is one row here and one chart-<view>.c with its draw function. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "chart-internal.h"

const rt_view_desc rt_views[RT_VIEW_N] = {
    [RT_VIEW_ROOFLINE] = {.name = "roofline",
                          .title = "Roofline",
                          .default_mode = RT_MODE_HIER,
                          .places_kernels = true,
                          .hier_levels = true,
                          .draw = rt_chart_roofline,
                          .legend = rt_chart_legend_roofline},
    [RT_VIEW_COMPLEXITY] = {.name = "complexity",
                            .title = "Complexity plane",
                            .default_mode = RT_MODE_SINGLE,
                            .overhead_label = "overhead box",
                            .draw = rt_chart_complexity,
                            .legend = rt_chart_legend_planes},
    [RT_VIEW_TIME] = {.name = "time",
                      .title = "Time plane",
                      .default_mode = RT_MODE_SINGLE,
                      .overhead_label = "overhead region (n\xcf\x84)",
                      .draw = rt_chart_timeplane,
                      .legend = rt_chart_legend_planes},
    [RT_VIEW_4D] = {.name = "4d",
                    .title = "4D complexity-time roofline",
                    .default_mode = RT_MODE_SINGLE,
                    .seconds_axes = true,
                    .closed_open = true,
                    .overhead_label = "overhead box",
                    .draw = rt_chart_4d,
                    .legend = rt_chart_legend_planes},
};

const char *rt_view_name(rt_view v)
{
    return (unsigned)v < RT_VIEW_N ? rt_views[v].name : "?";
}

rt_mode rt_view_default_mode(rt_view v)
{
    return (unsigned)v < RT_VIEW_N ? rt_views[v].default_mode : RT_MODE_SINGLE;
}

void rt_view_list(char *buf, size_t n)
{
    size_t len = 0;
    if (n)
        buf[0] = '\0';
    for (int i = 0; i < RT_VIEW_N && len < n; i++) {
        int w = snprintf(buf + len, n - len, "%s%s",
                         i == 0               ? ""
                         : i == RT_VIEW_N - 1 ? " or "
                                              : ", ",
                         rt_views[i].name);
        len += w > 0 ? (size_t)w : 0;
    }
}

int rt_view_parse(const char *s, rt_view *out, rt_error *err)
{
    for (int i = 0; i < RT_VIEW_N; i++)
        if (s && strcasecmp(s, rt_views[i].name) == 0) {
            *out = (rt_view)i;
            return 0;
        }
    char names[256];
    rt_view_list(names, sizeof names);
    rt_error_set(err, "unknown view '%s' (%s)", s ? s : "", names);
    return -1;
}
