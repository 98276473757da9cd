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
#include "chart-layout-check.h"

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

static rt_profile *profile_from(const char *dir, const char *name, const char *json)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(tu_write_file(path, json), 0);
    rt_profile *p;
    rt_error err;
    if (rt_profile_load(path, &p, &err) != 0)
        fail_msg("%s", err.msg);
    return p;
}

/* Every view in both modes, at both sizes, with all roofs and without, through check(). */
static void check_all(rt_machine *m, rt_profile **p, size_t np, const rt_chart_spec *base,
                      const char *what)
{
    rt_error err;
    for (int mode = 0; mode < 2; mode++) {
        rt_analysis *a =
            rt_analysis_new(m, mode ? RT_MODE_HIER : RT_MODE_SINGLE, p, np, NULL, &err);
        if (!a)
            fail_msg("%s: %s", what, err.msg);
        for (int v = 0; v < RT_VIEW_N; v++)
            for (int size = 0; size < 2; size++)
                for (int all = 0; all < 2; all++) {
                    rt_chart_spec spec = *base;
                    spec.view = (rt_view)v;
                    spec.all_roofs = all;
                    if (size)
                        spec.width = 1300, spec.height = 480, spec.text_scale = 1.2;
                    char w[200];
                    snprintf(w, sizeof w, "%s: %s %s size=%d all=%d", what, rt_view_name(spec.view),
                             mode ? "hier" : "single", size, all);
                    check(&spec, a, w);
                }
        rt_analysis_free(a);
    }
}

/* Roof labels clear of the other ceilings: a launch-overhead ceiling just above the tensor roof
 * (the paper's tables put it at 133.5 TFLOP/s over 107.5: "tensor 107.5 TFLOP/s" was struck
 * through), and a CPU whose L1 and L2 diagonals lie close together under four roofs. */
static void test_ceiling_labels(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    rt_machine *m;
    rt_error err;
    assert_int_equal(rt_machine_resolve("v100", &m, &err), 0);
    /* W / (n tau) = 133.5 TFLOP/s at tau = 4.2 us: 5.607e8 FLOPs per launch. */
    char json[8192];
    size_t len = (size_t)snprintf(
        json, sizeof json, "{\"schema\": \"rooftime.profile/1\", \"tool\": \"t\", \"kernels\": [");
    for (int i = 0; i < 24; i++) {
        double ai = pow(10, 0.3 + 2.5 * i / 23.0), W = 5.607e9, Q = W / ai;
        double perf = fmin(ai * 828.8e9, 107.48e12) * (0.15 + 0.6 * (i % 4) / 3.0);
        len += (size_t)snprintf(json + len, sizeof json - len,
                                "%s{\"name\": \"k%d\", \"invocations\": 10, \"time\": %.6g, "
                                "\"flops\": {\"tensor\": %.6g}, \"bytes\": {\"HBM\": %.6g}, "
                                "\"tags\": {\"framework\": \"f%d\"}}",
                                i ? ", " : "", i, W / perf, W, Q, i % 3);
    }
    snprintf(json + len, sizeof json - len, "]}");
    rt_profile *p = profile_from(dir, "overhead.json", json);
    rt_chart_spec spec = {.series_by = "framework"};
    check_all(m, &p, 1, &spec, "overhead above the tensor roof");
    rt_profile_free(p);
    rt_machine_free(m);

    /* The measured CPU of a study: L1 61.1 and L2 49.4 GB/s, 0.09 decades apart. */
    char mpath[4096];
    snprintf(mpath, sizeof mpath, "%s/cpu.json", dir);
    assert_int_equal(
        tu_write_file(
            mpath,
            "{\"schema\": \"rooftime.machine/1\", \"name\": \"CPU\", \"units\": ["
            "{\"name\": \"fp64\", \"flops\": 23.32e9}, {\"name\": \"fp32\", \"flops\": 51.29e9},"
            "{\"name\": \"bf16\", \"flops\": 94.4e9}, {\"name\": \"int8\", \"flops\": 174.4e9}],"
            "\"levels\": [{\"name\": \"L1\", \"bytes_per_s\": 61.14e9}, {\"name\": \"L2\", "
            "\"bytes_per_s\": 49.4e9}, {\"name\": \"L3\", \"bytes_per_s\": 30.18e9}, "
            "{\"name\": \"DRAM\", \"bytes_per_s\": 8.729e9}], \"launch_overhead\": {\"seconds\": "
            "3.5e-6}, \"reference\": {\"unit\": \"bf16\", \"level\": \"DRAM\"}}"),
        0);
    assert_int_equal(rt_machine_resolve(mpath, &m, &err), 0);
    p = profile_from(dir, "cpu-kernels.json",
                     "{\"schema\": \"rooftime.profile/1\", \"tool\": \"t\", \"kernels\": ["
                     "{\"name\": \"gemm\", \"invocations\": 30, \"time\": 2.4, \"flops\": "
                     "{\"fp32\": 1.1e11}, \"bytes\": {\"L1\": 4e9, \"L2\": 2e9, \"L3\": 1e9, "
                     "\"DRAM\": 2e9}},"
                     "{\"name\": \"im2col\", \"invocations\": 30, \"time\": 0.9, \"flops\": "
                     "{\"fp32\": 2e8}, \"bytes\": {\"L1\": 2e9, \"L2\": 1e9, \"L3\": 1e9, "
                     "\"DRAM\": 1.2e9}},"
                     "{\"name\": \"relu\", \"invocations\": 30, \"time\": 0.2, \"flops\": "
                     "{\"fp32\": 1e8}, \"bytes\": {\"L1\": 1e9, \"L2\": 8e8, \"L3\": 8e8, "
                     "\"DRAM\": 8e8}}]}");
    spec = (rt_chart_spec){0};
    check_all(m, &p, 1, &spec, "CPU levels close together");
    rt_profile_free(p);
    rt_machine_free(m);
    tu_rmtree(dir);
    free(dir);
}

/* A legend with many values and many notes fits the drawing ("+N more"), and lists only what was
 * drawn: a series whose kernels have no bytes (not placed on any plane), and no overhead box when
 * none lies on the plot. */
static void test_legend(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    rt_machine *m;
    rt_error err;
    assert_int_equal(rt_machine_resolve("v100", &m, &err), 0);
    size_t cap = 1 << 17, len = 0;
    char *json = malloc(cap);
    len += (size_t)snprintf(json + len, cap - len,
                            "{\"schema\": \"rooftime.profile/1\", \"tool\": \"t\", \"kernels\": [");
    int k = 0;
    for (int f = 0; f < 14; f++)
        for (int prec = 0; prec < 4; prec++)
            for (int batch = 0; batch < 2; batch++, k++) {
                /* Most with FLOPs and bytes; some zero-AI, some FLOPs only, some nothing. */
                int kind = k % 11 == 3 ? 1 : k % 13 == 5 ? 2 : k % 17 == 7 ? 3 : 0;
                double W = 1e9 * (1 + k % 7) * (batch + 1), Q = 1e7 * (1 + k % 5) * (batch + 1);
                char flops[64] = "", bytes[64] = "";
                if (kind == 0 || kind == 2)
                    snprintf(flops, sizeof flops, "\"tensor\": %.6g", W);
                if (kind == 0 || kind == 1)
                    snprintf(bytes, sizeof bytes, "\"HBM\": %.6g", Q);
                len += (size_t)snprintf(
                    json + len, cap - len,
                    "%s{\"name\": \"kernel number %d with a long name\", \"invocations\": %d, "
                    "\"time\": %.6g, \"flops\": {%s}, \"bytes\": {%s}, \"tags\": "
                    "{\"framework\": \"framework-%d\", \"precision\": \"p%d\", \"batch\": \"%d\"}}",
                    k ? ", " : "", k, 1 + k % 50, 1e-4 * (1 + k % 9), flops, bytes, f, prec,
                    16 << batch);
            }
    snprintf(json + len, cap - len, "]}");
    rt_profile *p = profile_from(dir, "many.json", json);
    free(json);
    rt_chart_spec spec = {.series_by = "framework", .fill_by = "precision", .marker_by = "batch"};
    check_all(m, &p, 1, &spec, "many values and notes");
    rt_analysis *a = rt_analysis_new(m, RT_MODE_SINGLE, &p, 1, NULL, &err);
    assert_non_null(a);
    /* Many notes: the ones past the bottom are counted. */
    spec = (rt_chart_spec){.view = RT_VIEW_COMPLEXITY,
                           .series_by = "framework",
                           .fill_by = "precision",
                           .marker_by = "batch",
                           .width = 1300,
                           .height = 480,
                           .text_scale = 1.2};
    check(&spec, a, "complexity, report size");
    assert_true(legend_has("more"));
    rt_analysis_free(a);
    rt_profile_free(p);

    /* A series with FLOPs only (PyTorch's traces): nothing of it can be placed. */
    p = profile_from(dir, "torch.json",
                     "{\"schema\": \"rooftime.profile/1\", \"tool\": \"t\", \"kernels\": ["
                     "{\"name\": \"gemm\", \"invocations\": 5, \"time\": 1e-3, \"flops\": "
                     "{\"tensor\": 1e10}, \"bytes\": {\"HBM\": 1e8}, \"tags\": {\"framework\": "
                     "\"onednn\", \"batch\": \"16\"}},"
                     "{\"name\": \"gemm\", \"invocations\": 5, \"time\": 2e-3, \"flops\": "
                     "{\"tensor\": 2e10}, \"bytes\": {\"HBM\": 2e8}, \"tags\": {\"framework\": "
                     "\"onednn\", \"batch\": \"32\"}},"
                     "{\"name\": \"aten::conv2d\", \"invocations\": 5, \"time\": 3e-3, \"flops\": "
                     "{\"tensor\": 1e10}, \"bytes\": {}, \"tags\": {\"framework\": \"pytorch\", "
                     "\"batch\": \"16\"}}]}");
    a = rt_analysis_new(m, RT_MODE_SINGLE, &p, 1, NULL, &err);
    assert_non_null(a);
    for (int v = 0; v < RT_VIEW_N; v++) {
        spec = (rt_chart_spec){.view = (rt_view)v, .series_by = "framework"};
        check(&spec, a, rt_view_name(spec.view));
        assert_true(legend_has("onednn"));
        if (v == RT_VIEW_ROOFLINE && !legend_has("50.0%")) /* as the zero-AI note says it */
            fail_msg("roofline: the note on kernels without bytes gives no share of time");
        if (legend_has("pytorch"))
            fail_msg("%s: the legend lists 'pytorch', of which nothing is drawn",
                     rt_view_name(spec.view));
    }
    rt_analysis_free(a);
    rt_profile_free(p);

    /* Few launches of much work: every overhead box lies below and left of the axes. */
    p = profile_from(dir, "big.json",
                     "{\"schema\": \"rooftime.profile/1\", \"tool\": \"t\", \"kernels\": ["
                     "{\"name\": \"a\", \"invocations\": 1, \"time\": 2, \"flops\": {\"tensor\": "
                     "1e14}, \"bytes\": {\"HBM\": 1e11}},"
                     "{\"name\": \"b\", \"invocations\": 1, \"time\": 1, \"flops\": {\"tensor\": "
                     "3e13}, \"bytes\": {\"HBM\": 3e11}}]}");
    a = rt_analysis_new(m, RT_MODE_SINGLE, &p, 1, NULL, &err);
    assert_non_null(a);
    for (int v = RT_VIEW_COMPLEXITY; v < RT_VIEW_N; v++) {
        spec = (rt_chart_spec){.view = (rt_view)v};
        check(&spec, a, rt_view_name(spec.view));
        if (legend_has("overhead box") || legend_has("overhead region"))
            fail_msg("%s: the legend lists an overhead outline, and none is drawn",
                     rt_view_name(spec.view));
    }
    rt_analysis_free(a);
    rt_profile_free(p);
    rt_machine_free(m);
    tu_rmtree(dir);
    free(dir);
}

/* The texts of a group, each once: fails when two read the same. */
static void check_distinct(const char *grp, const char *what)
{
    for (size_t i = 0; i < n_boxes; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(boxes[i].group, grp) && !strcmp(boxes[j].group, grp) &&
                !strcmp(boxes[i].text, boxes[j].text) && strcmp(boxes[i].text, "..."))
                fail_msg("%s: two %s texts read '%s'", what, grp, boxes[i].text);
}

/* Names alike up to their end (template instances; Han and Hangul names): the legend's values
 * and the configs' labels stay told apart, and CJK text, a whole em a character, fits. */
static void test_long_alike_names(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    rt_machine *m;
    rt_error err;
    assert_int_equal(rt_machine_resolve("v100", &m, &err), 0);
    static const char *const impl[2][3] = {
        {"cutlass_tensorop_h1688gemm_256x128_32x2_nn_align8_epilogue_relu_0",
         "cutlass_tensorop_h1688gemm_256x128_32x2_nn_align8_epilogue_relu_1",
         "cutlass_tensorop_h1688gemm_256x128_32x2_nn_align8_epilogue_relu_2"},
        {"\u5377\u79ef\u795e\u7ecf\u7f51\u7edc\u6846\u67b6\u7532\u4e59\u4e19\u4e01\u7532",
         "\u5377\u79ef\u795e\u7ecf\u7f51\u7edc\u6846\u67b6\u7532\u4e59\u4e19\u4e01\u4e59",
         "\ud569\uc131\uacf1 \ud504\ub808\uc784\uc6cc\ud06c"}};
    for (int set = 0; set < 2; set++) {
        char json[8192];
        size_t len = (size_t)snprintf(json, sizeof json,
                                      "{\"schema\": \"rooftime.profile/1\", \"kernels\": [");
        for (int k = 0; k < 9; k++)
            len += (size_t)snprintf(
                json + len, sizeof json - len,
                "%s{\"name\": \"k%d\", \"invocations\": 10, \"time\": %g, \"flops\": "
                "{\"tensor\": %g}, \"bytes\": {\"HBM\": %g}, \"tags\": {\"impl\": \"%s\", "
                "\"batch\": \"%d\"}}",
                k ? ", " : "", k, 1e-3 * (1 + k), 3e10 * (1 + k), 1e8 * (1 + k % 4),
                impl[set][k % 3], 1 << (k / 3));
        snprintf(json + len, sizeof json - len, "]}");
        rt_profile *p = profile_from(dir, "alike.json", json);
        rt_analysis *a = rt_analysis_new(m, RT_MODE_SINGLE, &p, 1, NULL, &err);
        assert_non_null(a);
        for (int v = 0; v < RT_VIEW_N; v++)
            for (int fam = 0; fam < 2; fam++) {
                rt_chart_spec spec = {
                    .view = (rt_view)v, .series_by = "impl", .family = fam ? "batch" : "none"};
                char what[64];
                snprintf(what, sizeof what, "%s set=%d family=%d", rt_view_name(spec.view), set,
                         fam);
                check(&spec, a, what);
                check_distinct("legend", what);
                if (!fam) /* with a family the labels are its values, alike across families */
                    check_distinct("labels", what);
            }
        rt_analysis_free(a);
        rt_profile_free(p);
    }
    rt_machine_free(m);
    tu_rmtree(dir);
    free(dir);
}

/* The IDs of a note's list ("C1, C2, C6-C8") into set, up to the first ')' or ';'. */
static size_t parse_ids(const char *s, bool *set, size_t cap)
{
    size_t n = 0;
    while (*s && *s != ')' && *s != ';' && *s != ':') {
        unsigned a, b;
        int used;
        if (sscanf(s, "%*[KC]%u-%*[KC]%u%n", &a, &b, &used) == 2 ||
            (sscanf(s, "%*[KC]%u%n", &a, &used) == 1 && (b = a, true))) {
            for (unsigned i = a; i <= b && i < cap; i++)
                n += !set[i], set[i] = true;
            s += used;
        } else {
            s++;
        }
    }
    return n;
}

/* The note that names the ID labels says which the chart shows: in a cluster where most find no
 * room, "labels ...: the N longest" counts N = those shown + those named as having no room, and
 * every label shown is in its list. */
static void test_id_note(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    rt_machine *m;
    rt_error err;
    assert_int_equal(rt_machine_resolve("v100", &m, &err), 0);
    size_t cap = 1 << 16, len = 0;
    char *json = malloc(cap);
    len += (size_t)snprintf(json + len, cap - len,
                            "{\"schema\": \"rooftime.profile/1\", \"kernels\": [");
    for (int k = 0; k < 40; k++) /* one tight cluster, some far apart */
        len += (size_t)snprintf(json + len, cap - len,
                                "%s{\"name\": \"k%d\", \"invocations\": 10, \"time\": %g, "
                                "\"flops\": {\"tensor\": %g}, \"bytes\": {\"HBM\": %g}, "
                                "\"tags\": {\"n\": \"%d\"}}",
                                k ? ", " : "", k, 1e-3 * (1 + 0.01 * k), 5e10 * (1 + 0.002 * k),
                                k % 10 == 9 ? 1e7 * k : 1e8 * (1 + 0.002 * k), k);
    snprintf(json + len, cap - len, "]}");
    rt_profile *p = profile_from(dir, "cluster.json", json);
    free(json);
    rt_analysis *a = rt_analysis_new(m, RT_MODE_SINGLE, &p, 1, NULL, &err);
    assert_non_null(a);
    for (int v = 0; v < RT_VIEW_N; v++)
        for (int pts = 0; pts < 2; pts++) {
            rt_chart_spec spec = {.view = (rt_view)v,
                                  .max_labels = 16,
                                  .points = pts ? RT_POINTS_KERNELS : RT_POINTS_CONFIGS};
            char what[64], notes[4096] = "";
            snprintf(what, sizeof what, "%s points=%d", rt_view_name(spec.view), pts);
            check(&spec, a, what);
            bool shown[64] = {false}, listed[64] = {false}, lost[64] = {false};
            size_t n_shown = 0;
            for (size_t i = 0; i < n_boxes; i++) {
                unsigned id;
                char c;
                if (!strcmp(boxes[i].group, "labels") &&
                    sscanf(boxes[i].text, "%c%u", &c, &id) == 2 && (c == 'K' || c == 'C') &&
                    id < 64)
                    n_shown += !shown[id], shown[id] = true;
                if (!strcmp(boxes[i].group, "legend"))
                    snprintf(notes + strlen(notes), sizeof notes - strlen(notes), "%s ",
                             boxes[i].text);
            }
            const char *l = strstr(notes, "labels "), *r = strstr(notes, "no room for ");
            if (n_shown == 0 && !l)
                continue;
            if (!l)
                fail_msg("%s: %zu ID labels and no note naming them: %s", what, n_shown, notes);
            size_t n_listed = parse_ids(l + 7, listed, 64),
                   n_lost = r ? parse_ids(r + 12, lost, 64) : 0;
            size_t n_note = 0;
            const char *t = strstr(l, "the ");
            assert_non_null(t);
            assert_int_equal(sscanf(t, "the %zu longest", &n_note), 1);
            if (n_note != n_listed || n_shown + n_lost != n_note)
                fail_msg("%s: the note names %zu (%zu listed), the chart shows %zu and %zu have "
                         "no room: %s",
                         what, n_note, n_listed, n_shown, n_lost, notes);
            for (unsigned i = 0; i < 64; i++)
                if (shown[i] && (!listed[i] || lost[i]))
                    fail_msg("%s: label %u shown, the note says otherwise: %s", what, i, notes);
        }
    rt_analysis_free(a);
    rt_profile_free(p);
    rt_machine_free(m);
    tu_rmtree(dir);
    free(dir);
}

/* Whether a text of the overhead-offchart group contains s. */
static bool offchart_text(const char *s)
{
    for (size_t i = 0; i < n_boxes; i++)
        if (!strcmp(boxes[i].group, "overhead-offchart") && strstr(boxes[i].text, s))
            return true;
    return false;
}

/* A launch-overhead ceiling beyond the roofline's top or bottom edge is an arrow with its label,
 * inside the drawing, and no marker: a filled triangle in the corner (the shape of a series)
 * read as a data point. */
static void test_overhead_offchart(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    rt_machine *m;
    rt_error err;
    assert_int_equal(rt_machine_resolve("v100", &m, &err), 0);
    /* Few launches of much work: W / (n tau) = 1.3e14 / (2 x 4.2 us), far above every roof.
     * Many launches of little work, each far faster than its n tau: the ceiling lies below. */
    static const char *const json[2] = {
        "{\"schema\": \"rooftime.profile/1\", \"tool\": \"t\", \"kernels\": ["
        "{\"name\": \"a\", \"invocations\": 1, \"time\": 2, \"flops\": {\"tensor\": 1e14}, "
        "\"bytes\": {\"HBM\": 1e11}, \"tags\": {\"framework\": \"f1\"}},"
        "{\"name\": \"b\", \"invocations\": 1, \"time\": 1, \"flops\": {\"tensor\": 3e13}, "
        "\"bytes\": {\"HBM\": 3e11}, \"tags\": {\"framework\": \"f2\"}}]}",
        "{\"schema\": \"rooftime.profile/1\", \"tool\": \"t\", \"kernels\": ["
        "{\"name\": \"a\", \"invocations\": 1e7, \"time\": 1e-3, \"flops\": {\"tensor\": "
        "1e12}, \"bytes\": {\"HBM\": 1e10}, \"tags\": {\"framework\": \"f1\"}},"
        "{\"name\": \"b\", \"invocations\": 1e7, \"time\": 2e-3, \"flops\": {\"tensor\": "
        "1e12}, \"bytes\": {\"HBM\": 2e9}, \"tags\": {\"framework\": \"f2\"}}]}"};
    static const char *const where[2] = {"above the chart", "below the chart"};
    for (int k = 0; k < 2; k++) {
        rt_profile *p = profile_from(dir, k ? "below.json" : "above.json", json[k]);
        rt_chart_spec spec = {.series_by = "framework"};
        check_all(m, &p, 1, &spec, where[k]);
        for (int mode = 0; mode < 2; mode++) {
            rt_analysis *a =
                rt_analysis_new(m, mode ? RT_MODE_HIER : RT_MODE_SINGLE, &p, 1, NULL, &err);
            assert_non_null(a);
            for (int size = 0; size < 2; size++) {
                spec = (rt_chart_spec){.view = RT_VIEW_ROOFLINE, .series_by = "framework"};
                if (size)
                    spec.width = 1300, spec.height = 480, spec.text_scale = 1.2;
                check(&spec, a, where[k]);
                if (!offchart_text("launch overhead") || !offchart_text(where[k]))
                    fail_msg("roofline %s: no label '... %s' beside the arrow", where[k], where[k]);
                if (n_offchart_markers)
                    fail_msg("roofline %s: %zu markers stand for the ceiling, as a data point "
                             "would",
                             where[k], n_offchart_markers);
            }
            rt_analysis_free(a);
        }
        rt_profile_free(p);
    }
    rt_machine_free(m);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_view), cmocka_unit_test(test_ceiling_labels),
        cmocka_unit_test(test_legend),     cmocka_unit_test(test_long_alike_names),
        cmocka_unit_test(test_id_note),    cmocka_unit_test(test_overhead_offchart)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
