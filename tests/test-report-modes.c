/* One analysis in another mode, in place (rt_analysis_set_mode), is the analysis made in that mode;
 * the report that draws its hier chart so (rt_report_write_modes) is the report of two analyses,
 * file for file; verdict labels are shared texts (rt_intern). */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/render/report.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"
#include "testutil.h"

/* Configs of several kernels; FLOPs without bytes (partial), no counts (unknown), a unit the
 * machine lacks and a stand-in (warned in hier mode only), a level it lacks. */
static rt_profile *profile(const char *tool)
{
    rt_profile *p = rt_profile_new();
    p->tool = rt_strdup(tool);
    static const char *const unit[] = {"tensor", "fp32", "tensor_bf16", "fp64"};
    for (int i = 0; i < 24; i++) {
        char name[32], batch[8];
        snprintf(name, sizeof name, "kernel_%d", i);
        snprintf(batch, sizeof batch, "%d", 16 << (i % 3));
        rt_kernel *k = rt_profile_add_kernel(p, name);
        k->invocations = 1 + i % 5;
        k->time = 1e-5 * (1 + i % 7);
        if (i % 6 != 5)
            rt_values_set(&k->flops, unit[i % 4], 1e8 * (1 + i));
        if (i % 4 != 3) {
            rt_values_set(&k->bytes, "HBM", 1e6 * (1 + i % 9));
            rt_values_set(&k->bytes, i % 5 ? "L2" : "SMEM", 3e6 * (1 + i % 4));
        }
        rt_tags_set(&k->tags, "op", i % 2 ? "conv" : "matmul");
        rt_tags_set(&k->tags, "batch", batch);
    }
    return p;
}

static void same_verdict(const rt_verdict *x, const rt_verdict *y)
{
    assert_int_equal(x->mode, y->mode);
    assert_string_equal(x->bound_label, y->bound_label);
    assert_int_equal(x->evidence, y->evidence);
    assert_memory_equal(&x->t_bound, &y->t_bound, sizeof x->t_bound);
    assert_memory_equal(&x->efficiency, &y->efficiency, sizeof x->efficiency);
    assert_memory_equal(&x->recoverable, &y->recoverable, sizeof x->recoverable);
    assert_int_equal(x->n_levels, y->n_levels);
    assert_memory_equal(x->q, y->q, 3 * x->n_levels * sizeof *x->q); /* q, ai, t_bw */
}

/* x and y: the same verdicts, warnings and totals. */
static void same_analysis(const rt_analysis *x, const rt_analysis *y)
{
    assert_int_equal(x->mode, y->mode);
    assert_int_equal(x->n_items, y->n_items);
    assert_int_equal(x->n_configs, y->n_configs);
    for (size_t i = 0; i < x->n_items; i++)
        same_verdict(&x->items[i].v, &y->items[i].v);
    for (size_t c = 0; c < x->n_configs; c++) {
        assert_string_equal(x->configs[c].label, y->configs[c].label);
        same_verdict(&x->configs[c].v, &y->configs[c].v);
    }
    assert_int_equal(x->warnings.n, y->warnings.n);
    for (size_t w = 0; w < x->warnings.n; w++)
        assert_string_equal(x->warnings.msg[w], y->warnings.msg[w]);
    double tx[] = {x->total_time,   x->total_W,      x->total_n,  x->time_real,
                   x->time_partial, x->time_unknown, x->tau_mean, x->overhead_ceiling};
    double ty[] = {y->total_time,   y->total_W,      y->total_n,  y->time_real,
                   y->time_partial, y->time_unknown, y->tau_mean, y->overhead_ceiling};
    assert_memory_equal(tx, ty, sizeof tx);
    assert_int_equal(x->own_paths, y->own_paths);
}

/* The V100 preset, two profiles, and their analyses: single, hier, and a third in single mode
 * whose mode the tests change. */
typedef struct fx {
    rt_machine *m;
    rt_profile *ps[2];
    rt_analysis *single, *hier, *a;
} fx;

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    rt_error err;
    if (rt_machine_resolve("v100", &f->m, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    f->ps[0] = profile("one");
    f->ps[1] = profile("two");
    f->single = rt_analysis_new(f->m, RT_MODE_SINGLE, f->ps, 2, NULL, &err);
    f->hier = rt_analysis_new(f->m, RT_MODE_HIER, f->ps, 2, NULL, &err);
    f->a = rt_analysis_new(f->m, RT_MODE_SINGLE, f->ps, 2, NULL, &err);
    *state = f;
    return f->single && f->hier && f->a ? 0 : -1;
}

static int teardown(void **state)
{
    fx *f = *state;
    rt_analysis_free(f->single);
    rt_analysis_free(f->hier);
    rt_analysis_free(f->a);
    rt_profile_free(f->ps[0]);
    rt_profile_free(f->ps[1]);
    rt_machine_free(f->m);
    free(f);
    return 0;
}

static void test_set_mode(void **state)
{
    fx *f = *state;
    rt_error err;
    assert_true(f->hier->warnings.n > f->single->warnings.n); /* the stand-in: hier mode's own */
    assert_int_equal(rt_analysis_set_mode(f->a, RT_MODE_HIER, f->ps, 2, &err), 0);
    same_analysis(f->a, f->hier);
    assert_int_equal(rt_analysis_set_mode(f->a, RT_MODE_SINGLE, f->ps, 2, &err), 0);
    same_analysis(f->a, f->single);
    /* Not its profiles: refused, a unchanged. */
    assert_int_equal(rt_analysis_set_mode(f->a, RT_MODE_HIER, f->ps, 1, &err), -1);
    assert_non_null(strstr(err.msg, "not one of these profiles"));
    assert_int_equal(rt_analysis_set_mode(f->a, RT_MODE_HIER, f->ps + 1, 1, &err), -1);
    same_analysis(f->a, f->single);
}

/* Every file of the two reports, byte for byte (the same names in both: a hier chart each). */
static void same_files(const char *d1, const char *d2)
{
    DIR *d = opendir(d1);
    assert_non_null(d);
    size_t files = 0, hier = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p1[4200], p2[4200];
        snprintf(p1, sizeof p1, "%s/%s", d1, e->d_name);
        snprintf(p2, sizeof p2, "%s/%s", d2, e->d_name);
        size_t n1 = 0, n2 = 0;
        char *x = tu_read_file(p1, &n1), *y = tu_read_file(p2, &n2);
        assert_non_null(x);
        assert_non_null(y);
        assert_int_equal(n1, n2);
        assert_memory_equal(x, y, n1);
        free(x);
        free(y);
        files++;
        hier += strstr(e->d_name, "-roofline-hier.svg") != NULL;
    }
    closedir(d);
    assert_int_equal(files, 1 + 2 * 5); /* the page, and two sections of 5 charts */
    assert_int_equal(hier, 2);
}

static void test_report_modes(void **state)
{
    fx *f = *state;
    rt_error err;
    char *dir = tu_tmpdir(), d1[4096], d2[4096];
    snprintf(d1, sizeof d1, "%s/two", dir);
    snprintf(d2, sizeof d2, "%s/one", dir);
    const char *split[] = {"op"};
    rt_report_opts o = {.series_by = "op", .split_by = split, .n_split_by = 1};
    assert_int_equal(rt_report_write(f->single, f->hier, f->ps, 2, &o, d1, &err), 0);
    assert_int_equal(rt_report_write_modes(f->a, f->ps, 2, &o, d2, &err), 0);
    same_files(d1, d2);
    same_analysis(f->a, f->single); /* as it was */
    /* Profiles not its own: refused. */
    assert_int_equal(rt_report_write_modes(f->a, f->ps, 1, &o, d2, &err), -1);
    same_analysis(f->a, f->single);
    tu_rmtree(dir);
    free(dir);
}

static void test_intern(void **state)
{
    (void)state;
    char a[] = "compute:fp32", b[] = "compute:fp32";
    const char *x = rt_intern(a), *y = rt_intern(b);
    assert_ptr_equal(x, y);
    assert_ptr_not_equal(x, a);
    assert_string_equal(x, "compute:fp32");
    a[0] = 'X'; /* the copy is its own */
    assert_string_equal(rt_intern(b), "compute:fp32");
    /* Many distinct texts: each found again, the set grown past its first size. */
    const char *first[300];
    for (int i = 0; i < 300; i++) {
        char t[32];
        snprintf(t, sizeof t, "bandwidth:L%d", i);
        first[i] = rt_intern(t);
    }
    for (int i = 0; i < 300; i++) {
        char t[32];
        snprintf(t, sizeof t, "bandwidth:L%d", i);
        assert_ptr_equal(rt_intern(t), first[i]);
        assert_string_equal(first[i], t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_mode),
        cmocka_unit_test(test_report_modes),
        cmocka_unit_test(test_intern),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
