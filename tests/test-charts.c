/* Charts and the report on a small hand-made profile: golden SVGs (ROOFTIME_REGEN=1 rewrites
 * them under tests/golden/), filters and families, PNG/PDF outputs, atomic failure, HTML. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/findings-text.h"
#include "rooftime/render/chart.h"
#include "rooftime/render/draw.h"
#include "rooftime/render/report.h"
#include "rooftime/util/error.h"
#include "rooftime-config.h"
#include "testutil.h"

/* A V100-like machine written out here so the goldens do not move with the presets. */
static rt_machine *machine(void)
{
    rt_machine *m = rt_machine_new("test-gpu");
    rt_machine_add_unit(m, "tensor", 100e12);
    rt_machine_add_unit(m, "fp32", 15e12);
    rt_machine_add_level(m, "L1", 14e12);
    rt_machine_add_level(m, "L2", 3e12);
    rt_machine_add_level(m, "HBM", 800e9);
    m->tau = 4e-6;
    rt_machine_set_str(&m->ref_unit, "tensor");
    rt_machine_set_str(&m->ref_level, "HBM");
    return m;
}

static void kernel(rt_profile *p, const char *name, const char *fw, const char *prec,
                   const char *batch, double n, double t, double tensor, double fp32, double hbm)
{
    rt_kernel *k = rt_profile_add_kernel(p, name);
    k->invocations = n;
    k->time = t;
    if (tensor > 0)
        rt_values_set(&k->flops, "tensor", tensor);
    if (fp32 > 0)
        rt_values_set(&k->flops, "fp32", fp32);
    rt_values_set(&k->bytes, "HBM", hbm);
    rt_values_set(&k->bytes, "L2", hbm * 2);
    rt_values_set(&k->bytes, "L1", hbm * 5);
    rt_tags_set(&k->tags, "framework", fw);
    rt_tags_set(&k->tags, "precision", prec);
    rt_tags_set(&k->tags, "batch", batch);
}

/* Two frameworks, two precisions, a batch sweep; a zero-AI kernel and C++ names. */
static rt_profile *profile(void)
{
    rt_profile *p = rt_profile_new();
    static const char *const batches[] = {"16", "32", "64"};
    for (int b = 0; b < 3; b++) {
        double s = 1 << b;
        kernel(p, "void gemm<half, 128>(A&, B&)", "pt", "fp16", batches[b], 5, 90e-6 * s, 4e9 * s,
               2e7 * s, 60e6 * s);
        kernel(p, "nchwToNhwc<__half>", "pt", "fp16", batches[b], 1, 20e-6 * s, 0, 0, 12e6 * s);
        kernel(p, "implicit_convolve_sgemm", "pt", "fp32", batches[b], 4, 150e-6 * s, 0, 4e9 * s,
               90e6 * s);
        kernel(p, "volta_h884gemm", "tf", "fp16", batches[b], 9, 70e-6 * s, 4.2e9 * s, 3e7 * s,
               50e6 * s);
        kernel(p, "Eigen::TensorExecutor<tiny>", "tf", "fp16", batches[b], 30, 40e-6, 0, 1e4, 1e5);
    }
    return p;
}

typedef struct fx {
    rt_machine *m;
    rt_profile *p;
    rt_analysis *single, *hier;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    f->m = machine();
    f->p = profile();
    rt_error err;
    f->single = rt_analysis_new(f->m, RT_MODE_SINGLE, &f->p, 1, NULL, &err);
    f->hier = rt_analysis_new(f->m, RT_MODE_HIER, &f->p, 1, NULL, &err);
    if (!f->single || !f->hier) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    rt_analysis_free(f->single);
    rt_analysis_free(f->hier);
    rt_profile_free(f->p);
    rt_machine_free(f->m);
    free(f);
    return 0;
}

/* Compare with tests/golden/NAME, or rewrite it when ROOFTIME_REGEN=1. */
static void golden(const char *name, const char *got)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/golden/%s", tu_src(), name);
    const char *regen = getenv("ROOFTIME_REGEN");
    if (regen && strcmp(regen, "1") == 0) {
        assert_int_equal(tu_write_file(path, got), 0);
        fprintf(stderr, "regenerated %s\n", path);
        return;
    }
    char *want = tu_read_file(path, NULL);
    if (!want)
        fail_msg("missing golden %s (run with ROOFTIME_REGEN=1 to create it)", path);
    if (strcmp(want, got) != 0) {
        char out[4200];
        snprintf(out, sizeof out, "%s.got", name);
        tu_write_file(out, got);
        fail_msg("%s differs from its golden; wrote %s (ROOFTIME_REGEN=1 accepts it)", path, out);
    }
    free(want);
}

static char *svg(const rt_analysis *a, rt_chart_spec spec)
{
    rt_error err;
    char *s = rt_chart_svg(&spec, a, &err);
    if (!s)
        fail_msg("%s", err.msg);
    return s;
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* The text of the first "<g class=NAME>" group of an SVG (static buffer), or NULL. */
static const char *group(const char *svg, const char *name, size_t *len)
{
    char open[64];
    snprintf(open, sizeof open, "<g class=\"%s\">", name);
    const char *a = strstr(svg, open), *b = a ? strstr(a, "</g>") : NULL;
    if (!a || !b)
        return NULL;
    *len = (size_t)(b - a);
    return a;
}

/* Point labels never overlap each other, and every symbol lies inside the plot border. */
static void check_layout(const char *svg, const char *what)
{
    double px, py, pw, ph;
    const char *border = strstr(svg, "fill=\"none\" stroke=\"#222222\" stroke-width=\"1\"/>");
    assert_non_null(border);
    while (border > svg && strncmp(border, "<rect ", 6) != 0)
        border--;
    assert_int_equal(sscanf(border, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &px,
                            &py, &pw, &ph),
                     4);
    size_t len;
    const char *g = group(svg, "labels", &len);
    double box[64][4];
    size_t n = 0;
    for (const char *t = g; g && (t = strstr(t, "<text x=\"")) && t < g + len && n < 64; t++) {
        double x, y;
        assert_int_equal(sscanf(t, "<text x=\"%lf\" y=\"%lf\"", &x, &y), 2);
        const char *gt = strchr(t, '>'), *end = strstr(gt, "</text>");
        char txt[256];
        size_t m = 0;
        for (const char *q = gt + 1; q < end && m < sizeof txt - 1; q++) {
            static const char *const ent[5][2] = {
                {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}, {"&quot;", "\""}, {"&#39;", "'"}};
            size_t e = 0;
            while (e < 5 && strncmp(q, ent[e][0], strlen(ent[e][0])) != 0)
                e++;
            txt[m++] = e < 5 ? ent[e][1][0] : *q;
            if (e < 5)
                q += strlen(ent[e][0]) - 1;
        }
        txt[m] = '\0';
        double w = rt_text_width_estimate(txt, 10, false);
        double b[4] = {x, y - 9.3, x + w, y + 2.4};
        assert_true(b[0] >= px && b[2] <= px + pw && b[1] >= py && b[3] <= py + ph);
        for (size_t i = 0; i < n; i++)
            if (b[0] < box[i][2] && box[i][0] < b[2] && b[1] < box[i][3] && box[i][1] < b[3])
                fail_msg("%s: label '%s' overlaps another label", what, txt);
        memcpy(box[n++], b, sizeof b);
    }
    static const char *const groups[] = {"points", "time-symbols", "kernels"};
    for (size_t k = 0; k < 3; k++) {
        const char *p = group(svg, groups[k], &len);
        for (const char *c = p; p && (c = strstr(c, "<circle cx=\"")) && c < p + len; c++) {
            double x, y;
            assert_int_equal(sscanf(c, "<circle cx=\"%lf\" cy=\"%lf\"", &x, &y), 2);
            if (!(x > px && x < px + pw && y > py && y < py + ph))
                fail_msg("%s: a symbol at (%g, %g) is outside the plot", what, x, y);
        }
    }
}

static void test_golden_views(void **state)
{
    fx *f = *state;
    static const struct {
        rt_view view;
        int hier;
        const char *file;
    } cases[] = {
        {RT_VIEW_ROOFLINE, 0, "chart-roofline.svg"},
        {RT_VIEW_ROOFLINE, 1, "chart-roofline-hier.svg"},
        {RT_VIEW_COMPLEXITY, 0, "chart-complexity.svg"},
        {RT_VIEW_TIME, 0, "chart-time.svg"},
        {RT_VIEW_4D, 0, "chart-4d.svg"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rt_chart_spec spec = {.view = cases[i].view,
                              .series_by = "framework",
                              .fill_by = "precision",
                              .marker_by = "batch",
                              .title = "test"};
        const rt_analysis *a = cases[i].hier ? f->hier : f->single;
        char *s1 = svg(a, spec), *s2 = svg(a, spec);
        assert_string_equal(s1, s2); /* deterministic */
        check_layout(s1, cases[i].file);
        golden(cases[i].file, s1);
        free(s1);
        free(s2);
    }
}

static void test_content(void **state)
{
    fx *f = *state;
    /* Roofline: kernels named in hover text, escaped; the zero-AI kernel is a note. */
    char *s = svg(f->single, (rt_chart_spec){.view = RT_VIEW_ROOFLINE, .series_by = "framework"});
    assert_non_null(strstr(s, "void gemm&lt;half, 128&gt;(A&amp;, B&amp;)"));
    assert_non_null(strstr(s, "<title>K1 "));
    assert_non_null(strstr(s, "zero-AI kernel"));
    assert_non_null(strstr(s, "tensor 100 TFLOP/s"));
    assert_non_null(strstr(s, "HBM 800 GB/s"));
    assert_non_null(strstr(s, "launch overhead"));
    assert_non_null(strstr(s, "Arithmetic intensity (FLOP/byte)"));
    assert_null(strstr(s, "nan"));
    free(s);
    /* Hier roofline: a point per level, every roof. */
    s = svg(f->hier, (rt_chart_spec){.view = RT_VIEW_ROOFLINE});
    assert_non_null(strstr(s, "fp32 15 TFLOP/s"));
    assert_non_null(strstr(s, "L1 14 TB/s"));
    assert_non_null(strstr(s, "AI at L2"));
    free(s);
    /* 4D: closed and open symbols for every config, solid and dashed trajectories, seconds axes. */
    s = svg(f->single, (rt_chart_spec){.view = RT_VIEW_4D,
                                       .series_by = "framework",
                                       .fill_by = "precision",
                                       .family = "batch"});
    assert_non_null(strstr(s, "Bandwidth time (s)"));
    assert_non_null(strstr(s, "Compute time (s)"));
    assert_non_null(strstr(s, "machine balance 125 FLOP/B"));
    assert_int_equal(count(s, "(open symbol: run time scaled by the peaks)"), 9);
    /* three families (pt fp16, pt fp32, tf fp16), each a solid and a dashed polyline */
    assert_int_equal(count(s, "<polyline"), 6);
    /* three dashed trajectories and the legend's sample */
    assert_int_equal(count(s, "stroke-dasharray=\"7.5,4.5\""), 4);
    assert_non_null(strstr(s, ">64</text>"));
    free(s);
    /* Time plane: one isocurve label per decade and the diagonal. */
    s = svg(f->single, (rt_chart_spec){.view = RT_VIEW_TIME, .family = "none"});
    assert_non_null(strstr(s, ">100 µs</text>"));
    assert_non_null(strstr(s, "compute-bound above"));
    assert_non_null(strstr(s, "overhead region"));
    assert_int_equal(count(s, "<polyline"), 0);
    free(s);
}

static void test_filters(void **state)
{
    fx *f = *state;
    const char *where[] = {"framework=tf"};
    char *s = svg(f->single,
                  (rt_chart_spec){
                      .view = RT_VIEW_COMPLEXITY, .where = where, .n_where = 1, .family = "batch"});
    assert_int_equal(count(s, "<title>"), 3 + count(s, "<title>overhead box"));
    assert_null(strstr(s, "framework=pt"));
    free(s);
    rt_error err;
    const char *bad[] = {"framework"};
    rt_chart_spec spec = {.view = RT_VIEW_4D, .where = bad, .n_where = 1};
    assert_null(rt_chart_svg(&spec, f->single, &err));
    assert_non_null(strstr(err.msg, "expected TAG=VALUE"));
    const char *none[] = {"framework=jax"};
    spec = (rt_chart_spec){.view = RT_VIEW_4D, .where = none, .n_where = 1};
    assert_null(rt_chart_svg(&spec, f->single, &err));
    assert_non_null(strstr(err.msg, "nothing to draw"));
    spec = (rt_chart_spec){.view = RT_VIEW_4D, .family = "stride"};
    assert_null(rt_chart_svg(&spec, f->single, &err));
    assert_non_null(strstr(err.msg, "family 'stride'"));
    assert_non_null(strstr(err.msg, "batch"));
    spec = (rt_chart_spec){.view = RT_VIEW_4D, .series_by = "Framework"};
    assert_null(rt_chart_svg(&spec, f->single, &err));
    assert_non_null(strstr(err.msg, "series tag 'Framework'"));
    rt_view v;
    assert_int_equal(rt_view_parse("4D", &v, NULL), 0);
    assert_int_equal(v, RT_VIEW_4D);
    assert_int_equal(rt_view_parse("pie", &v, NULL), -1);
}

static void test_machine_only(void **state)
{
    fx *f = *state;
    rt_profile *empty = rt_profile_new();
    rt_error err;
    rt_analysis *a = rt_analysis_new(f->m, RT_MODE_HIER, &empty, 1, NULL, &err);
    assert_non_null(a);
    /* The roofline of a machine alone: every ceiling, no overhead ceiling (no launches). */
    char *s = svg(a, (rt_chart_spec){.view = RT_VIEW_ROOFLINE});
    assert_non_null(strstr(s, "tensor 100 TFLOP/s"));
    assert_non_null(strstr(s, "HBM 800 GB/s"));
    assert_null(strstr(s, "launch overhead"));
    assert_null(strstr(s, "<title>"));
    free(s);
    rt_chart_spec spec = {.view = RT_VIEW_COMPLEXITY};
    assert_null(rt_chart_svg(&spec, a, &err));
    assert_non_null(strstr(err.msg, "the profiles hold no kernels"));
    rt_analysis_free(a);
    rt_profile_free(empty);
}

static unsigned be32(const unsigned char *p)
{
    return (unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | p[3];
}

static void test_render_files(void **state)
{
    fx *f = *state;
    char *dir = tu_tmpdir();
    char path[4096];
    rt_error err;
    rt_chart_spec spec = {.view = RT_VIEW_4D, .width = 600, .height = 400};
    snprintf(path, sizeof path, "%s/c.svg", dir);
    assert_int_equal(rt_chart_render(&spec, f->single, path, &err), 0);
    char *s = tu_read_file(path, NULL);
    assert_non_null(strstr(s, "viewBox=\"0 0 600 400\""));
    free(s);
#ifdef RT_HAVE_CAIRO
    size_t len;
    snprintf(path, sizeof path, "%s/c.png", dir);
    assert_int_equal(rt_chart_render(&spec, f->single, path, &err), 0);
    unsigned char *png = (unsigned char *)tu_read_file(path, &len);
    assert_true(len > 1000);
    assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
    assert_memory_equal(png + 12, "IHDR", 4);
    assert_int_equal(be32(png + 16), 1200); /* two pixels a point */
    assert_int_equal(be32(png + 20), 800);
    free(png);
    snprintf(path, sizeof path, "%s/c.pdf", dir);
    assert_int_equal(rt_chart_render(&spec, f->single, path, &err), 0);
    char *pdf = tu_read_file(path, &len);
    assert_memory_equal(pdf, "%PDF-", 5);
    assert_non_null(memmem(pdf, len, "/MediaBox [ 0 0 600 400 ]", 25));
    assert_non_null(memmem(pdf, len, "/FontFile", 9)); /* real text, not outlines */
    free(pdf);
#endif
    /* Unknown extension, unwritable directory, failing chart: an error and no file left. */
    snprintf(path, sizeof path, "%s/c.jpg", dir);
    assert_int_equal(rt_chart_render(&spec, f->single, path, &err), -1);
    assert_non_null(strstr(err.msg, ".svg, .png or .pdf"));
    assert_int_equal(tu_exists(path), 0);
    assert_int_equal(rt_chart_render(&spec, f->single, "/nonexistent-dir/c.svg", &err), -1);
    assert_non_null(strstr(err.msg, "cannot write '/nonexistent-dir/c.svg'"));
    const char *none[] = {"framework=jax"};
    rt_chart_spec bad = {.view = RT_VIEW_TIME, .where = none, .n_where = 1};
    snprintf(path, sizeof path, "%s/bad.svg", dir);
    assert_int_equal(rt_chart_render(&bad, f->single, path, &err), -1);
    assert_int_equal(tu_exists(path), 0);
    char *out = NULL;
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "ls %s", dir);
    tu_run(cmd, &out, NULL);
    assert_null(strstr(out, ".tmp."));
    free(out);
    tu_rmtree(dir);
    free(dir);
}

static void test_report(void **state)
{
    fx *f = *state;
    char *dir = tu_tmpdir();
    char sub[4096], path[4200];
    snprintf(sub, sizeof sub, "%s/out/report", dir); /* made on the way */
    rt_error err;
    const char *split[] = {"precision"};
    rt_findings *fi = rt_findings_new("Findings <b>");
    rt_findings_section_add(fi, "Run & <rest>");
    rt_findings_item(fi, "one <sentence>");
    rt_findings_table(fi, 2, (const char *const[]){"a", "b<"});
    rt_findings_row(fi, (const char *const[]){"1", "x&y"});
    rt_report_opts o = {.title = "T & <U>", .split_by = split, .n_split_by = 1, .findings = fi};
    assert_int_equal(rt_report_write(f->single, f->hier, &f->p, 1, &o, sub, &err), 0);
    snprintf(path, sizeof path, "%s/report.html", sub);
    char *html = tu_read_file(path, NULL);
    assert_non_null(html);
    assert_non_null(strstr(html, "<title>T &amp; &lt;U&gt;</title>"));
    /* The findings structure, escaped by the HTML writer; the text writer prints the same. */
    assert_non_null(strstr(html, "<h2>Findings &lt;b&gt;</h2>\n<h3>Run &amp; &lt;rest&gt;</h3>\n"
                                 "<ul>\n<li>one &lt;sentence&gt;</li>\n</ul>\n"
                                 "<table class=\"findings\"><tr><th>a</th><th>b&lt;</th></tr>\n"
                                 "<tr><td>1</td><td>x&amp;y</td></tr>\n</table>\n"));
    char *text = rt_findings_text(fi);
    assert_string_equal(text, "\n== Run & <rest> ==\n- one <sentence>\na | b<\n1 | x&y\n");
    free(text);
    rt_findings_free(fi);
    assert_null(strstr(html, "gemm<half"));
    assert_non_null(strstr(html, "void gemm&lt;half, 128&gt;(A&amp;, B&amp;)"));
    assert_non_null(strstr(html, "zero-AI kernel"));
    assert_non_null(strstr(html, "overhead-bound"));
    assert_null(strstr(html, "<?xml"));
    /* Self-contained: nothing fetched. */
    assert_null(strstr(html, "src=\"http"));
    assert_null(strstr(html, "href=\"http"));
    assert_null(strstr(html, "<script src"));
    assert_null(strstr(html, "<link"));
    /* Per precision, a chart per view of the table and the hierarchical roofline (five with the
     * four views of today), each also a file. */
    assert_int_equal(count(html, "<svg "), 2 * (RT_VIEW_N + 1));
    static const char *const files[] = {"precision-fp16-4d.svg", "precision-fp32-time.svg",
                                        "precision-fp16-roofline-hier.svg"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", sub, files[i]);
        assert_int_equal(tu_exists(path), 1);
    }
    free(html);
    /* A directory that cannot be made: an error naming it. */
    snprintf(path, sizeof path, "%s/report.html/x", sub);
    o.findings = NULL;
    assert_int_equal(rt_report_write(f->single, f->hier, &f->p, 1, &o, path, &err), -1);
    assert_true(strlen(err.msg) > 0);
    tu_rmtree(dir);
    free(dir);
}

/* The CPU seconds of drawing the 4D chart of n configs whose marker tag differs per config (the
 * fastest of three). */
static double marker_per_config(size_t n)
{
    rt_machine *m = machine();
    rt_profile *p = rt_profile_new();
    char v[32];
    for (size_t i = 0; i < n; i++) {
        snprintf(v, sizeof v, "%zu", i);
        kernel(p, "k", "pt", i % 2 ? "bf16" : "fp32", v, 1, 1e-3, 0, 1e9 * (double)(1 + i % 7),
               1e8);
    }
    rt_error err = {{0}};
    rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
    assert_non_null(a);
    rt_chart_spec spec = {
        .view = RT_VIEW_4D, .series_by = "precision", .marker_by = "batch", .family = "none"};
    double best = 0;
    for (int r = 0; r < 3; r++) {
        clock_t t0 = clock();
        char *s = rt_chart_svg(&spec, a, &err);
        double t = (double)(clock() - t0) / CLOCKS_PER_SEC;
        assert_non_null(s);
        free(s);
        if (r == 0 || t < best)
            best = t;
    }
    rt_analysis_free(a);
    rt_profile_free(p);
    rt_machine_free(m);
    return best;
}

/* A tag with a value per config keeps a chart linear in configs: time(16k)/time(2k) under 20
 * (linear: about 8; a scan of the key's values per point: about 64). */
static void test_key_per_config_linear(void **state)
{
    (void)state;
    double small = marker_per_config(2000), big = marker_per_config(16000);
    double ratio = big / (small > 1e-4 ? small : 1e-4);
    print_message("4D chart, marker per config: %.3f s (2k) %.3f s (16k), ratio %.1f\n", small, big,
                  ratio);
    assert_true(ratio < 20);
}

/* The report's analyses made side by side (rt_analysis_new_modes) are those made one after the
 * other: the same configs and every view drawn the same, byte for byte. */
static void test_modes_side_by_side(void **state)
{
    fx *f = *state;
    rt_mode modes[2] = {RT_MODE_SINGLE, RT_MODE_HIER};
    rt_analysis *an[2] = {NULL, NULL};
    rt_error err;
    assert_int_equal(rt_analysis_new_modes(f->m, modes, 2, &f->p, 1, NULL, an, &err), 0);
    const rt_analysis *one[2] = {f->single, f->hier};
    for (int k = 0; k < 2; k++) {
        assert_non_null(an[k]);
        assert_int_equal(an[k]->mode, modes[k]);
        assert_int_equal(an[k]->n_configs, one[k]->n_configs);
        assert_int_equal(an[k]->n_families, one[k]->n_families);
        for (size_t c = 0; c < one[k]->n_configs; c++)
            assert_string_equal(an[k]->configs[c].label, one[k]->configs[c].label);
        for (int v = 0; v < RT_VIEW_N; v++) {
            rt_chart_spec spec = {.view = (rt_view)v, .series_by = "framework"};
            char *a = rt_chart_svg(&spec, an[k], &err), *b = rt_chart_svg(&spec, one[k], &err);
            assert_non_null(a);
            assert_non_null(b);
            assert_string_equal(a, b);
            free(a);
            free(b);
        }
        rt_analysis_free(an[k]);
    }
    /* A machine that cannot be analyzed against fails every mode, with its message. */
    rt_machine *bad = rt_machine_new("empty");
    assert_int_equal(rt_analysis_new_modes(bad, modes, 2, &f->p, 1, NULL, an, &err), -1);
    assert_null(an[0]);
    assert_null(an[1]);
    assert_true(err.msg[0] != '\0');
    rt_machine_free(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_per_config_linear),
        cmocka_unit_test(test_golden_views),
        cmocka_unit_test(test_content),
        cmocka_unit_test(test_modes_side_by_side),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_render_files),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_machine_only),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
