/* Tests of the bandwidth kernels' trial runs and of what the bandwidth stage does with a kernel
 * that faults or computes a wrong result (measure-bw-variants.c, measure-levels.c): the kernel is
 * left out with its line, its curves dropped, and its kind swept with the next ISA's kernel; the
 * process goes on. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faults.h"
#include "measure-internal.h"
#include "rooftime/util/clock.h"
#include "testutil.h"

static int ud2_bw(void *buf, size_t bytes, long passes)
{
    (void)buf;
    (void)bytes;
    (void)passes;
    fault_sigill();
    return 0;
}

static int segv_bw(void *buf, size_t bytes, long passes)
{
    (void)buf;
    (void)bytes;
    fault_sigsegv((char)passes);
    return 0;
}

/* The build's kernel of `kind` with `isa`'s loads. */
static const rt_bw_kernel *real(rt_bw_kind kind, rt_isa isa)
{
    size_t n;
    const rt_bw_kernel *ks = rt_bw_kernels(&n);
    return rt_bw_kernel_find(ks, n, kind, isa);
}

/* The SSE read kernel, wrong at working sets over 16 KiB (right in its trial's 12 KiB). */
static int wrong_large(void *buf, size_t bytes, long passes)
{
    return bytes > 16384 ? -1 : real(RT_BW_READ, RT_ISA_SSE)->run(buf, bytes, passes);
}

/* Set when the bandwidth stage's second look begins (on_progress). */
static bool second_look;

static void on_progress(void *ctx, const char *stage, double fraction)
{
    (void)ctx;
    (void)fraction;
    if (strcmp(stage, "bandwidth: slow points again") == 0)
        second_look = true;
}

/* A pass takes 1 ns a byte of wall time: the same rate at every working set, a flat curve with a
 * level on every cache's range. Right until the second look begins, wrong after. */
static int paced_late(void *buf, size_t bytes, long passes)
{
    (void)buf;
    double t0 = rt_now();
    while (rt_now() - t0 < 1e-9 * (double)bytes * (double)passes) {
    }
    return second_look ? -1 : 0;
}

/* A kernel table: the build's plain C and SSE kernels of every kind but those named in `but`
 * (a bit per kind), then the extra ones. */
typedef struct table {
    rt_bw_kernel k[24];
    size_t n;
} table;

static table table_of(unsigned but, const rt_bw_kernel *extra, size_t n_extra)
{
    table t = {.n = 0};
    size_t n;
    const rt_bw_kernel *ks = rt_bw_kernels(&n);
    for (size_t i = 0; i < n; i++)
        if (ks[i].isa <= RT_ISA_SSE && !(but & 1u << ks[i].kind))
            t.k[t.n++] = ks[i];
    for (size_t i = 0; i < n_extra; i++)
        t.k[t.n++] = extra[i];
    return t;
}

/* The table with `run` as the read kernel with AVX2 loads, on top of the others. */
static table with_read(int (*run)(void *, size_t, long))
{
    rt_bw_kernel top = {RT_BW_READ, RT_ISA_AVX2, run};
    return table_of(0, &top, 1);
}

/* One run of the bandwidth stage: its return value and error, the record, the levels, the skipped
 * lines. */
typedef struct bw_run {
    int rc;
    rt_error err;
    rt_measurement *meas;
    rt_levels lv;
    rt_warnings sk;
} bw_run;

/* The bandwidth stage with the kernels of t up to AVX2 on one thread, over working sets of 3 to
 * 48 KiB, into r (released by release_run). */
static void levels_with(const table *t, bw_run *r)
{
    rt_levels_plan pl = {1, 0.0005, 2, 65536, 1e-4, false, t->k, t->n};
    int tcounts[] = {1};
    rt_run_progress pr = {on_progress, NULL, "", 0, 1};
    second_look = false;
    r->meas = rt_measurement_new();
    r->sk = (rt_warnings){0};
    r->rc = rt_measure_levels(&pl, RT_ISA_AVX2, tcounts, 1, 0, 1, &pr, r->meas, &r->lv, &r->sk,
                              &r->err);
}

static void release_run(bw_run *r)
{
    rt_warnings_release(&r->sk);
    rt_measurement_free(r->meas);
}

/* That skipped has a line starting with `start` and ending with `end`; all of them shown if not. */
static void expect_line(const rt_warnings *sk, const char *start, const char *end)
{
    size_t ls = strlen(start), le = strlen(end);
    for (size_t i = 0; i < sk->n; i++) {
        size_t l = strlen(sk->msg[i]);
        if (l >= ls + le && strncmp(sk->msg[i], start, ls) == 0 &&
            strcmp(sk->msg[i] + l - le, end) == 0)
            return;
    }
    for (size_t i = 0; i < sk->n; i++)
        print_message("skipped: %s\n", sk->msg[i]);
    fail_msg("no line \"%s...%s\"", start, end);
}

/* The curves of `kernel` in meas: one, with `isa`. */
static void expect_curve(const rt_measurement *meas, const char *kernel, const char *isa)
{
    int n = 0;
    for (size_t c = 0; c < meas->n_curves; c++)
        if (strcmp(meas->curves[c].kernel, kernel) == 0) {
            n++;
            assert_string_equal(meas->curves[c].isa, isa);
        }
    assert_int_equal(n, 1);
}

/* The stage with `run` as the read kernel with AVX2 loads (with_read): it must succeed, read swept
 * with the SSE kernel instead, and a line that starts with `start` and ends with `end` say why. */
static void expect_read_fallback(int (*run)(void *, size_t, long), const char *start,
                                 const char *end, bw_run *r)
{
    table t = with_read(run);
    levels_with(&t, r);
    if (r->rc != 0)
        fail_msg("%s", r->err.msg);
    expect_line(&r->sk, start, end);
    expect_curve(r->meas, "read", "sse");
    assert_string_equal(r->meas->bw_isa, "sse");
    assert_int_equal(r->lv.isa[RT_BW_READ], RT_ISA_SSE);
}

/* Each kind's kernel: the best whose trial passed, every kernel left out said once with the one
 * used instead; a kernel out later for a wrong result the same; a kind with none left or none at
 * all is not measured, said. */
static void test_choice(void **state)
{
    (void)state;
#if !defined(__x86_64__)
    skip();
#endif
    rt_bw_kernel extra[] = {{RT_BW_READ, RT_ISA_SSE, ud2_bw}, {RT_BW_READ, RT_ISA_AVX2, segv_bw}};
    table t = table_of(1u << RT_BW_READ | 1u << RT_BW_COPY, extra, 2);
    t.k[t.n++] = *real(RT_BW_READ, RT_ISA_SCALAR);
    rt_bw_variants v;
    rt_bw_variants_init(&v, t.k, t.n, RT_ISA_AVX2);
    rt_warnings sk = {0};
    const rt_bw_kernel *k = rt_bw_variant(&v, RT_BW_READ, NULL, &sk);
    assert_true(k && k->isa == RT_ISA_SCALAR);
    assert_int_equal(sk.n, 2);
    assert_string_equal(sk.msg[0], "read kernel (avx2): the trial run raised SIGSEGV: read "
                                   "measured with scalar instead");
    assert_string_equal(sk.msg[1], "read kernel (sse): the trial run raised SIGILL although CPUID "
                                   "lists the instruction set: read measured with scalar instead");
    assert_int_equal(rt_bw_variant_isa(&v, RT_BW_READ), RT_ISA_SCALAR);
    assert_ptr_equal(rt_bw_variant(&v, RT_BW_READ, NULL, &sk), k); /* no trial again */
    assert_int_equal(sk.n, 2);
    assert_null(rt_bw_variant(&v, RT_BW_READ, "computed a wrong result at 3072 bytes", &sk));
    assert_string_equal(sk.msg[2], "read kernel (scalar): computed a wrong result at 3072 bytes: "
                                   "read not measured");
    assert_null(rt_bw_variant(&v, RT_BW_READ, NULL, &sk));
    assert_null(rt_bw_variant(&v, RT_BW_COPY, NULL, &sk));
    assert_string_equal(sk.msg[3], "copy kernel: none up to avx2 in this build: copy not measured");
    assert_int_equal(sk.n, 4);
    /* While its best kernel serves, a kind is measured at the ISA asked for (as before the
     * trials: "amx" on a CPU with AMX, whose bandwidth kernels use AVX-512). */
    /* Where every kind's best kernel passes, one trial serves them all. */
    rt_bw_variants all;
    table good = table_of(0, NULL, 0);
    rt_bw_variants_init(&all, good.k, good.n, RT_ISA_AVX2);
    assert_non_null(rt_bw_variant(&all, RT_BW_COPY, NULL, &sk));
    for (int kind = 0; kind < RT_BW_NKINDS; kind++)
        assert_true(all.tried[kind] && all.cur[kind] == 0);
    k = rt_bw_variant(&v, RT_BW_TRIAD, NULL, &sk);
    assert_true(k && k->isa == RT_ISA_SSE && k->run == real(RT_BW_TRIAD, RT_ISA_SSE)->run);
    assert_int_equal(rt_bw_variant_isa(&v, RT_BW_TRIAD), RT_ISA_AVX2);
    assert_int_equal(sk.n, 4);
    rt_warnings_release(&sk);
}

/* A read kernel that faults in its trial: left out, said, and read swept with the next one; the
 * process goes on and the levels are named. */
static void test_trial_faults(void **state)
{
    (void)state;
#if !defined(__x86_64__)
    skip();
#endif
    bw_run r;
    expect_read_fallback(ud2_bw,
                         "read kernel (avx2): the trial run raised SIGILL although CPUID lists "
                         "the instruction set: read measured with sse instead",
                         "", &r);
    expect_curve(r.meas, "copy", "avx2"); /* its best kernel, SSE here, serves */
    assert_true(r.lv.n > 0);
    release_run(&r);
}

/* A read kernel right in its trial and wrong later in its sweep: its curve dropped, read swept
 * again with the next kernel, said. */
static void test_sweep_wrong(void **state)
{
    (void)state;
#if !defined(__x86_64__)
    skip();
#endif
    bw_run r;
    expect_read_fallback(wrong_large,
                         "read kernel (avx2): computed a wrong result at 24576 bytes per thread on "
                         "1 thread: read measured with sse instead",
                         "", &r);
    assert_int_equal(r.meas->curves[0].n, 5); /* 3 to 48 KiB, read first */
    release_run(&r);
}

/* A read kernel that computes a wrong result on its second look: its curve dropped, read swept
 * again with the next kernel (and looked at again), said; the process goes on. */
static void test_second_look_wrong(void **state)
{
    (void)state;
#if !defined(__x86_64__)
    skip();
#endif
    /* The second look measures the points of a core's own caches: one must hold 6 KiB a thread. */
    rt_cache_info caches[8];
    const char *source;
    int nc = rt_cache_detect(caches, 8, &source), own = 0;
    for (int i = 0; i < nc; i++)
        own |= caches[i].shared_by <= rt_team_smt_width() && caches[i].size >= 6144;
    if (!own) {
        print_message("skipped: no cache of a core's own reported here (%s)\n", source);
        skip();
    }
    bw_run r;
    expect_read_fallback(paced_late,
                         "read kernel (avx2): computed a wrong result on its second look, at ",
                         " bytes per thread on 1 thread: read measured with sse instead", &r);
    assert_true(r.meas->revisited_points > 0);
    release_run(&r);
}

/* No read kernel that runs right: no level can be named; an error that says so, at once (nothing
 * else swept), and no crash. */
static void test_no_read(void **state)
{
    (void)state;
#if !defined(__x86_64__)
    skip();
#endif
    rt_bw_kernel extra[] = {{RT_BW_READ, RT_ISA_SCALAR, ud2_bw}};
    table t = table_of(1u << RT_BW_READ, extra, 1);
    bw_run r;
    levels_with(&t, &r);
    assert_int_equal(r.rc, -1);
    assert_string_equal(r.err.msg,
                        "bandwidth: no read kernel ran right (see the skipped lines): no "
                        "memory level can be named");
    expect_line(&r.sk, "read kernel (scalar): the trial run raised SIGILL", ": read not measured");
    assert_int_equal(r.meas->n_curves, 0);
    release_run(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choice),      cmocka_unit_test(test_trial_faults),
        cmocka_unit_test(test_sweep_wrong), cmocka_unit_test(test_second_look_wrong),
        cmocka_unit_test(test_no_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
