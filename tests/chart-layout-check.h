/* The checker of tests/test-chart-layout.c: a drawing backend that wraps the SVG one and records
 * each text, line, marker and group, and check(): every text inside the drawing and apart from
 * the others, no ceiling label crossed by a ceiling line, off-chart markers counted. Included by
 * that test alone. */
#ifndef ROOFTIME_TESTS_CHART_LAYOUT_CHECK_H
#define ROOFTIME_TESTS_CHART_LAYOUT_CHECK_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/analysis.h"
#include "rooftime/render/chart.h"
#include "rooftime/render/draw.h"
#include "testutil.h"

typedef struct box {
    double x0, y0, x1, y1;
    char text[96];
    bool label;
    char group[24];
} box;

static box boxes[4096];
static size_t n_boxes;
static const char *group;
static rt_draw_ops checking;

/* The ceiling lines as drawn (group "ceilings"), and the labels along them as turned boxes: the
 * baseline point, the angle, and the box in the text's own frame (u along the baseline). */
typedef struct seg {
    double x0, y0, x1, y1;
} seg;
typedef struct turned {
    double x, y, ang, u0, u1, v0, v1;
    char text[96];
} turned;
static seg segs[256];
static size_t n_segs;
static turned turns[128];
static size_t n_turns;

static bool in_group(const char *name)
{
    return group && strcmp(group, name) == 0;
}

/* Markers drawn in the group of the launch-overhead ceiling beyond the plot (none: it is an
 * arrow and a label, not a symbol a series could have). */
static size_t n_offchart_markers;

static void marker_op(rt_draw *d, double x, double y, const rt_marker_style *m, const char *title)
{
    if (in_group("overhead-offchart"))
        n_offchart_markers++;
    rt_draw_svg_ops.marker(d, x, y, m, title);
}

static void line_op(rt_draw *d, double x0, double y0, double x1, double y1, const rt_stroke *s)
{
    if (in_group("ceilings") && n_segs < sizeof segs / sizeof *segs)
        segs[n_segs++] = (seg){x0, y0, x1, y1};
    rt_draw_svg_ops.line(d, x0, y0, x1, y1, s);
}

/* The box of a text as the SVG backend lays it out: the estimated advance width placed by the
 * anchor, ascent 0.93 and descent 0.24 of the size around the baseline, rotated about (x, y). */
static void text_op(rt_draw *d, double x, double y, const char *s, const rt_text_style *t)
{
    double size = t->size > 0 ? t->size : 11;
    double w = rt_text_width_estimate(s, size, t->bold);
    double x0 = t->anchor == RT_ANCHOR_MIDDLE ? -w / 2 : t->anchor == RT_ANCHOR_END ? -w : 0;
    double cx[4] = {x0, x0 + w, x0 + w, x0},
           cy[4] = {-0.93 * size, -0.93 * size, 0.24 * size, 0.24 * size};
    double a = t->rotate * M_PI / 180, ca = cos(a), sa = sin(a);
    box b = {INFINITY, INFINITY, -INFINITY, -INFINITY, "", in_group("labels"), ""};
    snprintf(b.group, sizeof b.group, "%s", group ? group : "");
    if (in_group("ceiling-labels") && n_turns < sizeof turns / sizeof *turns) {
        turned tr = {x, y, a, x0, x0 + w, -0.93 * size, 0.24 * size, ""};
        snprintf(tr.text, sizeof tr.text, "%s", s);
        turns[n_turns++] = tr;
    }
    for (int i = 0; i < 4; i++) {
        double px = x + cx[i] * ca - cy[i] * sa, py = y + cx[i] * sa + cy[i] * ca;
        b.x0 = fmin(b.x0, px), b.x1 = fmax(b.x1, px);
        b.y0 = fmin(b.y0, py), b.y1 = fmax(b.y1, py);
    }
    snprintf(b.text, sizeof b.text, "%s", s);
    if (n_boxes < sizeof boxes / sizeof *boxes)
        boxes[n_boxes++] = b;
    rt_draw_svg_ops.text(d, x, y, s, t);
}

static void group_op(rt_draw *d, const char *name)
{
    group = name;
    rt_draw_svg_ops.group(d, name);
}

/* Whether the segment meets the turned box of a label, shrunk by half a point. */
static bool crosses(const seg *g, const turned *t)
{
    double ca = cos(t->ang), sa = sin(t->ang);
    double u0 = (g->x0 - t->x) * ca + (g->y0 - t->y) * sa,
           v0 = -(g->x0 - t->x) * sa + (g->y0 - t->y) * ca;
    double u1 = (g->x1 - t->x) * ca + (g->y1 - t->y) * sa,
           v1 = -(g->x1 - t->x) * sa + (g->y1 - t->y) * ca;
    double lo[2] = {t->u0 + 0.5, t->v0 + 0.5}, hi[2] = {t->u1 - 0.5, t->v1 - 0.5};
    double p0[2] = {u0, v0}, d[2] = {u1 - u0, v1 - v0}, s0 = 0, s1 = 1;
    for (int k = 0; k < 2; k++) {
        if (d[k] == 0) {
            if (p0[k] < lo[k] || p0[k] > hi[k])
                return false;
            continue;
        }
        double ra = (lo[k] - p0[k]) / d[k], rb = (hi[k] - p0[k]) / d[k];
        s0 = fmax(s0, fmin(ra, rb));
        s1 = fmin(s1, fmax(ra, rb));
    }
    return s0 <= s1;
}

/* Whether the legend holds a text containing s. */
static bool legend_has(const char *s)
{
    for (size_t i = 0; i < n_boxes; i++)
        if (!strcmp(boxes[i].group, "legend") && strstr(boxes[i].text, s))
            return true;
    return false;
}

/* Draw one chart through the checking backend and check its texts. */
static void check(const rt_chart_spec *spec, const rt_analysis *a, const char *what)
{
    double W = spec->width > 0 ? spec->width : 780, H = spec->height > 0 ? spec->height : 560;
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    rt_error err;
    rt_draw *d = rt_draw_new(RT_DRAW_SVG, fp, W, H, &err);
    assert_non_null(d);
    checking = *d->ops;
    checking.text = text_op;
    checking.group = group_op;
    checking.line = line_op;
    checking.marker = marker_op;
    d->ops = &checking;
    n_boxes = n_segs = n_turns = n_offchart_markers = 0;
    group = NULL;
    if (rt_chart_draw(spec, a, d, &err) != 0)
        fail_msg("%s: %s", what, err.msg);
    assert_int_equal(rt_draw_finish(d, &err), 0);
    fclose(fp);
    free(buf);
    assert_true(n_boxes > 10);
    for (size_t i = 0; i < n_boxes; i++) {
        const box *b = &boxes[i];
        if (b->x0 < -0.5 || b->y0 < -0.5 || b->x1 > W + 0.5 || b->y1 > H + 0.5)
            fail_msg("%s: text '%s' [%.1f %.1f %.1f %.1f] overflows the %gx%g drawing", what,
                     b->text, b->x0, b->y0, b->x1, b->y1, W, H);
        for (size_t j = 0; j < i && b->label; j++) {
            const box *c = &boxes[j];
            if (c->label && b->x0 < c->x1 - 0.5 && c->x0 < b->x1 - 0.5 && b->y0 < c->y1 - 0.5 &&
                c->y0 < b->y1 - 0.5)
                fail_msg("%s: labels '%s' and '%s' overlap", what, b->text, c->text);
        }
    }
    /* A ceiling's label is crossed by no other ceiling line (its own runs beside it). */
    for (size_t i = 0; i < n_turns; i++)
        for (size_t k = 0; k < n_segs; k++)
            if (crosses(&segs[k], &turns[i]))
                fail_msg("%s: ceiling label '%s' is crossed by the ceiling line (%.1f %.1f)-(%.1f "
                         "%.1f)",
                         what, turns[i].text, segs[k].x0, segs[k].y0, segs[k].x1, segs[k].y1);
}

#endif
