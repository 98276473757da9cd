/* Verdicts the counts can support: a table of synthetic kernels with the verdict each must get
 * (unknown, partial, lower bounds, device and wall time against the launch overhead), the tau a
 * profile names, configs with count-less members and the share of time with a real verdict. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "study-outliers.h"
#include "rooftime/core/analysis-findings.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/machine-sanity.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/core/hints.h"
#include "rooftime/core/verdict-trust.h"
#include "rooftime/formats/findings-text.h"
#include "rooftime/formats/hints-json.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"
#include "testutil.h"

/* fp32 1 TFLOP/s; DRAM 100 GB/s; tau 10 us, and a framework dispatch of 3 us. */
static rt_machine *toy(void)
{
    rt_machine *m = rt_machine_new("toy");
    rt_machine_add_unit(m, "fp32", 1e12);
    rt_machine_add_level(m, "DRAM", 1e11);
    m->tau = 10e-6;
    m->ref_unit = rt_strdup("fp32");
    m->ref_level = rt_strdup("DRAM");
    rt_machine_add_overhead(m, RT_OVERHEAD_FRAMEWORK, 1, (rt_spread){3e-6, 2.5e-6, 4e-6},
                            "empty op in a loop");
    return m;
}

/* One row of the table: a kernel, the time kind, and the verdict it must get. */
typedef struct row {
    const char *what;
    double n, time, flops, bytes;
    rt_time_kind time_kind;
    rt_bound bound;
    rt_evidence evidence;
    const char *label;
    int warnings;          /* how many */
    const char *warn_text; /* in the first warning, or NULL */
    double max_eff;        /* efficiency at most this (NAN: must be NAN) */
    int lower;             /* tagged counts=lower_bound */
} row;

static const row rows[] = {
    /* No FLOPs, no bytes: a trace of times only. Nothing bounds it. */
    {"no counts", 27, 0.294, 0, 0, RT_TIME_WALL, RT_BOUND_UNKNOWN, RT_EVIDENCE_NONE, "unknown", 0,
     NULL, NAN, 0},
    {"no counts, device", 5, 1e-3, 0, 0, RT_TIME_DEVICE, RT_BOUND_UNKNOWN, RT_EVIDENCE_NONE,
     "unknown", 0, NULL, NAN, 0},
    /* FLOPs, no bytes: a compute bound only, labelled partial, and the missing bytes warned. */
    {"flops only", 1, 1e-3, 1e8, 0, RT_TIME_WALL, RT_BOUND_COMPUTE, RT_EVIDENCE_PARTIAL,
     "compute:ref(fp32) (partial)", 1, "bytes", 1, 0},
    /* Few FLOPs per launch and even fewer: still partial, never overhead. */
    {"flops only, tiny", 100, 1e-3, 1e3, 0, RT_TIME_WALL, RT_BOUND_COMPUTE, RT_EVIDENCE_PARTIAL,
     "compute:ref(fp32) (partial)", 1, "bytes", 1, 0},
    /* Bytes, no FLOPs: a zero-AI kernel, a real bandwidth verdict. */
    {"bytes only", 1, 2e-3, 0, 1e8, RT_TIME_WALL, RT_BOUND_BANDWIDTH, RT_EVIDENCE_FULL,
     "bandwidth:DRAM", 0, NULL, 1, 0},
    /* Device time below n tau: inside the overhead box, efficiency from the roof, no warning. */
    {"device T < n tau", 100, 2e-4, 1e6, 1e4, RT_TIME_DEVICE, RT_BOUND_OVERHEAD, RT_EVIDENCE_FULL,
     "overhead", 0, NULL, 1, 0},
    /* Wall time below n tau: impossible, and the warning names the tau. */
    {"wall T < n tau", 100, 2e-4, 1e6, 1e4, RT_TIME_WALL, RT_BOUND_OVERHEAD, RT_EVIDENCE_FULL,
     "overhead", 1, "tau = 10 µs", INFINITY, 0},
    /* Unknown time kind is read as wall time. */
    {"unknown T < n tau", 100, 2e-4, 1e6, 1e4, RT_TIME_UNKNOWN, RT_BOUND_OVERHEAD, RT_EVIDENCE_FULL,
     "overhead", 1, "launch overhead", INFINITY, 0},
    /* Faster than the compute roof: the warning names the peak. */
    {"above the fp32 peak", 1, 1e-3, 2e9, 1e6, RT_TIME_DEVICE, RT_BOUND_COMPUTE, RT_EVIDENCE_FULL,
     "compute:ref(fp32)", 1, "fp32 peak of machine 'toy' (1000 GFLOP/s)", INFINITY, 0},
    /* Device time inside the overhead box but faster than its roof: the warning names the roof
     * that bounds it (the overhead classifies, it caps nothing), not the overhead. */
    {"device, above the roof in the box", 100, 5e-5, 1e8, 1e4, RT_TIME_DEVICE, RT_BOUND_OVERHEAD,
     RT_EVIDENCE_FULL, "overhead", 1,
     "faster than its compute:ref(fp32) bound): the fp32 peak of machine 'toy'", INFINITY, 0},
    {"device, above DRAM in the box", 100, 5e-5, 1e3, 1e7, RT_TIME_DEVICE, RT_BOUND_OVERHEAD,
     RT_EVIDENCE_FULL, "overhead", 1,
     "faster than its bandwidth:DRAM bound): the DRAM bandwidth of machine 'toy'", INFINITY, 0},
    /* Faster than the bandwidth roof: the warning names the level. */
    {"above DRAM", 1, 1e-3, 1e3, 1e9, RT_TIME_WALL, RT_BOUND_BANDWIDTH, RT_EVIDENCE_FULL,
     "bandwidth:DRAM", 1, "DRAM bandwidth of machine 'toy' (100 GB/s)", INFINITY, 0},
    /* Counts that are lower bounds (counts=lower_bound): the bound holds (efficiency 0.5 here),
     * the verdict is partial, labelled so, never zero-AI, and nothing is warned. */
    {"bytes only, lower bound", 1, 2e-3, 0, 1e8, RT_TIME_DEVICE, RT_BOUND_BANDWIDTH,
     RT_EVIDENCE_PARTIAL, "bandwidth:DRAM (lower bound)", 0, NULL, 0.5 + 1e-9, 1},
    /* inside the overhead box by its counts, which may be too few: never called overhead */
    {"in the box, lower bound", 100, 2e-4, 1e6, 1e4, RT_TIME_DEVICE, RT_BOUND_COMPUTE,
     RT_EVIDENCE_PARTIAL, "compute:ref(fp32) (lower bound)", 0, NULL, 1, 1},
};

static void test_verdict_table(void **state)
{
    (void)state;
    rt_machine *m = toy();
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        const row *x = &rows[r];
        rt_kernel k;
        rt_kernel_init(&k, x->what);
        k.invocations = x->n;
        k.time = x->time;
        if (x->flops > 0)
            rt_values_set(&k.flops, "fp32", x->flops);
        if (x->bytes > 0)
            rt_values_set(&k.bytes, "DRAM", x->bytes);
        if (x->lower)
            rt_tags_set(&k.tags, RT_TAG_COUNTS, RT_COUNTS_LOWER_BOUND);
        rt_verdict_ctx ctx = {.mode = RT_MODE_SINGLE, .time = x->time_kind, .tau = m->tau};
        rt_warnings w = {0};
        rt_verdict v;
        rt_verdict_compute_in(m, &ctx, &k, x->what, &v, &w);
        print_message("%s: %s, efficiency %g, %zu warnings%s%s\n", x->what, v.bound_label,
                      v.efficiency, w.n, w.n ? ": " : "", w.n ? w.msg[0] : "");
        assert_int_equal(v.bound, x->bound);
        assert_int_equal(v.evidence, x->evidence);
        assert_int_equal(v.lower_bound, x->lower);
        assert_string_equal(v.bound_label, x->label);
        assert_int_equal(w.n, x->warnings);
        if (x->warn_text)
            assert_non_null(strstr(w.msg[0], x->warn_text));
        if (isnan(x->max_eff))
            assert_true(isnan(v.efficiency));
        else if (isfinite(x->max_eff))
            assert_true(v.efficiency <= x->max_eff);
        else
            assert_true(v.efficiency > 1);
        /* Only a full verdict may say overhead-bound or zero-AI. */
        if (x->evidence != RT_EVIDENCE_FULL)
            assert_false(v.overhead_bound || v.zero_ai);
        assert_int_equal(rt_verdict_is_real(&v), x->evidence == RT_EVIDENCE_FULL);
        rt_verdict_release(&v);
        rt_warnings_release(&w);
        rt_kernel_release(&k);
    }
    rt_machine_free(m);
}

static rt_kernel *add(rt_profile *p, const char *name, double n, double t, double flops,
                      double bytes, const char *op)
{
    rt_kernel *k = rt_profile_add_kernel(p, name);
    k->invocations = n;
    k->time = t;
    if (flops > 0)
        rt_values_set(&k->flops, "fp32", flops);
    if (bytes > 0)
        rt_values_set(&k->bytes, "DRAM", bytes);
    rt_tags_set(&k->tags, "op", op);
    return k;
}

/* A profile that names the framework dispatch pays 3 us per launch, not the machine's 10 us; a
 * name the machine lacks falls back to its tau with one warning. */
static void test_profile_names_its_tau(void **state)
{
    (void)state;
    rt_machine *m = toy();
    rt_profile *p = rt_profile_new();
    p->time_kind = RT_TIME_WALL;
    p->overhead = rt_strdup(RT_OVERHEAD_FRAMEWORK);
    /* 100 launches of 1e6 FLOPs and 1e4 bytes in 500 us: 300 us of dispatch, 1 us of work. */
    add(p, "aten::add", 100, 5e-4, 1e6, 1e4, "add");
    rt_error err;
    rt_analysis *a = rt_analysis_new(m, RT_MODE_SINGLE, &p, 1, NULL, &err);
    assert_non_null(a);
    assert_close(a->items[0].v.t_oh, 3e-4, 1e-12);
    assert_string_equal(a->items[0].v.bound_label, "overhead");
    assert_close(a->items[0].v.efficiency, 0.6, 1e-9);
    assert_int_equal(a->warnings.n, 0);
    assert_close(a->tau_mean, 3e-6, 1e-12);
    rt_analysis_free(a);

    rt_machine_set_str(&p->overhead, "some_runtime");
    a = rt_analysis_new(m, RT_MODE_SINGLE, &p, 1, NULL, &err);
    assert_non_null(a);
    assert_close(a->items[0].v.t_oh, 1e-3, 1e-12);
    assert_int_equal(a->warnings.n, 2); /* the missing overhead, then efficiency above 1 */
    assert_non_null(strstr(a->warnings.msg[0], "'some_runtime'"));
    assert_non_null(strstr(a->warnings.msg[1], "above 1"));
    rt_analysis_free(a);
    rt_profile_free(p);
    rt_machine_free(m);
}

/* A config with a member that has no counts keeps its sum's bounds but not its class; the shares
 * of time by evidence add up. */
static void test_configs_and_shares(void **state)
{
    (void)state;
    rt_machine *m = toy();
    rt_profile *p = rt_profile_new();
    p->time_kind = RT_TIME_WALL;
    add(p, "gemm", 1, 4e-3, 2e9, 1e7, "mm");              /* real: compute */
    add(p, "convolution_backward", 27, 2e-3, 0, 0, "mm"); /* no counts */
    add(p, "add", 1, 1e-3, 1e6, 0, "add");                /* FLOPs only */
    add(p, "copy", 1, 3e-3, 0, 1e8, "copy");              /* bytes only */
    rt_error err;
    rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
    assert_non_null(a);
    assert_close(a->time_real, 7e-3, 1e-12);
    assert_close(a->time_unknown, 2e-3, 1e-12);
    assert_close(a->time_partial, 1e-3, 1e-12);
    for (size_t c = 0; c < a->n_configs; c++) {
        const rt_config *cf = &a->configs[c];
        const char *op = rt_tags_get(&cf->tags, "op");
        if (strcmp(op, "mm") == 0) {
            assert_int_equal(cf->v.evidence, RT_EVIDENCE_PARTIAL);
            assert_string_equal(cf->v.bound_label, "compute:fp32 (partial)");
            assert_false(rt_verdict_is_real(&cf->v));
            /* the 2 ms of the count-less member are not called recoverable */
            assert_true(cf->v.recoverable <= 4e-3 - cf->v.t_compute + 1e-15);
        } else if (strcmp(op, "copy") == 0) {
            assert_true(rt_verdict_is_real(&cf->v));
            assert_true(cf->v.zero_ai);
        }
    }
    /* No count-less kernel is zero-AI or overhead-bound. */
    for (size_t i = 0; i < a->n_items; i++)
        if (a->items[i].v.evidence == RT_EVIDENCE_NONE)
            assert_false(a->items[i].v.zero_ai || a->items[i].v.overhead_bound);
    /* The summary's real share is the full verdicts' (7 of 10 ms); the partial one is named apart.
     */
    rt_verdict_hints h;
    assert_int_equal(rt_verdict_hints_load(NULL, &h, &err), 0);
    rt_findings *f = rt_analysis_summary(a, &h);
    char *t = rt_findings_text(f);
    assert_non_null(strstr(t, "70.0% of the time has a real verdict; 1 kernel (2 ms) records no"));
    assert_non_null(strstr(t, "1 kernel (1 ms, 10.0%) record FLOPs but no bytes"));
    free(t);
    rt_findings_free(f);
    rt_verdict_hints_release(&h);
    rt_analysis_free(a);
    rt_profile_free(p);
    rt_machine_free(m);
}

/* On device time a kernel inside the overhead box that beats its roof beat the roof: the trust
 * check names that ceiling (fp32 here), never the launch overhead, which caps nothing there. */
static void test_trust_device_time_in_the_box(void **state)
{
    (void)state;
    rt_machine *m = toy();
    rt_profile *p = rt_profile_new();
    p->time_kind = RT_TIME_DEVICE;
    /* 100 launches x 10 us = 1 ms of overhead; 0.1 ms of compute; it took 50 us */
    add(p, "small_gemm", 100, 5e-5, 1e8, 1e4, "mm");
    rt_error err;
    rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
    assert_non_null(a);
    assert_int_equal(a->items[0].v.bound, RT_BOUND_OVERHEAD);
    assert_int_equal(rt_verdict_binding(&a->items[0].v), RT_BOUND_COMPUTE);
    rt_trust t;
    assert_true(rt_trust_check(a, &t));
    assert_int_equal(t.kernels_above, 1);
    assert_string_equal(t.worst.name, "fp32");
    char *line = rt_trust_line(a);
    assert_non_null(line);
    print_message("%s\n", line);
    assert_null(strstr(line, "launch overhead"));
    free(line);
    rt_analysis_free(a);
    rt_profile_free(p);
    rt_machine_free(m);
}

/* The time kind and the overhead name survive the profile's own check and equality. */
static void test_time_kind_names(void **state)
{
    (void)state;
    rt_time_kind t;
    rt_error err;
    assert_int_equal(rt_time_kind_parse("device", &t, &err), 0);
    assert_int_equal(t, RT_TIME_DEVICE);
    assert_int_equal(rt_time_kind_parse("wall", &t, &err), 0);
    assert_int_equal(t, RT_TIME_WALL);
    assert_int_equal(rt_time_kind_parse("cpu", &t, &err), -1);
    assert_non_null(strstr(err.msg, "device or wall"));
    assert_string_equal(rt_time_kind_name(RT_TIME_UNKNOWN), "unknown");
    rt_profile *a = rt_profile_new(), *b = rt_profile_new();
    a->time_kind = RT_TIME_DEVICE;
    assert_false(rt_profile_equal(a, b, &err));
    assert_non_null(strstr(err.msg, "time kind"));
    b->time_kind = RT_TIME_DEVICE;
    b->overhead = rt_strdup(RT_OVERHEAD_ONEDNN);
    assert_false(rt_profile_equal(a, b, &err));
    assert_non_null(strstr(err.msg, "overhead"));
    rt_profile_free(a);
    rt_profile_free(b);
}

/* The sanity rules: each broken one named once, a sound machine passes. */
static void test_machine_sanity(void **state)
{
    (void)state;
    rt_machine *m = toy();
    rt_warnings w = {0};
    assert_int_equal(rt_machine_sanity(m, &w), 0);
    rt_machine_add_level(m, "L3", 8e9);     /* slower than DRAM above it: fine */
    rt_machine_add_level(m, "DRAM2", 16e9); /* faster than L3 above it: broken */
    m->units[0].theoretical = 2.27e12;      /* 1 TFLOP/s is 44% of it */
    m->units[0].min = 0.5e12;
    m->units[0].max = 1.2e12; /* 70% spread */
    m->timed_runs = 100;
    m->disturbed_runs = 60;
    assert_int_equal(rt_machine_sanity(m, &w), 4);
    assert_non_null(strstr(w.msg[0], "level L3 (8 GB/s) is slower than DRAM2 (16 GB/s)"));
    assert_non_null(strstr(w.msg[1], "unit fp32: 1000 GFLOP/s is 44% of its theoretical"));
    assert_non_null(strstr(w.msg[2], "unit fp32: its attempts spread"));
    assert_non_null(strstr(w.msg[3], "60 of 100 timed runs"));
    rt_warnings_release(&w);
    rt_machine_free(m);
}

/* The study's outliers: at one shape, bf16 6000x slower than fp32 of the same implementation is
 * called out twice (largest ratio, narrower precision slower); another shape within x20 is not. */
static void test_study_outliers(void **state)
{
    (void)state;
    rt_machine *m = toy();
    rt_profile *ps[4];
    const char *impl[] = {"onednn", "onednn", "onednn", "onednn"};
    const char *prec[] = {"fp32", "bf16", "fp32", "bf16"};
    const char *batch[] = {"16", "16", "32", "32"};
    const double t[] = {1e-4, 0.6, 2e-4, 1.5e-4};
    for (int i = 0; i < 4; i++) {
        ps[i] = rt_profile_new();
        rt_tags_set(&ps[i]->tags, "implementation", impl[i]);
        rt_tags_set(&ps[i]->tags, "precision", prec[i]);
        rt_tags_set(&ps[i]->tags, "operation", "lstm");
        rt_tags_set(&ps[i]->tags, "pass", "backward");
        rt_kernel *k = add(ps[i], "lstm_bwd", 1, t[i], 1e6, 1e6, "lstm");
        rt_tags_set(&k->tags, "batch", batch[i]);
    }
    rt_error err;
    rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, ps, 4, NULL, &err);
    assert_non_null(a);
    rt_findings *f = rt_findings_new("Findings");
    rt_study_section_outliers(f, a);
    assert_int_equal(f->n_sections, 1);
    const rt_findings_block *b = &f->sections[0].blocks[0];
    assert_int_equal(b->n_rows, 2);
    print_message("%s\n%s\n", rt_findings_cell(b, 0, 0), rt_findings_cell(b, 1, 0));
    assert_non_null(strstr(rt_findings_cell(b, 0, 0), "batch=16"));
    assert_non_null(
        strstr(rt_findings_cell(b, 0, 0), "onednn bf16 takes x6000 the time of onednn fp32"));
    assert_non_null(strstr(rt_findings_cell(b, 1, 0), "narrower precision slower"));
    assert_null(strstr(rt_findings_cell(b, 1, 0), "batch=32"));
    rt_findings_free(f);
    rt_analysis_free(a);
    for (int i = 0; i < 4; i++)
        rt_profile_free(ps[i]);
    rt_machine_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdict_table),
        cmocka_unit_test(test_profile_names_its_tau),
        cmocka_unit_test(test_configs_and_shares),
        cmocka_unit_test(test_trust_device_time_in_the_box),
        cmocka_unit_test(test_time_kind_names),
        cmocka_unit_test(test_machine_sanity),
        cmocka_unit_test(test_study_outliers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
