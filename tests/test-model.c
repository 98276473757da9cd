/* The model: the paper's V100 numbers, every bound class in both modes, time-plane coordinates,
 * grouping. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"
#include "testutil.h"

/* A machine with round numbers: fp32 1 TFLOP/s, fp16 4 TFLOP/s; L1 4 TB/s, DRAM 100 GB/s; tau 10
 * us. */
static rt_machine *toy(void)
{
    rt_machine *m = rt_machine_new("toy");
    rt_machine_add_unit(m, "fp32", 1e12);
    rt_machine_add_unit(m, "fp16", 4e12);
    rt_machine_add_level(m, "L1", 4e12);
    rt_machine_add_level(m, "DRAM", 1e11);
    m->tau = 10e-6;
    m->ref_unit = rt_strdup("fp32");
    m->ref_level = rt_strdup("DRAM");
    return m;
}

static void test_v100_paper_numbers(void **state)
{
    (void)state;
    rt_machine *m;
    rt_error err;
    assert_int_equal(rt_machine_resolve("v100", &m, &err), 0);
    /* 80 x 8 x 1.312 GHz x 4^3 x 2, and rt_machine_check verified the derivation on load. */
    assert_close(rt_machine_unit(m, "tensor")->flops, 107.479e12, 1e-5);
    assert_close(rt_machine_balance(m), 129.68, 1e-4);
    assert_close(m->tau, 4.2e-6, 1e-12);
    /* The paper rounds the Tensor Core peak to 1.06e14 for its LSTM threshold: 0.4452 GFLOP. */
    assert_close(rt_machine_overhead_flops(m, "tensor") * 1.06e14 /
                     rt_machine_unit(m, "tensor")->flops,
                 0.4452e9, 1e-4);
    /* With the unrounded peak the threshold is 0.4514 GFLOP. */
    assert_close(rt_machine_overhead_flops(m, NULL), 0.45141e9, 1e-4);
    rt_machine_free(m);
}

static void test_derivation_mismatch_is_an_error(void **state)
{
    (void)state;
    rt_machine *m;
    rt_error err;
    assert_int_equal(rt_machine_resolve("v100", &m, &err), 0);
    rt_values_set(&m->units[0].derivation, "sms", 84);
    assert_int_equal(rt_machine_check(m, &err), -1);
    assert_non_null(strstr(err.msg, "derivation"));
    rt_machine_free(m);
}

static void verdict(const rt_machine *m, rt_mode mode, const rt_kernel *k, rt_verdict *v,
                    rt_warnings *w)
{
    rt_verdict_compute(m, mode, k, "kernel 'k'", v, w);
}

static void test_bound_classes_single(void **state)
{
    (void)state;
    rt_machine *m = toy();
    rt_warnings w = {0};
    rt_verdict v;
    rt_kernel k;

    /* Compute-bound: 2e9 FLOPs (2 ms at 1 TFLOP/s), 1e7 DRAM bytes (0.1 ms), 1 launch, 4 ms. */
    rt_kernel_init(&k, "gemm");
    k.invocations = 1;
    k.time = 4e-3;
    rt_values_set(&k.flops, "fp32", 2e9);
    rt_values_set(&k.bytes, "DRAM", 1e7);
    verdict(m, RT_MODE_SINGLE, &k, &v, &w);
    assert_int_equal(v.bound, RT_BOUND_COMPUTE);
    assert_string_equal(v.bound_label, "compute:ref(fp32)");
    assert_close(v.t_compute, 2e-3, 1e-12);
    assert_close(v.t_bw_max, 1e-4, 1e-12);
    assert_close(v.t_bound, 2e-3, 1e-12);
    assert_close(v.efficiency, 0.5, 1e-12);
    assert_close(v.recoverable, 2e-3, 1e-12);
    assert_close(v.ai_ref, 200, 1e-12);
    /* Time plane, compute-bound: compute time = T, bandwidth time = T * MB / AI = 4 ms * 10/200. */
    assert_close(v.compute_time, 4e-3, 1e-12);
    assert_close(v.bw_time, 4e-3 * 10 / 200, 1e-12);
    assert_false(v.overhead_bound);
    rt_verdict_release(&v);

    /* Single mode counts fp16 FLOPs at the fp32 reference peak. */
    rt_values_set(&k.flops, "fp16", 2e9);
    verdict(m, RT_MODE_SINGLE, &k, &v, &w);
    assert_close(v.t_compute, 4e-3, 1e-12);
    assert_close(v.efficiency, 1.0, 1e-12);
    rt_verdict_release(&v);
    rt_kernel_release(&k);

    /* Bandwidth-bound: 1e6 FLOPs, 1e8 DRAM bytes (1 ms), 2 ms measured. */
    rt_kernel_init(&k, "axpy");
    k.invocations = 1;
    k.time = 2e-3;
    rt_values_set(&k.flops, "fp32", 1e6);
    rt_values_set(&k.bytes, "DRAM", 1e8);
    verdict(m, RT_MODE_SINGLE, &k, &v, &w);
    assert_int_equal(v.bound, RT_BOUND_BANDWIDTH);
    assert_string_equal(v.bound_label, "bandwidth:DRAM");
    /* Bandwidth-bound: bandwidth time = T, compute time = T * AI / MB = 2 ms * 0.01 / 10. */
    assert_close(v.bw_time, 2e-3, 1e-12);
    assert_close(v.compute_time, 2e-3 * 0.01 / 10, 1e-12);
    assert_close(fmax(v.bw_time, v.compute_time), v.time, 1e-12);
    rt_verdict_release(&v);
    rt_kernel_release(&k);

    /* Overhead-bound: 100 launches (1 ms of overhead) doing 1e8 FLOPs (0.1 ms). */
    rt_kernel_init(&k, "tiny");
    k.invocations = 100;
    k.time = 1.5e-3;
    rt_values_set(&k.flops, "fp32", 1e8);
    rt_values_set(&k.bytes, "DRAM", 1e6);
    verdict(m, RT_MODE_SINGLE, &k, &v, &w);
    assert_int_equal(v.bound, RT_BOUND_OVERHEAD);
    assert_string_equal(v.bound_label, "overhead");
    assert_true(v.overhead_bound);
    assert_close(v.t_oh, 1e-3, 1e-12);
    assert_close(v.efficiency, 1e-3 / 1.5e-3, 1e-12);
    rt_verdict_release(&v);
    rt_kernel_release(&k);

    /* Zero-AI: bytes, no FLOPs. */
    rt_kernel_init(&k, "transpose");
    k.invocations = 1;
    k.time = 1e-3;
    rt_values_set(&k.bytes, "DRAM", 5e7);
    verdict(m, RT_MODE_SINGLE, &k, &v, &w);
    assert_true(v.zero_ai);
    assert_int_equal(v.bound, RT_BOUND_BANDWIDTH);
    assert_close(v.ai_ref, 0, 0);
    rt_verdict_release(&v);
    rt_kernel_release(&k);

    /* Nothing at all. */
    rt_kernel_init(&k, "empty");
    verdict(m, RT_MODE_SINGLE, &k, &v, &w);
    assert_int_equal(v.bound, RT_BOUND_NONE);
    rt_verdict_release(&v);
    rt_kernel_release(&k);

    assert_int_equal(w.n, 0);
    rt_warnings_release(&w);
    rt_machine_free(m);
}

static void test_bound_classes_hier(void **state)
{
    (void)state;
    rt_machine *m = toy();
    rt_warnings w = {0};
    rt_verdict v;
    rt_kernel k;

    /* fp16 at 4 TFLOP/s: 4e9 fp16 FLOPs = 1 ms, 1e9 fp32 FLOPs = 1 ms: 2 ms compute, fp16 or fp32
     * unit. */
    rt_kernel_init(&k, "mixed");
    k.invocations = 2;
    k.time = 3e-3;
    rt_values_set(&k.flops, "fp16", 8e9); /* 2 ms */
    rt_values_set(&k.flops, "fp32", 1e9); /* 1 ms */
    rt_values_set(&k.bytes, "DRAM", 1e7); /* 0.1 ms */
    rt_values_set(&k.bytes, "L1", 4e9);   /* 1 ms */
    verdict(m, RT_MODE_HIER, &k, &v, &w);
    assert_int_equal(v.bound, RT_BOUND_COMPUTE);
    assert_string_equal(v.bound_label, "compute:fp16");
    assert_close(v.t_compute, 3e-3, 1e-12);
    assert_close(v.efficiency, 1.0, 1e-12);
    rt_verdict_release(&v);

    /* The L1 level binds when it is the slowest: 4e10 L1 bytes = 10 ms. */
    rt_values_set(&k.bytes, "L1", 4e10);
    k.time = 20e-3;
    verdict(m, RT_MODE_HIER, &k, &v, &w);
    assert_int_equal(v.bound, RT_BOUND_BANDWIDTH);
    assert_string_equal(v.bound_label, "bandwidth:L1");
    assert_close(v.t_bw_max, 10e-3, 1e-12);
    assert_close(v.ai[0], 9e9 / 4e10, 1e-12);
    /* Time plane from the bounds' ratio: bandwidth time = T, compute time = T * 3/10. */
    assert_close(v.bw_time, 20e-3, 1e-12);
    assert_close(v.compute_time, 6e-3, 1e-12);
    rt_verdict_release(&v);

    /* In single mode the same kernel is DRAM-only and compute on the reference: 9 ms compute-bound.
     */
    verdict(m, RT_MODE_SINGLE, &k, &v, &w);
    assert_string_equal(v.bound_label, "compute:ref(fp32)");
    assert_close(v.t_compute, 9e-3, 1e-12);
    rt_verdict_release(&v);
    rt_kernel_release(&k);
    assert_int_equal(w.n, 0);
    rt_warnings_release(&w);
    rt_machine_free(m);
}

static void test_consistency_warnings(void **state)
{
    (void)state;
    rt_machine *m = toy();
    rt_warnings w = {0};
    rt_verdict v;
    rt_kernel k;
    /* Faster than its roof: 2e9 FLOPs in 1 ms on a 1 TFLOP/s unit. */
    rt_kernel_init(&k, "fast");
    k.invocations = 1;
    k.time = 1e-3;
    rt_values_set(&k.flops, "fp32", 2e9);
    rt_values_set(&k.bytes, "DRAM", 1e6);
    rt_verdict_compute(m, RT_MODE_HIER, &k, "kernel 'fast'", &v, &w);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.msg[0], "kernel 'fast'"));
    assert_non_null(strstr(w.msg[0], "above 1"));
    rt_verdict_release(&v);
    rt_kernel_release(&k);
    /* FLOPs with no bytes. */
    rt_kernel_init(&k, "nobytes");
    k.invocations = 1;
    k.time = 1;
    rt_values_set(&k.flops, "fp32", 1e6);
    rt_verdict_compute(m, RT_MODE_HIER, &k, "kernel 'nobytes'", &v, &w);
    assert_int_equal(w.n, 2);
    assert_non_null(strstr(w.msg[1], "kernel 'nobytes'"));
    assert_non_null(strstr(w.msg[1], "zero bytes"));
    rt_verdict_release(&v);
    rt_kernel_release(&k);
    rt_warnings_release(&w);
    rt_machine_free(m);
}

static rt_kernel *add(rt_profile *p, const char *name, double n, double t, double flops,
                      double bytes, const char *pass, const char *batch)
{
    rt_kernel *k = rt_profile_add_kernel(p, name);
    k->invocations = n;
    k->time = t;
    if (flops > 0)
        rt_values_set(&k->flops, "fp32", flops);
    rt_values_set(&k->bytes, "DRAM", bytes);
    rt_tags_set(&k->tags, "pass", pass);
    rt_tags_set(&k->tags, "batch", batch);
    return k;
}

static void test_grouping_and_families(void **state)
{
    (void)state;
    rt_machine *m = toy();
    rt_profile *p = rt_profile_new();
    rt_tags_set(&p->tags, "framework", "c");
    const char *batches[] = {"32", "16", "64"};
    for (int b = 0; b < 3; b++) {
        double s = atof(batches[b]) / 16;
        add(p, "gemm", 1, 1e-3 * s, 1e9 * s, 1e6 * s, "forward", batches[b]);
        add(p, "im2col", 1, 2e-4 * s, 0, 1e6 * s, "forward", batches[b]);
        add(p, "gemm", 2, 2e-3 * s, 2e9 * s, 2e6 * s, "backward", batches[b]);
    }
    /* A config outside any family: only one value of its parameter. */
    add(p, "gemm", 1, 1e-3, 1e9, 1e6, "inference", "16");
    rt_error err;
    rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
    assert_non_null(a);
    assert_int_equal(a->n_items, 10);
    assert_int_equal(a->n_configs, 7);
    /* Configs in first-seen order: fw32, bw32, fw16 ...; the forward batch-16 one sums gemm and
     * im2col. */
    const rt_config *c0 = &a->configs[2];
    assert_string_equal(c0->label, "framework=c pass=forward batch=16");
    assert_int_equal(c0->n_items, 2);
    assert_close(c0->sum.time, 1.2e-3, 1e-12);
    assert_close(c0->sum.invocations, 2, 0);
    assert_close(c0->v.W, 1e9, 1e-12);
    /* Two batch families (forward, backward), ordered 16, 32, 64 by value. */
    assert_int_equal(a->n_families, 2);
    for (size_t f = 0; f < 2; f++) {
        assert_string_equal(a->families[f].param, "batch");
        assert_int_equal(a->families[f].n, 3);
        const char *v0 = rt_tags_get(&a->configs[a->families[f].configs[0]].tags, "batch");
        const char *v2 = rt_tags_get(&a->configs[a->families[f].configs[2]].tags, "batch");
        assert_string_equal(v0, "16");
        assert_string_equal(v2, "64");
    }
    assert_string_equal(a->families[0].label, "framework=c pass=forward");
    /* Zero-AI kernel flagged; totals; overhead ceiling W / (n tau). */
    size_t *order = rt_analysis_items_by_time(a);
    assert_true(a->items[order[0]].kernel->time >= a->items[order[1]].kernel->time);
    free(order);
    assert_true(a->items[1].v.zero_ai);
    assert_close(a->overhead_ceiling, a->total_W / (a->total_n * 10e-6), 1e-12);
    rt_analysis_free(a);

    /* Grouping by a chosen tag: one config per pass. */
    const char *keys[] = {"pass"};
    rt_group_opts g = {.keys = keys, .n_keys = 1};
    a = rt_analysis_new(m, RT_MODE_SINGLE, &p, 1, &g, &err);
    assert_int_equal(a->n_configs, 3);
    assert_int_equal(a->n_families, 0);
    rt_analysis_free(a);
    rt_profile_free(p);
    rt_machine_free(m);
}

/* Configs by tag set, not by label text; untagged kernels stay per profile; every item is in
 * exactly one config's members, ascending; thousands of configs group into their families. */
static void test_grouping_at_scale(void **state)
{
    (void)state;
    rt_machine *m = toy();
    rt_profile *p[2] = {rt_profile_new(), rt_profile_new()};
    /* "a=1 b=2" as one value and as two tags print alike but are different configs. */
    rt_kernel *k = add(p[0], "x", 1, 1e-3, 1e6, 1e6, "forward", "1 b=2");
    k = add(p[0], "y", 1, 1e-3, 1e6, 1e6, "forward", "1");
    rt_tags_set(&k->tags, "b", "2");
    char name[32], layer[32], batch[32];
    for (int i = 0; i < 4000; i++) {
        snprintf(name, sizeof name, "k%d", i);
        snprintf(layer, sizeof layer, "L%d", i / 4);
        snprintf(batch, sizeof batch, "%d", 64 >> (i % 4)); /* 64, 32, 16, 8 */
        k = add(p[1], name, 1, 1e-3, 1e6, 1e6, layer, batch);
    }
    rt_profile_add_kernel(p[0], "untagged")->time = 1e-3;
    rt_profile_add_kernel(p[1], "untagged")->time = 1e-3;
    rt_profile_add_kernel(p[1], "untagged too")->time = 1e-3;
    rt_error err;
    rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, p, 2, NULL, &err);
    assert_non_null(a);
    assert_int_equal(a->n_items, 4005);
    /* 2 + 4000 tagged, one untagged per profile */
    assert_int_equal(a->n_configs, 4004);
    assert_int_equal(a->configs[0].n_items, 1);
    assert_int_equal(a->configs[1].n_items, 1);
    const rt_config *u0 = &a->configs[a->items[4002].config];
    const rt_config *u1 = &a->configs[a->items[4003].config];
    assert_ptr_not_equal(u0, u1);
    assert_int_equal(u1->n_items, 2);
    assert_string_equal(u1->label, "profile 2");
    size_t *seen = calloc(a->n_items, sizeof *seen);
    for (size_t c = 0; c < a->n_configs; c++)
        for (size_t i = 0; i < a->configs[c].n_items; i++) {
            size_t it = a->configs[c].items[i];
            assert_true(i == 0 || it > a->configs[c].items[i - 1]);
            assert_int_equal(a->items[it].config, c);
            seen[it]++;
        }
    for (size_t i = 0; i < a->n_items; i++)
        assert_int_equal(seen[i], 1);
    free(seen);
    /* One batch family per layer, ordered 8, 16, 32, 64; no family of "pass" (not numeric). */
    assert_int_equal(a->n_families, 1000);
    for (size_t f = 0; f < a->n_families; f++) {
        assert_string_equal(a->families[f].param, "batch");
        assert_int_equal(a->families[f].n, 4);
        assert_string_equal(rt_tags_get(&a->configs[a->families[f].configs[0]].tags, "batch"), "8");
    }
    assert_string_equal(a->families[999].label, "pass=L999");
    rt_analysis_free(a);
    rt_profile_free(p[0]);
    rt_profile_free(p[1]);
    rt_machine_free(m);
}

/* Two analyses agree on everything a table or chart reads (verdicts bit for bit). */
static void same_verdict(const rt_verdict *x, const rt_verdict *y)
{
    assert_int_equal(x->bound, y->bound);
    assert_int_equal(x->evidence, y->evidence);
    assert_string_equal(x->bound_label, y->bound_label);
    assert_memory_equal(&x->efficiency, &y->efficiency, sizeof x->efficiency);
    assert_memory_equal(&x->recoverable, &y->recoverable, sizeof x->recoverable);
    assert_memory_equal(&x->t_bound, &y->t_bound, sizeof x->t_bound);
    assert_memory_equal(x->q, y->q, 3 * x->n_levels * sizeof *x->q);
}

static void same_analysis(const rt_analysis *x, const rt_analysis *y)
{
    assert_int_equal(x->mode, y->mode);
    assert_int_equal(x->n_items, y->n_items);
    assert_int_equal(x->n_configs, y->n_configs);
    assert_int_equal(x->n_families, y->n_families);
    for (size_t i = 0; i < x->n_items; i++) {
        assert_int_equal(x->items[i].config, y->items[i].config);
        assert_int_equal(x->items[i].tags.n, y->items[i].tags.n);
        same_verdict(&x->items[i].v, &y->items[i].v);
    }
    for (size_t c = 0; c < x->n_configs; c++) {
        assert_string_equal(x->configs[c].label, y->configs[c].label);
        assert_int_equal(x->configs[c].n_items, y->configs[c].n_items);
        same_verdict(&x->configs[c].v, &y->configs[c].v);
    }
    for (size_t f = 0; f < x->n_families; f++)
        assert_string_equal(x->families[f].label, y->families[f].label);
    assert_memory_equal(x->items_by_time, y->items_by_time, x->n_items * sizeof(size_t));
    assert_memory_equal(x->configs_by_time, y->configs_by_time, x->n_configs * sizeof(size_t));
    assert_int_equal(x->warnings.n, y->warnings.n);
    for (size_t w = 0; w < x->warnings.n; w++)
        assert_string_equal(x->warnings.msg[w], y->warnings.msg[w]);
    double xs[] = {x->total_time,   x->total_W,      x->total_n,  x->time_real,
                   x->time_partial, x->time_unknown, x->tau_mean, x->overhead_ceiling},
           ys[] = {y->total_time,   y->total_W,      y->total_n,  y->time_real,
                   y->time_partial, y->time_unknown, y->tau_mean, y->overhead_ceiling};
    assert_memory_equal(xs, ys, sizeof xs);
}

/* The report's analyses: the hier one made like the single one (sharing its grouping) is the
 * hier analysis made whole; profiles of many kernels go through the worker threads. */
static void test_modes_share_grouping(void **state)
{
    (void)state;
    rt_machine *m = toy();
    rt_machine_add_unit(m, "tensor_fp16", 16e12);
    m->n_overheads = 0;
    rt_profile *p[3] = {rt_profile_new(), rt_profile_new(), rt_profile_new()};
    p[1]->overhead = rt_strdup("not measured"); /* warned, before its kernels' warnings */
    p[2]->time_kind = RT_TIME_DEVICE;
    char name[32], layer[32], batch[32];
    for (int i = 0; i < 20000; i++) {
        rt_profile *q = p[i % 7 == 0 ? 1 : i % 5 == 0 ? 2 : 0];
        snprintf(name, sizeof name, "k%d", i);
        snprintf(layer, sizeof layer, "L%d", i / 12);
        snprintf(batch, sizeof batch, "%d", 1 << (i % 4));
        rt_kernel *k = add(q, name, 1 + i % 3, 1e-6 * (1 + i % 97), 1e6 * (i % 11), 1e5 * (i % 13),
                           layer, batch);
        if (i % 17 == 0)
            rt_values_set(&k->flops, i % 2 ? "tensor" : "tensor_bf16", 1e9); /* absent, stand-in */
        if (i % 23 == 0)
            rt_values_set(&k->bytes, "L7", 1e3);
    }
    rt_error err;
    rt_mode modes[2] = {RT_MODE_SINGLE, RT_MODE_HIER};
    rt_analysis *both[2] = {NULL, NULL};
    assert_int_equal(rt_analysis_new_modes(m, modes, 2, p, 3, NULL, both, &err), 0);
    assert_ptr_equal(both[1]->base, both[0]);
    for (int i = 0; i < 2; i++) {
        rt_analysis *whole = rt_analysis_new(m, modes[i], p, 3, NULL, &err);
        assert_non_null(whole);
        assert_true(whole->warnings.n > 0);
        same_analysis(both[i], whole);
        rt_analysis_free(whole);
    }
    rt_analysis_free(both[0]); /* either first: the first goes with the last one like it */
    rt_analysis_free(both[1]);
    for (int i = 0; i < 3; i++)
        rt_profile_free(p[i]);
    rt_machine_free(m);
}

static void test_unknown_unit_and_level_warned_once(void **state)
{
    (void)state;
    rt_machine *m = toy();
    rt_profile *p = rt_profile_new();
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "k%d", i);
        rt_kernel *k = rt_profile_add_kernel(p, name);
        k->invocations = 1;
        k->time = 1;
        rt_values_set(&k->flops, "tensor", 1e6);
        rt_values_set(&k->bytes, "L3", 1e6);
        rt_values_set(&k->bytes, "HBM", 1e6); /* found as DRAM */
    }
    rt_error err;
    rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
    assert_int_equal(a->warnings.n, 2);
    assert_non_null(
        strstr(a->warnings.msg[0], "kernel 'k0' and 2 more kernels: compute unit 'tensor'"));
    assert_non_null(strstr(a->warnings.msg[1], "memory level 'L3'"));
    /* HBM bytes landed on DRAM. */
    assert_close(a->items[0].v.q_ref, 1e6, 0);
    rt_analysis_free(a);
    rt_profile_free(p);
    rt_machine_free(m);
}

/* Profile units to machine ceilings (docs/model.md, "Units and stand-ins"). */
static void test_unit_standins(void **state)
{
    (void)state;
    rt_machine *old = toy(), *per = toy(); /* "tensor" alone; per precision without "tensor" */
    rt_machine_add_unit(old, "tensor", 100e12);
    rt_machine_add_unit(per, "tensor_fp16", 200e12);
    rt_machine_add_unit(per, "tensor_tf32", 50e12);
    rt_unit_match how;
    assert_int_equal(rt_machine_resolve_unit(old, "tensor", &how), 2);
    assert_int_equal(how, RT_UNIT_EXACT);
    assert_int_equal(rt_machine_resolve_unit(old, "TENSOR_FP16", &how), 2);
    assert_int_equal(how, RT_UNIT_STANDIN);
    assert_int_equal(rt_machine_resolve_unit(old, "tensor_bf16", &how), 2);
    assert_int_equal(how, RT_UNIT_STANDIN);
    assert_int_equal(rt_machine_resolve_unit(per, "tensor", &how), 2);
    assert_int_equal(how, RT_UNIT_STANDIN);
    assert_int_equal(rt_machine_resolve_unit(per, "tensor_bf16", &how), 2);
    assert_int_equal(how, RT_UNIT_STANDIN);
    assert_int_equal(rt_machine_resolve_unit(per, "tensor_tf32", &how), 3);
    assert_int_equal(how, RT_UNIT_EXACT);
    static const char *const none[] = {"tensor_tf32", "tensor_fp8", "tensor_int8", "tensor_fp64"};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(rt_machine_resolve_unit(old, none[i], &how), -1);
        assert_int_equal(how, RT_UNIT_NO_CEILING);
    }
    assert_int_equal(rt_machine_resolve_unit(old, "amx_bf16", &how), -1);
    assert_int_equal(how, RT_UNIT_ABSENT);

    /* Hier: the stand-in's peak; a Tensor Core unit without a ceiling makes the verdict unknown,
     * single mode counts it at the reference peak. */
    rt_kernel k = {0};
    k.name = "gemm";
    k.invocations = 1;
    k.time = 1;
    rt_values_set(&k.flops, "tensor_bf16", 100e12);
    rt_values_set(&k.bytes, "DRAM", 1e9);
    rt_verdict v;
    rt_verdict_compute(old, RT_MODE_HIER, &k, "k", &v, NULL);
    assert_close(v.t_compute, 1.0, 1e-12);
    assert_string_equal(v.bound_label, "compute:tensor");
    rt_verdict_release(&v);
    rt_values_set(&k.flops, "tensor_fp8", 1e12);
    rt_verdict_compute(old, RT_MODE_HIER, &k, "k", &v, NULL);
    assert_int_equal(v.bound, RT_BOUND_UNKNOWN);
    assert_true(isnan(v.t_compute) && isnan(v.efficiency));
    rt_verdict_release(&v);
    rt_verdict_compute(old, RT_MODE_SINGLE, &k, "k", &v, NULL);
    assert_int_equal(v.bound, RT_BOUND_COMPUTE);
    assert_close(v.t_compute, 101e12 / 1e12, 1e-12); /* W / P_ref (fp32, 1 TFLOP/s) */
    rt_verdict_release(&v);
    rt_values_release(&k.flops);
    rt_values_release(&k.bytes);
    rt_machine_free(old);
    rt_machine_free(per);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_v100_paper_numbers),
        cmocka_unit_test(test_derivation_mismatch_is_an_error),
        cmocka_unit_test(test_bound_classes_single),
        cmocka_unit_test(test_bound_classes_hier),
        cmocka_unit_test(test_consistency_warnings),
        cmocka_unit_test(test_grouping_and_families),
        cmocka_unit_test(test_grouping_at_scale),
        cmocka_unit_test(test_modes_share_grouping),
        cmocka_unit_test(test_unknown_unit_and_level_warned_once),
        cmocka_unit_test(test_unit_standins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
