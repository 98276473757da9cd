/* Private to the chart files: the chart being laid out, axes, styles, label placement. */
#ifndef ROOFTIME_CHART_INTERNAL_H
#define ROOFTIME_CHART_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/render/chart.h"
#include "rooftime/util/format.h"
#include "rooftime/render/draw.h"
#include "rooftime/util/error.h"
#include "rooftime/util/prefetch.h"
#include "rooftime/util/name-index.h"

/* Okabe-Ito, reordered so the first series read well on white (yellow last). */
#define RT_PALETTE_N 8
uint32_t rt_palette_color(size_t i);
/* Fixed colors of ink, grid, ceilings. */
#define RT_INK 0x222222u
#define RT_GRID 0xe6e6e6u
#define RT_GRID_MINOR 0xf3f3f3u
#define RT_CEILING 0x4d4d4du
#define RT_MUTED 0x8c8c8cu
/* Color of memory level i of n in the hierarchical roofline (outermost level darkest). */
uint32_t rt_palette_level(size_t i, size_t n);

/* Points with a hover text: the longest ones (the rest would make a chart of 100,000 points
 * several times larger than its drawing). */
#define RT_CHART_MAX_TITLES 2000

typedef struct rt_axis {
    double lo, hi;     /* log10 of the range shown */
    int scale_exp;     /* tick labels show value / 10^scale_exp (GFLOP: 9) */
    const char *label; /* with the unit */
    double p0, p1;     /* pixel positions of lo and hi */
} rt_axis;

/* Accumulates the data range of one axis in log10. */
typedef struct rt_range {
    double lo, hi;
    bool any;
} rt_range;
void rt_range_add(rt_range *r, double v); /* ignores v <= 0, NaN, inf */
/* Pad to whole decades, at least min_decades wide. */
void rt_range_axis(const rt_range *r, double min_decades, rt_axis *ax);

typedef struct rt_box {
    double x0, y0, x1, y1;
} rt_box;

/* A drawn line in pixels and the obstacles that stand for it (rt_chart_obstacle_line). */
typedef struct rt_seg {
    double x0, y0, x1, y1;
    size_t obst0, obst1;
} rt_seg;

typedef struct rt_label_req {
    double x, y, r; /* anchor point and the radius to keep clear */
    char *text;
    uint32_t color;
    double size;
    int priority; /* higher places first */
    size_t id;    /* an ID label's rank (K<id>, C<id>), else 0 */
    bool placed;  /* set by rt_chart_labels_place */
} rt_label_req;

/* What a view's ID labels stand for, so the note that names them is written once they are
 * placed (rt_chart_id_note): "kernels" or "configs", the prefix (K, C), how many there are (0: the
 * kernels drawn) and the report's table that numbers them. */
typedef struct rt_id_labels {
    char prefix;
    size_t of;
    const char *tail; /* appended to the note, or NULL */
    size_t note_at;   /* its place among the notes (ch->n_notes when the view set it) */
} rt_id_labels;

typedef struct rt_line_label {
    double x0, y0, x1, y1; /* data coordinates of the line */
    char *text;
    uint32_t color;
    bool below;
    double prefer;       /* 0..1 along the visible part */
    size_t skip0, skip1; /* the obstacles of its own line (rt_chart_obstacle_line just before) */
} rt_line_label;

/* One distinct value of a styling tag. */
typedef struct rt_key {
    const char *tag; /* NULL: unused */
    char **values;   /* sorted */
    size_t n;
    bool *drawn; /* per value: a point of it was drawn (rt_chart_drawn), so the legend lists it */
    rt_name_index ix; /* value -> its place in values: a tag with a value per config stays linear */
    /* Per config (a chart of configs) or per item (a chart of kernels), its value's place (-1:
     * none); NULL when the key is unused. */
    int *place;
    bool items; /* place is per item */
} rt_key;

typedef struct rt_chart rt_chart;
/* The legend being built (chart-legend.c). */
typedef struct rt_legend_list rt_legend_list;

/* One chart view (chart-views.c holds the table, indexed by rt_view). */
typedef struct rt_view_desc {
    const char *name;           /* on the command line, in the report's file names */
    const char *title;          /* in the chart's default title */
    rt_mode default_mode;       /* unless the caller gives one */
    bool seconds_axes;          /* top and right axes in seconds */
    bool places_kernels;        /* draws kernels whatever spec->points says */
    bool closed_open;           /* complexity closed and time open: fill_by becomes a shape */
    bool hier_levels;           /* in hier mode colour shows the memory level */
    const char *overhead_label; /* the legend's name of the overhead rectangles */
    int (*draw)(rt_chart *ch, rt_error *err);
    /* the legend's entries after the tag keys */
    void (*legend)(const rt_chart *ch, rt_legend_list *l);
} rt_view_desc;
extern const rt_view_desc rt_views[RT_VIEW_N];

struct rt_chart {
    const rt_chart_spec *spec;
    const rt_view_desc *view; /* &rt_views[spec->view] */
    const rt_analysis *a;
    const rt_machine *m;
    rt_draw *d;
    double W, H;
    double px, py, pw, ph; /* plot rectangle */
    rt_axis x, y;
    bool secondary; /* 4D: top and right axes in seconds */
    rt_axis x2, y2;
    bool *sel_item, *sel_cfg; /* what the filters keep */
    size_t n_sel_items, n_sel_cfgs;
    rt_key series, marker, fill;
    const char *family; /* resolved trajectory parameter, NULL: none */
    rt_box *obst;       /* boxes labels must avoid */
    size_t n_obst, cap_obst;
    /* A grid of GRID_CELL-point cells over the canvas, each listing the obstacles that touch it,
     * so a label looks only at its neighbours among a hundred thousand points. */
    struct rt_obst_cell {
        size_t *v;
        size_t n, cap;
    } * grid;
    size_t grid_w, grid_h;
    /* The lines among the obstacles: labels along lines test them exactly, as segments, rather
     * than as the boxes that stand for them. */
    rt_seg *segs;
    size_t n_segs, cap_segs;
    rt_label_req *labels;
    size_t n_labels, cap_labels;
    rt_id_labels id_labels; /* prefix 0: the view placed no ID labels */
    rt_line_label *line_labels;
    size_t n_line_labels, cap_line_labels;
    char **notes; /* printed under the plot */
    size_t n_notes;
    double legend_w;
    double ts;                     /* text scale (spec->text_scale, or 1) */
    size_t line_obst0, line_obst1; /* obstacles of the last rt_chart_obstacle_line */
    /* Roofline: the units and levels drawn (rt_chart_roofs_pick): in hier mode those the drawn
     * kernels use (FLOPs on the unit, bytes at the level), all with spec->all_roofs; in single
     * mode the reference ones. */
    bool *unit_on, *level_on;
    /* What the view drew, for the legend (which lists only that): symbols closed [0] and open
     * [1], trajectories solid [0] and dashed [1], overhead boxes or regions. */
    size_t n_drawn[2];
    bool traj_drawn[2];
    size_t n_oh_drawn;
    bool drawn_known; /* the view has drawn (the legend's width is taken before it does) */
    /* The title as laid out: one or two lines at title_size (rt_chart_layout). */
    char title[2][256];
    int title_lines;
    double title_size;
};

/* chart.c: selection, families, layout driver */
void rt_chart_roofs_pick(rt_chart *ch);

/* chart-style.c: what a point is (a kernel or a config, and its tags), keys from tags, and the
 * style they give a point */
const char *rt_chart_cfg_tag(const rt_analysis *a, size_t c, const char *key);
const char *rt_chart_item_tag(const rt_analysis *a, size_t i, const char *key);
/* True when the chart draws kernels (items), false when it draws configs: the roofline view
 * places each kernel, the complexity, time and 4D views place configs. */
bool rt_chart_draws_items(const rt_chart *ch);
/* The distinct values of tag among the drawn points, in natural order. */
void rt_key_build(rt_chart *ch, rt_key *k, const char *tag);
void rt_key_release(rt_key *k);
int rt_key_index(const rt_key *k, const char *value); /* -1 when absent or unused */
/* The place in k of config or item idx's value (-1: none): rt_key_index of its tag, cached. */
int rt_key_place(const rt_chart *ch, const rt_key *k, size_t idx, bool is_item);
/* Points are drawn in time order, which visits the items (or configs) and their per-point arrays
 * at random places: at a million points the loops wait on memory. Each loop fetches now what the
 * point RT_CHART_AHEAD places on will read (rooftime/util/prefetch.h). */
enum { RT_CHART_AHEAD = 16 };
/* What the style of point idx reads: its selection and its places in the three keys. */
#define RT_CHART_PREFETCH_STYLE(ch, idx, is_item)                                                  \
    do {                                                                                           \
        RT_PREFETCH((is_item) ? &(ch)->sel_item[idx] : &(ch)->sel_cfg[idx]);                       \
        if ((ch)->series.place)                                                                    \
            RT_PREFETCH(&(ch)->series.place[idx]);                                                 \
        if ((ch)->marker.place)                                                                    \
            RT_PREFETCH(&(ch)->marker.place[idx]);                                                 \
        if ((ch)->fill.place)                                                                      \
            RT_PREFETCH(&(ch)->fill.place[idx]);                                                   \
    } while (0)
/* The i-th marker shape of the chart order (circle, square, triangle, diamond, ...). */
rt_marker_shape rt_chart_shape(size_t i);
/* 4D view: fill_by values take the marker shapes (fill shows closed/open), marker_by is unused. */
bool rt_chart_fill_is_shape(const rt_chart *ch);
/* Style of config c (or item i when is_item). */
void rt_chart_style(const rt_chart *ch, size_t idx, bool is_item, rt_marker_style *m);
/* A symbol of config c (or item i) was drawn, open or closed: its key values go in the legend. */
void rt_chart_drawn(rt_chart *ch, size_t idx, bool is_item, bool open);
/* Hover text of a config / item verdict; caller frees. */
char *rt_chart_cfg_title(const rt_chart *ch, size_t c);
char *rt_chart_item_title(const rt_chart *ch, size_t i);
/* Short label of config c: the values of tags that differ among the selected configs. */
char *rt_chart_cfg_short(const rt_chart *ch, size_t c);
/* Families to draw (param == ch->family, >= 2 selected members); fills idx (caller frees). */
size_t rt_chart_families(const rt_chart *ch, size_t **idx);

/* chart-axes.c: mapping, frame, ticks, clipping, number formats */
double rt_chart_X(const rt_chart *ch, double v);
double rt_chart_Y(const rt_chart *ch, double v);
/* Layout the plot rectangle from the canvas, title, axis labels and legend width. */
void rt_chart_layout(rt_chart *ch);
void rt_chart_frame(rt_chart *ch);       /* grid, ticks, axis labels, title */
void rt_chart_frame_close(rt_chart *ch); /* the plot border on top of everything */
/* Clip a segment in pixels to the plot rectangle; false when nothing remains. */
bool rt_chart_clip(const rt_chart *ch, double *x0, double *y0, double *x1, double *y1);
/* A line between two data points, clipped to the plot. */
void rt_chart_data_line(rt_chart *ch, double x0, double y0, double x1, double y1,
                        const rt_stroke *s);
/* A polyline through data points (x[i], y[i]), clipped; points <= 0 break it. */
void rt_chart_data_polyline(rt_chart *ch, const double *x, const double *y, size_t n,
                            const rt_stroke *s);

/* chart-labels.c: the notes under the chart, obstacles and greedy label placement */
/* A note under the chart (what was left out, what the labels stand for). */
void rt_chart_note(rt_chart *ch, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rt_chart_obstacle(rt_chart *ch, double x0, double y0, double x1, double y1);
void rt_chart_obstacle_point(rt_chart *ch, double x, double y, double r);
/* A drawn line between data points as obstacles (small boxes along it, clipped to the plot), so
 * labels of other lines do not sit on it. */
void rt_chart_obstacle_line(rt_chart *ch, double x0, double y0, double x1, double y1);
bool rt_chart_box_free(const rt_chart *ch, const rt_box *b);
void rt_chart_label(rt_chart *ch, double x, double y, double r, const char *text, uint32_t color,
                    int priority);
/* A label K<id> or C<id> (prefix), the kernel's or config's rank by time as the report numbers it.
 */
void rt_chart_id_label(rt_chart *ch, double x, double y, double r, char prefix, size_t id,
                       uint32_t color, int priority);
void rt_chart_labels_place(rt_chart *ch);
/* After placement: the note that says which ID labels the chart shows (ch->id_labels), and which
 * of them found no room. */
void rt_chart_id_note(rt_chart *ch);
void rt_chart_obstacles_release(rt_chart *ch);
/* A label along a data-space line from (x0,y0) to (x1,y1), placed after every symbol is down
 * (rt_chart_line_labels_place): tries positions along the visible part from `prefer`, rotated
 * with the line, above it (below when `below`), and keeps the first that is clear. */
void rt_chart_line_label(rt_chart *ch, double x0, double y0, double x1, double y1, const char *text,
                         uint32_t color, bool below, double prefer);
void rt_chart_line_labels_place(rt_chart *ch);

/* chart-legend.c */
double rt_chart_legend_width(rt_chart *ch); /* computes the entries' width */
void rt_chart_legend(rt_chart *ch);
/* The entries of the roofline, and of the complexity, time and 4D planes. */
void rt_chart_legend_roofline(const rt_chart *ch, rt_legend_list *l);
void rt_chart_legend_planes(const rt_chart *ch, rt_legend_list *l);

/* The views */
int rt_chart_roofline(rt_chart *ch, rt_error *err);
int rt_chart_complexity(rt_chart *ch, rt_error *err);
int rt_chart_timeplane(rt_chart *ch, rt_error *err);
int rt_chart_4d(rt_chart *ch, rt_error *err);

/* chart-points.c: configs at per-config coordinates (NAN: not drawn), closed or open, joined
 * in family order (solid, or dashed for open) and labelled with the family parameter's value
 * (or a short label when there are no families and few configs). Counts what was skipped. */
size_t rt_chart_config_points(rt_chart *ch, const double *x, const double *y, bool open,
                              bool label);
/* Add the data range of per-point coordinates (configs, or kernels with --points kernels). */
void rt_chart_config_range(const rt_chart *ch, const double *x, const double *y, rt_range *rx,
                           rt_range *ry);
/* The points of the complexity, time and 4D views: configs, or kernels (spec->points). Arrays of
 * coordinates are indexed by rt_chart_point_*: n points, which are drawn, their verdicts. */
size_t rt_chart_n_points(const rt_chart *ch);
bool rt_chart_point_sel(const rt_chart *ch, size_t i);
const rt_verdict *rt_chart_point_v(const rt_chart *ch, size_t i);
/* Kernels as points (sized by their share of time, labelled K1, K2 ... by time as the report's
 * kernel table numbers them); what rt_chart_config_points does for configs. */
size_t rt_chart_item_points(rt_chart *ch, const double *x, const double *y, bool open, bool label);
/* Configs or kernels, as the spec asks. */
size_t rt_chart_points(rt_chart *ch, const double *x, const double *y, bool open, bool label);

/* Shared by complexity, 4D and the time plane (time_plane: both times below n tau): the overhead
 * outline of each point at the tau its profile pays; and the machine-balance diagonal. */
void rt_chart_overhead_boxes(rt_chart *ch, bool time_plane);
void rt_chart_balance_line(rt_chart *ch);
/* A triangle where an overhead box (corner x1, y1) leaves the plot, when cut. */
void rt_chart_box_cut_marker(rt_chart *ch, double x1, double y1, bool cut, uint32_t color);

#endif
