/* Tests of ISA detection and dispatch: every kernel at every allowed ISA level runs and checks its
 * result. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure-internal.h"
#include "rooftime/core/machine.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/probe/measure-machine.h"
#include "rooftime/util/error.h"
#include "rooftime-config.h"
#include "testutil.h"

static void test_detect(void **state)
{
    (void)state;
    rt_cpu_info c;
    rt_cpu_detect(&c);
    assert_true(strlen(c.model) > 0);
#if defined(__x86_64__)
    assert_true(c.sse2); /* part of x86-64 itself */
    assert_true(strlen(c.vendor) == 12);
#endif
    /* Consistency: a feature implies its base. */
    if (c.avx512_bf16 || c.avx512_fp16 || c.avx512_vnni || c.avx512bw)
        assert_true(c.avx512f);
    if (c.amx_bf16 || c.amx_int8)
        assert_true(c.amx_tile);
    char *f = rt_cpu_flags_string(&c);
    assert_non_null(strstr(f, c.sse2 ? "sse2" : ""));
    free(f);
}

/* CPUID and XCR0 values as a CPU and its OS report them: a feature counts only where both do. */
enum {
    L1_ECX = 1u << 12 | 1u << 27 | 1u << 28, /* FMA, OSXSAVE, AVX */
    L1_EDX = 1u << 26,                       /* SSE2 */
    L7_AVX2 = 1u << 5,
    L7_AVX512 = 1u << 16 | 1u << 30 | 1u << 31, /* F, BW, VL */
    L7_VNNI = 1u << 11,                         /* ECX */
    L7_AMX = 1u << 22 | 1u << 24 | 1u << 25,    /* EDX: AMX-BF16, AMX-TILE, AMX-INT8 */
    L7_FP16 = 1u << 23,                         /* EDX */
    L71_BF16 = 1u << 5,                         /* leaf 7.1 EAX: AVX512-BF16 */
};
/* XCR0: x87, SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM, PKRU; the tile state (bits 17-18) from
 * Linux 5.16 */
#define XCR0_ZMM 0x2e7ull
#define XCR0_TILE 0x60000ull

static rt_cpu_info decode(rt_cpuid_regs r)
{
    rt_cpu_info c;
    memset(&c, 0xff, sizeof c); /* every flag must be set by the decoder */
    rt_cpu_decode(&r, &c);
    return c;
}

static void test_decode(void **state)
{
    (void)state;
    /* Sapphire Rapids on Linux 5.16 or later: AMX usable. */
    rt_cpuid_regs spr = {0x20,
                         L1_ECX,
                         L1_EDX,
                         2,
                         L7_AVX2 | L7_AVX512,
                         L7_VNNI,
                         L7_AMX | L7_FP16,
                         L71_BF16,
                         XCR0_ZMM | XCR0_TILE};
    rt_cpu_info c = decode(spr);
    assert_true(c.avx2 && c.fma && c.avx512f && c.avx512bw && c.avx512vl && c.avx512_vnni);
    assert_true(c.avx512_bf16 && c.avx512_fp16);
    assert_true(c.amx_cpu && c.amx_tile && c.amx_bf16 && c.amx_int8);
    /* The same CPU on a kernel that leaves the tile state out of XCR0 (Linux 5.15): no AMX, but
     * the CPU is known to have it; AVX-512 unaffected. */
    rt_cpuid_regs old = spr;
    old.xcr0 = XCR0_ZMM;
    c = decode(old);
    assert_true(c.amx_cpu);
    assert_false(c.amx_tile || c.amx_bf16 || c.amx_int8);
    assert_true(c.avx512f && c.avx512_bf16);
    /* Both tile components are needed: XTILEDATA without XTILECFG is not enough. */
    old.xcr0 = XCR0_ZMM | 0x40000ull;
    assert_false(decode(old).amx_tile);
    /* AMX-BF16 and AMX-INT8 without AMX-TILE: no tiles to run them on. */
    rt_cpuid_regs notile = spr;
    notile.leaf7_edx &= ~(1u << 24);
    c = decode(notile);
    assert_false(c.amx_cpu || c.amx_tile || c.amx_bf16 || c.amx_int8);
    /* Zen 4: AVX-512 with BF16 and VNNI, no FP16, no AMX. */
    rt_cpuid_regs zen4 = {0x10,    L1_ECX, L1_EDX,   1,       L7_AVX2 | L7_AVX512,
                          L7_VNNI, 0,      L71_BF16, XCR0_ZMM};
    c = decode(zen4);
    assert_true(c.avx512f && c.avx512_bf16 && c.avx512_vnni);
    assert_false(c.avx512_fp16 || c.amx_cpu || c.amx_tile || c.amx_bf16 || c.amx_int8);
    assert_int_equal(rt_cpu_best_isa(&c), RT_ISA_AVX512);
    /* An AVX2 CPU (Zen 3): no AVX-512, no bf16, no AMX. */
    rt_cpuid_regs zen3 = {0x10, L1_ECX, L1_EDX, 0, L7_AVX2, 0, 0, 0, 0x7};
    c = decode(zen3);
    assert_true(c.avx2 && c.fma);
    assert_false(c.avx512f || c.avx512_bf16 || c.avx512_vnni || c.amx_tile);
    assert_int_equal(rt_cpu_best_isa(&c), RT_ISA_AVX2);
    /* An OS that does not save the ZMM state: no AVX-512 flag, whatever CPUID says. */
    rt_cpuid_regs ymm = spr;
    ymm.xcr0 = 0x7;
    c = decode(ymm);
    assert_false(c.avx512f || c.avx512_bf16 || c.avx512_fp16 || c.amx_tile);
    assert_true(c.avx2);
    /* No OSXSAVE: XCR0 cannot be read, so no AVX at all (the value passed is ignored). */
    rt_cpuid_regs noxsave = spr;
    noxsave.leaf1_ecx &= ~(1u << 27);
    c = decode(noxsave);
    assert_true(c.sse2);
    assert_false(c.avx || c.avx2 || c.fma || c.avx512f || c.amx_tile);
    /* Leaf 7 beyond the maximum leaf, subleaf 1 beyond the maximum subleaf: not read. */
    rt_cpuid_regs low = spr;
    low.max_leaf = 6;
    c = decode(low);
    assert_false(c.avx2 || c.avx512f || c.amx_cpu);
    rt_cpuid_regs nosub = spr;
    nosub.leaf7_max_sub = 0;
    assert_false(decode(nosub).avx512_bf16);
}

static void test_isa_names(void **state)
{
    (void)state;
    rt_isa i;
    rt_error err;
    assert_int_equal(rt_isa_parse("sse", &i, &err), 0);
    assert_int_equal(i, RT_ISA_SSE);
    assert_int_equal(rt_isa_parse("AVX2", &i, &err), 0);
    assert_int_equal(i, RT_ISA_AVX2);
    assert_int_equal(rt_isa_parse("avx512", &i, &err), 0);
    assert_int_equal(i, RT_ISA_AVX512);
    assert_int_equal(rt_isa_parse("amx", &i, &err), 0);
    assert_int_equal(rt_isa_parse("avx1024", &i, &err), -1);
    assert_non_null(strstr(err.msg, "avx1024"));
    assert_int_equal(rt_isa_parse("scalar", &i, &err), -1);
    assert_string_equal(rt_isa_name(RT_ISA_AVX2), "avx2");
}

static void test_limit(void **state)
{
    (void)state;
    rt_cpu_info c;
    rt_cpu_detect(&c);
    rt_cpu_info s = c;
    rt_cpu_limit(&s, RT_ISA_SSE);
    assert_false(s.avx2 || s.fma || s.avx512f || s.avx512_bf16 || s.amx_tile);
    assert_int_equal(s.sse2, c.sse2);
    rt_cpu_info a = c;
    rt_cpu_limit(&a, RT_ISA_AVX2);
    assert_false(a.avx512f || a.avx512_vnni || a.amx_bf16);
    assert_int_equal(a.avx2, c.avx2);
    assert_true(rt_cpu_best_isa(&a) <= RT_ISA_AVX2);
    rt_cpu_info z = c;
    rt_cpu_limit(&z, RT_ISA_AVX512);
    assert_false(z.amx_tile);
    assert_int_equal(z.avx512_bf16, c.avx512_bf16);
}

/* Under each limit: the kernels chosen run and compute the right result; none above the limit. */
static void test_flops_kernels(void **state)
{
    (void)state;
    rt_cpu_info host;
    rt_cpu_detect(&host);
    size_t nk;
    const rt_flops_kernel *ks = rt_flops_kernels(&nk);
#if defined(__x86_64__)
    assert_true(nk >= 6);
#endif
    const rt_isa limits[] = {RT_ISA_SSE, RT_ISA_AVX2, RT_ISA_AVX512};
    for (size_t l = 0; l < 3; l++) {
        rt_cpu_info c = host;
        rt_cpu_limit(&c, limits[l]);
        int ran_fp64 = 0, ran_fp32 = 0;
        for (size_t i = 0; i < nk; i++) {
            if (!ks[i].available(&c))
                continue;
            assert_true(ks[i].isa <= limits[l]);
            if (ks[i].isa > rt_cpu_best_isa(&host) && ks[i].isa < RT_ISA_AMX)
                fail_msg("%s %s offered above the CPU's level", ks[i].unit, ks[i].instr);
            rt_error err;
            if (rt_flops_kernel_check(&ks[i], 1000, &err) != 0)
                fail_msg("%s", err.msg);
            ran_fp64 += strcmp(ks[i].unit, "fp64") == 0;
            ran_fp32 += strcmp(ks[i].unit, "fp32") == 0;
        }
        if (c.sse2) {
            assert_true(ran_fp64 >= 1);
            assert_true(ran_fp32 >= 1);
        }
    }
}

/* The AMX kernels on a CPU whose OS lets them run, after the permission Linux wants first; their
 * results are checked exactly. Skipped elsewhere (the decoding is test_decode's). */
static void test_amx_kernels(void **state)
{
    (void)state;
    rt_cpu_info c;
    rt_cpu_detect(&c);
    if (!c.amx_tile) {
        print_message("skipped: no usable AMX on this CPU (%s)\n",
                      c.amx_cpu ? "the OS leaves the tile state out of XCR0" : "none in CPUID");
        skip();
    }
    rt_error err;
    if (rt_cpu_request_amx(&err) != 0) {
        print_message("skipped: %s\n", err.msg);
        skip();
    }
    size_t nk;
    const rt_flops_kernel *ks = rt_flops_kernels(&nk);
    int ran = 0;
    for (size_t i = 0; i < nk; i++) {
        if (ks[i].isa != RT_ISA_AMX || !ks[i].available(&c))
            continue;
        /* 1000 iterations; and past 2^31 / 128 for the int8 accumulators' wrap-around */
        if (rt_flops_kernel_check(&ks[i], 1000, &err) != 0 ||
            rt_flops_kernel_check(&ks[i], 20000000, &err) != 0)
            fail_msg("%s", err.msg);
        ran++;
    }
#ifdef RT_HAVE_AMX_KERNELS
    assert_int_equal(ran, (int)c.amx_bf16 + (int)c.amx_int8);
#else
    assert_int_equal(ran, 0);
#endif
}

static void test_flops_measure(void **state)
{
    (void)state;
    size_t nk;
    const rt_flops_kernel *ks = rt_flops_kernels(&nk);
    if (nk == 0)
        skip();
    rt_stat s;
    rt_error err;
    assert_int_equal(rt_flops_measure(&ks[0], 1, 3, 0.002, 0, &s, &err), 0);
    assert_true(s.min > 0 && s.min <= s.median && s.median <= s.max);
}

/* Each bandwidth kernel of an ISA the CPU has; the checks catch a corrupted buffer. */
static void test_bandwidth_kernels(void **state)
{
    (void)state;
    rt_cpu_info c;
    rt_cpu_detect(&c);
    rt_isa best = rt_cpu_best_isa(&c);
    size_t bytes = 8 * RT_BW_GRAIN, nk, ran = 0;
    const rt_bw_kernel *ks = rt_bw_kernels(&nk);
    void *buf = NULL;
    assert_int_equal(posix_memalign(&buf, 64, bytes), 0);
    for (size_t i = 0; i < nk; i++) {
        const rt_bw_kernel *b = &ks[i];
        rt_bw_kind k = b->kind;
        if (b->isa > best)
            continue;
        ran++;
        rt_bw_fill(k, buf, bytes);
        if (rt_bw_run(b, buf, bytes, 3) != 0)
            fail_msg("%s kernel at %s: wrong result", rt_bw_kind_name(k), rt_isa_name(b->isa));
        /* Corrupt the input: the check must notice. */
        rt_bw_fill(k, buf, bytes);
        if (k == RT_BW_READ)
            ((uint64_t *)buf)[1] += 1; /* in vector 0, which every read kernel sums */
        else if (k == RT_BW_COPY)
            ((double *)buf)[0] = 42;
        else if (k == RT_BW_UPDATE)
            ((double *)buf)[1021] = 7; /* element 1021 holds 1021 after every pass */
        else
            ((double *)buf)[bytes / 3 / 8] = 5; /* y[0]: x[0] becomes 5 + 0.5 * 2 */
        if (rt_bw_run(b, buf, bytes, 2) == 0)
            fail_msg("%s kernel at %s: corrupted input not detected", rt_bw_kind_name(k),
                     rt_isa_name(b->isa));
    }
    /* every kind at every ISA up to the best: plain C, and SSE, AVX2, AVX-512 on x86-64 */
    assert_int_equal(ran, RT_BW_NKINDS * (best + 1));
    /* The best kernel of a kind up to an ISA; none of an ISA below plain C. */
    const rt_bw_kernel *r = rt_bw_kernel_find(ks, nk, RT_BW_READ, best);
    assert_true(r && r->kind == RT_BW_READ &&
                r->isa == (best < RT_ISA_AVX512 ? best : RT_ISA_AVX512));
    assert_null(rt_bw_kernel_find(ks, 0, RT_BW_READ, best));
    /* Sizes that are not whole kernel steps are refused. */
    assert_int_equal(rt_bw_run(r, buf, RT_BW_GRAIN + 64, 1), -1);
    free(buf);
}

/* The ceiling estimator: a high quantile of the undisturbed trials; median, min and max over all.
 */
static void test_ceiling_estimator(void **state)
{
    (void)state;
    double v[] = {100, 50, 90, 200, 95};
    bool clean[] = {true, true, true, false, true};
    rt_stat s = rt_stat_of_clean(v, clean, 5);
    assert_int_equal(s.clean, 4);
    assert_true(s.median == 95 && s.min == 50 && s.max == 200);
    /* clean sorted 50 90 95 100: the 0.9 quantile sits at 2.7 -> 95 + 0.7 x 5 */
    assert_true(fabs(s.best - 98.5) < 1e-9);
    /* Every trial disturbed: the quantile of them all, and clean says so. */
    bool none[] = {false, false, false, false, false};
    double w[] = {100, 50, 90, 200, 95};
    s = rt_stat_of_clean(w, none, 5);
    assert_int_equal(s.clean, 0);
    assert_true(fabs(s.best - 160) < 1e-9); /* 50 90 95 100 200 at 3.6 */
    double one[] = {7};
    s = rt_stat_of(one, 1);
    assert_true(s.best == 7 && s.median == 7 && s.clean == 1);
}

static void test_sweep(void **state)
{
    (void)state;
    rt_bw_point *p;
    size_t n;
    rt_error err;
    size_t nk;
    const rt_bw_kernel *ks = rt_bw_kernels(&nk);
    const rt_bw_kernel *triad = rt_bw_kernel_find(ks, nk, RT_BW_TRIAD, RT_ISA_SSE);
    const rt_bw_kernel *read = rt_bw_kernel_find(ks, nk, RT_BW_READ, RT_ISA_SSE);
    rt_bw_grid g = {2 * RT_BW_GRAIN, 64 * RT_BW_GRAIN, 2.0, 0, 0};
    assert_int_equal(rt_bw_sweep(triad, 1, &g, 2, 0.001, NULL, &p, &n, NULL, NULL, &err), 0);
    assert_int_equal(n, 6);
    for (size_t i = 0; i < n; i++) {
        assert_true(p[i].bw.median > 0);
        if (i > 0)
            assert_true(p[i].bytes > p[i - 1].bytes);
    }
    free(p);
    rt_bw_grid bad = {10, 5, 2.0, 0, 0};
    assert_int_equal(rt_bw_sweep(read, 1, &bad, 2, 0.001, NULL, &p, &n, NULL, NULL, &err), -1);
    /* Every working set in the skipped range: no sweep. */
    rt_bw_grid none = {2 * RT_BW_GRAIN, 8 * RT_BW_GRAIN, 2.0, RT_BW_GRAIN, 8 * RT_BW_GRAIN};
    assert_int_equal(rt_bw_sweep(read, 1, &none, 2, 0.001, NULL, &p, &n, NULL, NULL, &err), -1);
}

/* A grid's working sets: whole kernel steps, ascending, none in the skipped range. */
static void test_grid(void **state)
{
    (void)state;
    size_t s[64];
    rt_bw_grid g = {2 * RT_BW_GRAIN, 64 * RT_BW_GRAIN, 2.0, 0, 0};
    assert_int_equal(rt_bw_grid_sizes(&g, s, 64), 6); /* 2 4 8 16 32 64 grains */
    assert_int_equal(s[0], 2 * RT_BW_GRAIN);
    assert_int_equal(s[5], 64 * RT_BW_GRAIN);
    g.skip_from = 4 * RT_BW_GRAIN; /* (4, 16] left out: 8 and 16 */
    g.skip_to = 16 * RT_BW_GRAIN;
    assert_int_equal(rt_bw_grid_sizes(&g, s, 64), 4);
    assert_int_equal(s[1], 4 * RT_BW_GRAIN);
    assert_int_equal(s[2], 32 * RT_BW_GRAIN);
    g.step = 1.4142135623730951; /* steps of sqrt 2, rounded to whole grains: distinct, rising */
    g.skip_to = g.skip_from = 0;
    size_t n = rt_bw_grid_sizes(&g, s, 64);
    assert_int_equal(n, 11);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(s[i] % RT_BW_GRAIN, 0);
        if (i > 0)
            assert_true(s[i] > s[i - 1]);
    }
    assert_int_equal(rt_bw_grid_sizes(&g, s, 3), 3); /* at most cap */
    g.step = 1.0;
    assert_int_equal(rt_bw_grid_sizes(&g, s, 64), 0);
}

static void test_overhead(void **state)
{
    (void)state;
    rt_stat s;
    rt_error err;
#ifdef RT_HAVE_OPENMP
    assert_int_equal(rt_overhead_openmp(1, 3, 200, &s, &err), 0);
    assert_true(s.median > 0 && s.median < 1e-2);
#else
    assert_int_equal(rt_overhead_openmp(1, 3, 200, &s, &err), -1);
#endif
}

static void test_bad_options(void **state)
{
    (void)state;
    rt_machine *m = (rt_machine *)1;
    rt_error err;
    rt_measure_opts o = {0};
    o.max_isa = "avx9000";
    assert_int_equal(rt_machine_measure(&o, &m, NULL, &err), -1);
    assert_null(m);
    assert_non_null(strstr(err.msg, "avx9000"));
    o.max_isa = NULL;
    o.max_threads = 100000;
    assert_int_equal(rt_machine_measure(&o, &m, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "100000"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect),        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_isa_names),     cmocka_unit_test(test_amx_kernels),
        cmocka_unit_test(test_limit),         cmocka_unit_test(test_flops_kernels),
        cmocka_unit_test(test_flops_measure), cmocka_unit_test(test_bandwidth_kernels),
        cmocka_unit_test(test_sweep),         cmocka_unit_test(test_grid),
        cmocka_unit_test(test_overhead),      cmocka_unit_test(test_ceiling_estimator),
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
