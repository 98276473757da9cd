/* Charts of an analysis: the four time-based roofline views (paper Fig. 2) with trajectories. */
#ifndef ROOFTIME_RENDER_CHART_H
#define ROOFTIME_RENDER_CHART_H

#include <stddef.h>

#include "rooftime/core/analysis.h"
#include "rooftime/render/draw.h"
#include "rooftime/util/error.h"

typedef enum rt_view {
    RT_VIEW_ROOFLINE = 0, /* (a) AI vs FLOP/s: roofs, diagonals, launch-overhead ceiling; kernels */
    RT_VIEW_COMPLEXITY,   /* (b) bytes vs FLOPs: machine balance, constant AI, overhead boxes */
    RT_VIEW_TIME,         /* (c) bandwidth time vs compute time: isocurves, overhead regions */
    RT_VIEW_4D,           /* (d) complexity (closed) and scaled time (open) with seconds axes */
    RT_VIEW_N
} rt_view;

/* The views are one table (render/chart-views.c). "roofline", "complexity", "time", "4d". */
const char *rt_view_name(rt_view v);
int rt_view_parse(const char *s, rt_view *out, rt_error *err);
/* The views' names in the table's order, as a list into buf ("roofline, complexity, time or
 * 4d"): what `plot --help` and an unknown view's error show. */
void rt_view_list(char *buf, size_t n);
/* The mode a view is drawn in unless one is given: hier for the roofline (every level), the
 * paper's single mode elsewhere. */
rt_mode rt_view_default_mode(rt_view v);

typedef enum rt_points { RT_POINTS_CONFIGS = 0, RT_POINTS_KERNELS } rt_points;
/* "configs", "kernels". */
int rt_points_parse(const char *s, rt_points *out, rt_error *err);

typedef struct rt_chart_spec {
    rt_view view;
    const char *title;    /* NULL: the view's name and the machine */
    double width, height; /* points; 0: 780 x 560 */
    /*
     * Styling by tag: series_by picks the color, marker_by the marker shape, fill_by filled
     * (first value in sort order) or hollow (others). NULL: not used (one color, circles, filled).
     * In the 4D view fill is taken by closed/open, so fill_by values become marker shapes too.
     * In the hierarchical roofline (hier mode) color shows the memory level and series_by
     * becomes the marker shape.
     */
    const char *series_by;
    const char *marker_by;
    const char *fill_by;
    /* Trajectories: join the configs of each family whose parameter is this tag, in order,
     * labelled with its values. NULL: the parameter shared by most configs; "none": no lines. */
    const char *family;
    /* Draw only kernels/configs whose tags match every "TAG=VALUE" here. */
    const char *const *where;
    size_t n_where;
    size_t max_labels; /* roofline: name the N longest kernels (0: 8) */
    /* Complexity, time and 4D views: configs (default) or kernels (each kernel a point sized by
     * its share of time, the kernels of a config a cloud in its color), labelled K1, K2 ... by
     * time as the report's kernel table numbers them. The roofline always places kernels. */
    rt_points points;
    /* Roofline: every compute unit and memory level of the machine, not only those the drawn
     * kernels use (units with FLOPs, levels with bytes). */
    bool all_roofs;
    /* Every text size and the margins around the plot times this (0: 1); the report draws its
     * wide charts at 1.2 so no text is below 12 px at 1300 px. */
    double text_scale;
    /* The caller's notes, printed with the chart's own under the legend (`plot --diff`: what the
     * views cannot place). */
    const char *const *notes;
    size_t n_notes;
} rt_chart_spec;

/* Lay out and draw one chart on d (already begun; the caller finishes it). */
int rt_chart_draw(const rt_chart_spec *spec, const rt_analysis *a, rt_draw *d, rt_error *err);

/* Draw one chart into path; the format follows its extension (.svg, .png, .pdf). Atomic:
 * on any error no file is left under path. */
int rt_chart_render(const rt_chart_spec *spec, const rt_analysis *a, const char *path,
                    rt_error *err);

/* The chart as SVG text in a heap string (caller frees), or NULL on error. */
char *rt_chart_svg(const rt_chart_spec *spec, const rt_analysis *a, rt_error *err);

/* Check a spec against an analysis: "TAG=VALUE" syntax, and that tags named for styling or
 * families occur at all (a typo should not silently draw one color). */
int rt_chart_spec_check(const rt_chart_spec *spec, const rt_analysis *a, rt_error *err);

#endif
