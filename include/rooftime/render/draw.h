/* A small table of drawing operations that charts are written against (SVG, PNG, PDF backends). */
#ifndef ROOFTIME_RENDER_DRAW_H
#define ROOFTIME_RENDER_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rooftime/util/error.h"

/*
 * Coordinates are in points (1/72 inch; one pixel in SVG and PNG), origin top left, y down.
 * Colors are 0xRRGGBB. A drawing is laid out once by the chart code and replayed by whichever
 * backend the output file's extension picks; only text_extent differs between backends (SVG
 * estimates widths from a table of DejaVu Sans advances, cairo measures the real font).
 */

typedef enum rt_draw_format { RT_DRAW_SVG = 0, RT_DRAW_PNG, RT_DRAW_PDF } rt_draw_format;

/* Pick the format from a file name's extension (.svg, .png, .pdf; any case); -1 with a message
 * otherwise. */
int rt_draw_format_from_path(const char *path, rt_draw_format *out, rt_error *err);
const char *rt_draw_format_name(rt_draw_format f);
/* Whether this build can write the format (PNG and PDF need cairo). */
bool rt_draw_format_available(rt_draw_format f);

typedef enum rt_marker_shape {
    RT_MARKER_CIRCLE = 0,
    RT_MARKER_SQUARE,
    RT_MARKER_TRIANGLE,
    RT_MARKER_DIAMOND,
    RT_MARKER_TRIANGLE_DOWN,
    RT_MARKER_PENTAGON,
    RT_MARKER_HEXAGON,
    RT_MARKER_STAR,
    RT_MARKER_PLUS,
    RT_MARKER_CROSS,
    RT_MARKER_N_SHAPES
} rt_marker_shape;

const char *rt_marker_shape_name(rt_marker_shape s);

typedef struct rt_stroke {
    uint32_t color;
    double width;   /* 0: 1 */
    int dash;       /* 0 solid, 1 dashed, 2 dotted */
    double opacity; /* 0: opaque */
} rt_stroke;

typedef struct rt_marker_style {
    rt_marker_shape shape;
    double size;    /* diameter of the circumscribed circle */
    uint32_t color; /* stroke, and fill when filled */
    bool filled;    /* false: hollow (white inside) */
    double width;   /* outline width; 0: 1.2 */
    double opacity; /* 0: opaque */
} rt_marker_style;

typedef enum rt_text_anchor { RT_ANCHOR_START = 0, RT_ANCHOR_MIDDLE, RT_ANCHOR_END } rt_text_anchor;

typedef struct rt_text_style {
    double size; /* font size; 0: 11 */
    uint32_t color;
    rt_text_anchor anchor;
    double rotate; /* degrees, clockwise around (x, y) */
    bool bold;
    bool halo; /* a white outline behind the glyphs, for labels drawn over lines */
} rt_text_style;

typedef struct rt_draw rt_draw;

/*
 * The operations a backend implements. `x`, `y` of text is the baseline point; `title` of a
 * marker or rect is hover text (SVG <title>; ignored by raster backends); all strings UTF-8,
 * escaped by the backend.
 */
typedef struct rt_draw_ops {
    const char *name;
    int (*begin)(rt_draw *d, rt_error *err);
    int (*end)(rt_draw *d, rt_error *err); /* finish and flush the output; does not free */
    void (*destroy)(rt_draw *d);           /* release backend state */
    void (*line)(rt_draw *d, double x1, double y1, double x2, double y2, const rt_stroke *s);
    void (*polyline)(rt_draw *d, const double *xy, size_t n, const rt_stroke *s);
    /* A rectangle: fill (fill_opacity 0 = no fill) and optional outline (s NULL = none). */
    void (*rect)(rt_draw *d, double x, double y, double w, double h, uint32_t fill,
                 double fill_opacity, const rt_stroke *s, const char *title);
    void (*marker)(rt_draw *d, double x, double y, const rt_marker_style *m, const char *title);
    void (*text)(rt_draw *d, double x, double y, const char *s, const rt_text_style *t);
    /* Advance width and height (ascent + descent) of s at this size. */
    void (*text_extent)(rt_draw *d, const char *s, double size, bool bold, double *w, double *h);
    /* A comment/grouping hint for readers of the SVG (ignored elsewhere); name NULL closes. */
    void (*group)(rt_draw *d, const char *name);
} rt_draw_ops;

struct rt_draw {
    const rt_draw_ops *ops;
    rt_draw_format format;
    double width, height;
    FILE *fp;   /* output stream, not owned */
    void *priv; /* backend state */
};

extern const rt_draw_ops rt_draw_svg_ops;
extern const rt_draw_ops rt_draw_cairo_ops;

/*
 * A drawing of width x height points written to fp in format f (begin already called).
 * Returns NULL with a message when the format is unavailable. rt_draw_finish ends it
 * (writes the trailer or encodes the image) and frees it; rt_draw_free frees without finishing.
 */
rt_draw *rt_draw_new(rt_draw_format f, FILE *fp, double width, double height, rt_error *err);
int rt_draw_finish(rt_draw *d, rt_error *err);
void rt_draw_free(rt_draw *d);
/* An SVG drawing made with no output stream (fp NULL): end it, free it, and return its text
 * (malloc'ed, NUL-terminated; its length in *len) or NULL with a message. */
char *rt_draw_svg_take(rt_draw *d, size_t *len, rt_error *err);

/* Convenience wrappers that fill in defaults. */
static inline void rt_draw_line(rt_draw *d, double x1, double y1, double x2, double y2,
                                const rt_stroke *s)
{
    d->ops->line(d, x1, y1, x2, y2, s);
}
static inline void rt_draw_polyline(rt_draw *d, const double *xy, size_t n, const rt_stroke *s)
{
    if (n >= 2)
        d->ops->polyline(d, xy, n, s);
}
static inline void rt_draw_rect(rt_draw *d, double x, double y, double w, double h, uint32_t fill,
                                double fill_opacity, const rt_stroke *s, const char *title)
{
    d->ops->rect(d, x, y, w, h, fill, fill_opacity, s, title);
}
static inline void rt_draw_marker(rt_draw *d, double x, double y, const rt_marker_style *m,
                                  const char *title)
{
    d->ops->marker(d, x, y, m, title);
}
static inline void rt_draw_text(rt_draw *d, double x, double y, const char *s,
                                const rt_text_style *t)
{
    d->ops->text(d, x, y, s, t);
}
static inline void rt_draw_text_extent(rt_draw *d, const char *s, double size, bool bold, double *w,
                                       double *h)
{
    d->ops->text_extent(d, s, size, bold, w, h);
}
static inline void rt_draw_group(rt_draw *d, const char *name)
{
    if (d->ops->group)
        d->ops->group(d, name);
}

/* Outline of a marker: fills xy (at most RT_MARKER_MAX_VERTICES points) and returns the number
 * of vertices; 0 means a circle of diameter m->size centred on (x, y). Shared by the backends. */
#define RT_MARKER_MAX_VERTICES 12
size_t rt_marker_outline(const rt_marker_style *m, double x, double y, double *xy);

/* Estimated advance width of UTF-8 text in DejaVu Sans at this size (used by SVG; deterministic).
 */
double rt_text_width_estimate(const char *s, double size, bool bold);

#endif
