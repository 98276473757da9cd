/* Layout that never clips or collides: every text of every view (modes, points, sizes, a long
 * title, long names) lies inside the drawing, measured with the SVG backend's own text-extent
 * rule, and the point labels do not overlap each other. A backend that wraps the SVG one records
 * each text operation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/render/chart.h"
#include "rooftime/render/draw.h"
#include "testutil.h"

typedef struct box {
    double x0, y0, x1, y1;
    char text[96];
    bool label;
} box;

static box boxes[4096];
static size_t n_boxes;
static const char *group;
static rt_draw_ops checking;

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
    box b = {INFINITY, INFINITY, -INFINITY, -INFINITY, "", group && !strcmp(group, "labels")};
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
    d->ops = &checking;
    n_boxes = 0;
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
}

static rt_profile *long_names(void)
{
    /* The example profile with very long kernel names, as C++ templates give them. */
    rt_profile *p;
    rt_error err;
    char path[4096];
    snprintf(path, sizeof path, "%s/data/examples/conv2d-pt-fp16.json", tu_src());
    if (rt_profile_load(path, &p, &err) != 0)
        fail_msg("%s", err.msg);
    return p;
}

static void test_every_view(void **state)
{
    (void)state;
    rt_machine *m;
    rt_error err;
    assert_int_equal(rt_machine_resolve("v100", &m, &err), 0);
    rt_profile *p = long_names();
    static const char *const titles[] = {
        NULL, "A title much longer than the chart is wide, so that it has to be wrapped onto a "
              "second line by the rule, and then still shortened with an ellipsis at the end of "
              "that second line because even two lines cannot hold all of these words"};
    for (int mode = 0; mode < 2; mode++) {
        rt_analysis *a =
            rt_analysis_new(m, mode ? RT_MODE_HIER : RT_MODE_SINGLE, &p, 1, NULL, &err);
        assert_non_null(a);
        for (int v = 0; v < RT_VIEW_N; v++)
            for (int pts = 0; pts < 2; pts++)
                for (int size = 0; size < 2; size++)
                    for (int t = 0; t < 2; t++) {
                        rt_chart_spec spec = {.view = (rt_view)v,
                                              .points = pts ? RT_POINTS_KERNELS : RT_POINTS_CONFIGS,
                                              .series_by = "framework",
                                              .fill_by = "precision",
                                              .title = titles[t],
                                              .all_roofs = t == 1};
                        if (size) { /* the report's charts */
                            spec.width = 1300, spec.height = 480, spec.text_scale = 1.2;
                        }
                        char what[160];
                        snprintf(what, sizeof what, "%s %s points=%d size=%d title=%d",
                                 rt_view_name(spec.view), mode ? "hier" : "single", pts, size, t);
                        check(&spec, a, what);
                    }
        rt_analysis_free(a);
    }
    rt_profile_free(p);
    rt_machine_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_every_view)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
