/* The overhead a kernel's calls pay on their path (core/overhead-path.c): the floor under a wall
 * time per kernel (a parallel region at its thread count, a primitive execute, nothing), while the
 * overhead box keeps the implementation's tau; --tau sets one tau for all again; the trust check
 * allows each overhead its measured spread; profiles keep the overhead through both readers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/overhead-path.h"
#include "rooftime/core/profile.h"
#include "rooftime/core/verdict-trust.h"
#include "rooftime/formats/analysis-format.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"
#include "testutil.h"

/* fp32 1 TFLOP/s, DRAM 100 GB/s, tau 10 us; fork/join of 1 and 2 threads, a framework dispatch,
 * a oneDNN primitive execute (threads do not apply), each with the spread of its trials. */
static rt_machine *toy(void)
{
    rt_machine *m = rt_machine_new("toy");
    rt_machine_add_unit(m, "fp32", 1e12);
    rt_machine_add_level(m, "DRAM", 1e11);
    m->tau = 10e-6;
    m->ref_unit = rt_strdup("fp32");
    m->ref_level = rt_strdup("DRAM");
    rt_machine_add_overhead(m, RT_OVERHEAD_OPENMP, 1, (rt_spread){0.3e-6, 0.28e-6, 0.35e-6}, NULL);
    rt_machine_add_overhead(m, RT_OVERHEAD_OPENMP, 2, (rt_spread){0.8e-6, 0.75e-6, 0.9e-6}, NULL);
    rt_machine_add_overhead(m, RT_OVERHEAD_FRAMEWORK, 1, (rt_spread){3e-6, 2.5e-6, 4e-6}, NULL);
    rt_machine_add_overhead(m, RT_OVERHEAD_ONEDNN, 0, (rt_spread){1.2e-6, 1e-6, 1.5e-6}, NULL);
    return m;
}

/* A kernel of 1000 FLOPs and bytes per call (a roof of 10 ns a call), paying overhead `oh` at
 * `threads` (NULL: the profile's). */
static void add(rt_profile *p, const char *name, double n, double per_call, const char *oh,
                int threads)
{
    rt_kernel *k = rt_profile_add_kernel(p, name);
    k->invocations = n;
    k->time = n * per_call;
    rt_values_set(&k->flops, "fp32", 1e3 * n);
    rt_values_set(&k->bytes, "DRAM", 1e3 * n);
    if (oh)
        rt_kernel_set_overhead(k, oh, threads);
}

static const rt_verdict *verdict_of(const rt_analysis *a, const char *name)
{
    for (size_t i = 0; i < a->n_items; i++)
        if (strcmp(a->items[i].kernel->name, name) == 0)
            return &a->items[i].v;
    fail_msg("no kernel '%s'", name);
    return NULL;
}

static const char *label(const rt_verdict *v)
{
    static char buf[96];
    return rt_verdict_paid_label(v, buf, sizeof buf);
}

static bool warned(const rt_analysis *a, const char *s)
{
    for (size_t i = 0; i < a->warnings.n; i++)
        if (strstr(a->warnings.msg[i], s))
            return true;
    return false;
}

/* A study's profile: the implementation's tau is the 2-thread fork/join (the box), and each
 * kernel's calls pay what their path holds. */
static rt_profile *study_like(void)
{
    rt_profile *p = rt_profile_new();
    p->time_kind = RT_TIME_WALL;
    p->overhead = rt_strdup(RT_OVERHEAD_OPENMP);
    add(p, "loop", 100, 0.2e-6, RT_OVERHEAD_NONE, 0);      /* a plain call, faster than tau */
    add(p, "region1", 100, 0.5e-6, RT_OVERHEAD_OPENMP, 1); /* a region of one thread */
    add(p, "region8", 100, 1.0e-6, RT_OVERHEAD_OPENMP, 8); /* 8 threads, 2 measured */
    add(p, "primitive", 100, 2e-6, RT_OVERHEAD_ONEDNN, 4); /* threads do not apply */
    add(p, "enqueue", 100, 1e-6, RT_OVERHEAD_OPENCL, 0);   /* not measured on this machine */
    add(p, "implementation", 100, 1.0e-6, NULL, 0);        /* the profile's */
    return p;
}

static void test_paths(void **state)
{
    (void)state;
    rt_machine *m = toy();
    rt_profile *p = study_like();
    rt_error err;
    rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
    assert_non_null(a);
    assert_true(a->own_paths);

    /* Inside the box of the implementation's tau (100 x 0.8 us), but its calls pay nothing: the
     * floor is its roof, which it does not beat, and nothing is warned about it. */
    const rt_verdict *v = verdict_of(a, "loop");
    assert_int_equal(v->bound, RT_BOUND_OVERHEAD);
    assert_true(v->overhead_bound);
    assert_close(v->t_oh, 100 * 0.8e-6, 1e-12);
    assert_true(v->t_paid == 0);
    assert_close(v->t_bound, v->t_roof, 1e-12);
    assert_true(v->efficiency <= 1);
    assert_int_not_equal(rt_verdict_binding(v), RT_BOUND_OVERHEAD);
    assert_string_equal(label(v), "none");
    assert_false(warned(a, "kernel 'loop'"));

    /* A region of one thread: its fork/join is the floor (its fastest trial), and it binds. */
    v = verdict_of(a, "region1");
    assert_close(v->t_paid, 100 * 0.28e-6, 1e-12);
    assert_close(v->t_bound, v->t_paid, 1e-12);
    assert_close(v->efficiency, 0.56, 1e-9);
    assert_int_equal(rt_verdict_binding(v), RT_BOUND_OVERHEAD);
    assert_string_equal(label(v), "openmp_fork_join(1 thread)");

    /* Eight threads on a machine that measured two: the two-thread region, a lower bound. */
    v = verdict_of(a, "region8");
    assert_close(v->t_paid, 100 * 0.75e-6, 1e-12);
    assert_string_equal(label(v), "openmp_fork_join(2 threads)");

    v = verdict_of(a, "primitive");
    assert_close(v->t_paid, 100 * 1e-6, 1e-12);
    assert_string_equal(label(v), "onednn_primitive");

    /* An overhead the machine has not measured: no floor, and one warning naming it. */
    v = verdict_of(a, "enqueue");
    assert_true(v->t_paid == 0);
    assert_string_equal(label(v), "opencl_enqueue (not measured)");
    assert_true(warned(a, "pays the overhead 'opencl_enqueue'"));

    /* No path of its own: the implementation's tau (its median), the floor and the box alike, as
     * before. */
    v = verdict_of(a, "implementation");
    assert_true(v->t_paid == v->t_oh);
    assert_close(v->t_paid, 100 * 0.8e-6, 1e-12);
    assert_string_equal(label(v), RT_OVERHEAD_OPENMP);

    /* One config of them all: the members' floors summed, their paths mixed. */
    assert_int_equal(a->n_configs, 1);
    const rt_verdict *c = &a->configs[0].v;
    double sum = 0;
    for (size_t i = 0; i < a->n_items; i++)
        sum += a->items[i].v.t_paid;
    assert_close(c->t_paid, sum, 1e-9);
    assert_string_equal(label(c), "mixed");

    /* The tables say which overhead each row pays. */
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_int_equal(rt_analysis_write_text(a, 0, fp), 0);
    fclose(fp);
    assert_non_null(strstr(buf, "overhead paid"));
    assert_non_null(strstr(buf, "openmp_fork_join(1 thread)"));
    assert_non_null(strstr(buf, "recover  overhead paid"));
    assert_non_null(strstr(buf, "n x the overhead paid is a floor"));
    free(buf);
    for (int f = 0; f < 2; f++) {
        buf = NULL;
        fp = open_memstream(&buf, &len);
        assert_int_equal(rt_analysis_write(a, f ? RT_FORMAT_JSON : RT_FORMAT_CSV, fp, NULL, &err),
                         0);
        fclose(fp);
        assert_non_null(strstr(buf, f ? "\"overhead_paid\": \"none\"" : "overhead_paid"));
        assert_non_null(strstr(buf, f ? "\"t_overhead_paid\"" : "t_overhead_paid_s"));
        free(buf);
    }
    rt_analysis_free(a);
    rt_profile_free(p);
    rt_machine_free(m);
}

/* --tau (rt_profile_set_overhead): the paper's one tau per implementation for every kernel, the
 * kernels' own overheads set aside, and the tables as they were. */
static void test_tau_sets_one_for_all(void **state)
{
    (void)state;
    rt_machine *m = toy();
    rt_profile *p = study_like();
    rt_profile_set_overhead(p, RT_OVERHEAD_FRAMEWORK);
    for (size_t i = 0; i < p->n_kernels; i++)
        assert_null(p->kernels[i].overhead);
    rt_error err;
    rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
    assert_non_null(a);
    assert_false(a->own_paths);
    for (size_t i = 0; i < a->n_items; i++) {
        const rt_verdict *v = &a->items[i].v;
        assert_close(v->t_oh, 100 * 3e-6, 1e-12);
        assert_true(v->t_paid == v->t_oh);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_int_equal(rt_analysis_write_text(a, 0, fp), 0);
    fclose(fp);
    assert_null(strstr(buf, "recover  overhead paid")); /* no column */
    assert_null(strstr(buf, "n x the overhead paid"));
    free(buf);
    rt_analysis_free(a);
    rt_profile_free(p);
    rt_machine_free(m);
}

/* A kernel faster than the overhead it pays (its fastest trial, 2.5 us) is suspect only beyond
 * that overhead's measured spread ((max - min) / median: 50% for the dispatch here), and the line
 * names it. */
static void test_trust_spread(void **state)
{
    (void)state;
    rt_machine *m = toy();
    static const double per_call[2] = {2e-6, 1.5e-6}; /* efficiency 1.25, 1.67 */
    for (int k = 0; k < 2; k++) {
        rt_profile *p = rt_profile_new();
        p->time_kind = RT_TIME_WALL;
        p->overhead = rt_strdup(RT_OVERHEAD_FRAMEWORK);
        add(p, "op", 1000, per_call[k], RT_OVERHEAD_FRAMEWORK, 0);
        add(p, "nested", 1000, 0.1e-6, RT_OVERHEAD_NONE, 0);
        rt_error err;
        rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
        assert_non_null(a);
        rt_trust t;
        int suspect = rt_trust_check(a, &t);
        assert_int_equal(suspect, k);
        if (k) {
            assert_int_equal(t.kernels_above, 1);
            char *line = rt_trust_line(a);
            assert_non_null(line);
            print_message("%s\n", line);
            assert_non_null(strstr(line, "(calls x framework_dispatch) by more than 50%"));
            free(line);
        }
        rt_analysis_free(a);
        rt_profile_free(p);
    }
    rt_machine_free(m);
}

/* Accumulating calls: an empty kernel takes the other's overhead; calls that pay different ones
 * pay none together (no one overhead bounds them all). */
static void test_accumulate(void **state)
{
    (void)state;
    rt_kernel a, b, c;
    rt_kernel_init(&a, "k");
    rt_kernel_init(&b, "k");
    rt_kernel_init(&c, "k");
    b.invocations = c.invocations = 1;
    rt_kernel_set_overhead(&b, RT_OVERHEAD_OPENMP, 2);
    rt_kernel_set_overhead(&c, RT_OVERHEAD_ONEDNN, 0);
    rt_kernel_accumulate(&a, &b);
    assert_string_equal(a.overhead, RT_OVERHEAD_OPENMP);
    assert_int_equal(a.overhead_threads, 2);
    rt_kernel_accumulate(&a, &b);
    assert_string_equal(a.overhead, RT_OVERHEAD_OPENMP);
    rt_kernel_accumulate(&a, &c);
    assert_string_equal(a.overhead, RT_OVERHEAD_NONE);
    assert_int_equal(a.overhead_threads, 0);
    rt_kernel_release(&a);
    rt_kernel_release(&b);
    rt_kernel_release(&c);
}

/* Saved and loaded, by the fast reader and by jansson's (an unknown member sends the text
 * there): the same profile; a bad overhead names its field. */
static void test_json(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/p.json", dir);
    rt_profile *p = study_like();
    rt_error err;
    assert_int_equal(rt_profile_save(p, path, &err), 0);
    size_t len;
    char *text = tu_read_file(path, &len);
    assert_non_null(
        strstr(text, "\"overhead\": \"openmp_fork_join\",\n      \"overhead_threads\": 8"));
    for (int slow = 0; slow < 2; slow++) {
        if (slow) { /* an unknown top-level member: the fast reader gives up */
            char *t2 = rt_asprintf("{\"x-other-tool\": 1,%s", text + 1);
            assert_int_equal(tu_write_file(path, t2), 0);
            free(t2);
        }
        rt_profile *q;
        if (rt_profile_load(path, &q, &err) != 0)
            fail_msg("%s", err.msg);
        free(q->unknown_json); /* the other tool's member */
        q->unknown_json = NULL;
        rt_error why;
        if (!rt_profile_equal(p, q, &why))
            fail_msg("reader %d: %s", slow, why.msg);
        rt_profile_free(q);
    }
    free(text);
    static const struct {
        const char *kernel, *error;
    } bad[] = {
        {"\"overhead\": \"\"", "field 'kernels[0].overhead': kernel 'k': overhead is empty"},
        {"\"overhead_threads\": 2", "field 'kernels[0].overhead_threads': kernel 'k': "
                                    "overhead_threads needs an overhead beside it"},
        {"\"overhead\": \"openmp_fork_join\", \"overhead_threads\": 1.5",
         "overhead_threads is not a whole number"},
        {"\"overhead\": 3", "overhead"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *json = rt_asprintf("{\"schema\": \"rooftime.profile/1\", \"kernels\": [{\"name\": "
                                 "\"k\", \"invocations\": 1, \"time\": 1, %s}]}",
                                 bad[i].kernel);
        assert_int_equal(tu_write_file(path, json), 0);
        free(json);
        rt_profile *q = NULL;
        assert_int_not_equal(rt_profile_load(path, &q, &err), 0);
        assert_null(q);
        if (!strstr(err.msg, bad[i].error) || !strstr(err.msg, "p.json"))
            fail_msg("'%s': %s", bad[i].kernel, err.msg);
    }
    rt_profile_free(p);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths), cmocka_unit_test(test_tau_sets_one_for_all),
        cmocka_unit_test(test_trust_spread), cmocka_unit_test(test_accumulate),
        cmocka_unit_test(test_json)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
