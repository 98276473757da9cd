/* Tests of the guarded run (guarded-run.c) and the compute kernels' trial run: a kernel that faults
 * is reported with its signal and left out of the measurement, the others measured. Under ASan the
 * SIGSEGV case also shows the child replacing AddressSanitizer's handler with its own. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "faults.h"
#include "measure-internal.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime-config.h"
#include "testutil.h"

static int ud2_kernel(long iters)
{
    (void)iters;
    fault_sigill();
    return 0;
}

static int segv_kernel(long iters)
{
    fault_sigsegv((char)iters);
    return 0;
}

static int bus_kernel(long iters)
{
    (void)iters;
    raise(SIGBUS);
    return 0;
}

static int fpe_kernel(long iters)
{
    (void)iters;
    raise(SIGFPE);
    return 0;
}

static int wrong_kernel(long iters)
{
    (void)iters;
    return -1;
}

static int endless_kernel(long iters)
{
    (void)iters;
    for (;;)
        pause();
    return 0;
}

static int abort_kernel(long iters)
{
    (void)iters;
    _exit(7);
}

static bool always(const rt_cpu_info *c)
{
    (void)c;
    return true;
}

/* The build's fp64 SSE2 kernel, a good one on every x86-64 CPU. */
static const rt_flops_kernel *good_kernel(void)
{
    size_t nk;
    const rt_flops_kernel *ks = rt_flops_kernels(&nk);
    for (size_t i = 0; i < nk; i++)
        if (strcmp(ks[i].unit, "fp64") == 0 && ks[i].isa == RT_ISA_SSE)
            return &ks[i];
    return NULL;
}

static void expect_signal(int (*fn)(long), int sig)
{
    rt_guarded g;
    rt_error err;
    assert_int_equal(rt_guarded_run(fn, 100, 10, &g, &err), 0);
    assert_int_equal(g.end, RT_GUARD_SIGNAL);
    assert_int_equal(g.value, sig);
    char how[64];
    rt_guarded_describe(&g, 10, how, sizeof how);
    char want[64];
    snprintf(want, sizeof want, "raised %s", rt_signal_name(sig));
    assert_string_equal(how, want);
}

/* Each fatal signal is reported as itself, and this process goes on; a good kernel passes, a
 * wrong one says so, an endless one is stopped at its time, another exit status is given. */
static void test_guard(void **state)
{
    (void)state;
#if !defined(__x86_64__)
    skip();
#endif
    expect_signal(ud2_kernel, SIGILL);
    expect_signal(segv_kernel, SIGSEGV);
    expect_signal(bus_kernel, SIGBUS);
    expect_signal(fpe_kernel, SIGFPE);
    rt_guarded g;
    rt_error err;
    char how[64];
    assert_int_equal(rt_guarded_run(good_kernel()->run, 1000, 10, &g, &err), 0);
    assert_int_equal(g.end, RT_GUARD_RETURNED);
    assert_int_equal(g.value, 0);
    assert_int_equal(rt_guarded_run(wrong_kernel, 1, 10, &g, &err), 0);
    assert_int_equal(g.end, RT_GUARD_RETURNED);
    assert_int_equal(g.value, 1);
    assert_int_equal(rt_guarded_run(endless_kernel, 1, 0.2, &g, &err), 0);
    assert_int_equal(g.end, RT_GUARD_TIMEOUT);
    rt_guarded_describe(&g, 0.2, how, sizeof how);
    assert_string_equal(how, "did not end within 0.2 s");
    assert_int_equal(rt_guarded_run(abort_kernel, 1, 10, &g, &err), 0);
    assert_int_equal(g.end, RT_GUARD_EXIT);
    assert_int_equal(g.value, 7);
    /* The caller's handlers are untouched: cmocka's own SIGILL handler is still in place. */
    struct sigaction now;
    assert_int_equal(sigaction(SIGILL, NULL, &now), 0);
    assert_true(now.sa_handler != SIG_DFL);
}

/* The real amx_bf16 kernel on a CPU without AMX: its first tile instruction is SIGILL. */
static void test_amx_without_amx(void **state)
{
    (void)state;
#ifndef RT_HAVE_AMX_KERNELS
    print_message("skipped: this build has no AMX kernels\n");
    skip();
#else
    rt_cpu_info c;
    rt_cpu_detect(&c);
    if (c.amx_cpu) {
        print_message("skipped: this CPU has AMX (test-cpu-dispatch runs its kernels)\n");
        skip();
    }
    size_t nk;
    const rt_flops_kernel *ks = rt_flops_kernels(&nk);
    const rt_flops_kernel *amx = NULL;
    for (size_t i = 0; i < nk; i++)
        if (strcmp(ks[i].unit, "amx_bf16") == 0)
            amx = &ks[i];
    assert_non_null(amx);
    expect_signal(amx->run, SIGILL);
#endif
}

/* One run of the compute stage: the record, each unit's best kernel, the skipped lines. */
typedef struct stage_run {
    rt_measurement *meas;
    rt_unit_result best[RT_N_UNITS];
    rt_warnings sk;
} stage_run;

/* The compute stage with the kernels kt[0..n) on one thread (two: also on two), into r (released
 * by release_run). */
static void measure_on(const rt_flops_kernel *kt, size_t n, bool quick, int threads, stage_run *r)
{
    rt_cpu_info c;
    rt_cpu_detect(&c);
    rt_compute_plan pl = {2, 0.002, quick, kt, n};
    int tcounts[] = {1, 2};
    rt_run_progress pr = {NULL, NULL, "", 0, 1};
    *r = (stage_run){.meas = rt_measurement_new()};
    rt_measure_compute(&pl, &c, RT_ISA_AMX, tcounts, threads, &pr, r->meas, r->best, &r->sk);
}

static void measure(const rt_flops_kernel *kt, size_t n, bool quick, stage_run *r)
{
    measure_on(kt, n, quick, 1, r);
}

static void release_run(stage_run *r)
{
    rt_warnings_release(&r->sk);
    rt_measurement_free(r->meas);
}

/* That the run left one line in skipped: `line`. */
static void expect_only(const stage_run *r, const char *line)
{
    assert_int_equal(r->sk.n, 1);
    assert_string_equal(r->sk.msg[0], line);
}

/* That the run measured kernel k alone, at one thread count: unit u (rt_unit_order) from it, unit
 * gone without a figure. */
static void expect_alone(const stage_run *r, const rt_flops_kernel *k, int u, int gone)
{
    assert_int_equal(r->meas->n_peaks, 1);
    assert_string_equal(r->meas->peaks[0].unit, k->unit);
    assert_true(r->meas->peaks[0].ceiling > 0);
    assert_true(r->best[u].have && r->best[u].k == k);
    assert_false(r->best[gone].have);
}

/* A kernel whose trial faults is a unit left out with its line; the other unit is measured. */
static void test_measure_skips(void **state)
{
    (void)state;
#if !defined(__x86_64__)
    skip();
#endif
    rt_flops_kernel kt[2] = {*good_kernel(), {"fp32", RT_ISA_SSE, "ud2", 4, 1, always, ud2_kernel}};
    stage_run r;
    measure(kt, 2, false, &r);
    expect_only(&r, "fp32 (sse, ud2): the trial run raised SIGILL although CPUID "
                    "lists the instruction set: not measured");
    expect_alone(&r, &kt[0], 0, 1); /* fp64, not fp32 */
    release_run(&r);
}

/* --quick measures a unit's best ISA whose trial passed: a faulting higher one falls back. */
static void test_quick_falls_back(void **state)
{
    (void)state;
#if !defined(__x86_64__)
    skip();
#endif
    rt_flops_kernel kt[2] = {*good_kernel(),
                             {"fp64", RT_ISA_AVX2, "vfmadd231pd ymm", 8, 1, always, ud2_kernel}};
    stage_run r;
    measure(kt, 2, true, &r);
    assert_int_equal(r.sk.n, 1);
    assert_non_null(
        strstr(r.sk.msg[0], "fp64 (avx2, vfmadd231pd ymm): the trial run raised SIGILL"));
    assert_int_equal(r.meas->n_peaks, 1);
    assert_string_equal(r.meas->peaks[0].isa, "sse");
    assert_true(r.best[0].have && r.best[0].k == &kt[0]);
    release_run(&r);
}

/* A kernel whose trial computes a wrong result is a unit left out with its line, as one that
 * faults; the measurement goes on. */
static void test_measure_wrong(void **state)
{
    (void)state;
    rt_flops_kernel kt[2] = {{"fp64", RT_ISA_SCALAR, "wrong", 2, 1, always, wrong_kernel},
                             *good_kernel()};
    kt[1].unit = "fp32"; /* the good kernel measured as another unit */
    stage_run r;
    measure(kt, 2, false, &r);
    expect_only(&r, "fp64 (scalar, wrong): the trial run computed a wrong result: not measured");
    expect_alone(&r, &kt[1], 1, 0); /* fp32, not fp64 */
    release_run(&r);
}

#ifdef RT_HAVE_OPENMP
static pthread_t main_thread;

/* Right on the thread that runs the trial and the one-thread measurement (the child's copy of it
 * is the same thread), wrong on a team's other threads: a kernel wrong only at two threads. */
static int wrong_on_workers(long iters)
{
    volatile double x = 0;
    for (long i = 0; i < iters * 100; i++)
        x += 1;
    return pthread_equal(pthread_self(), main_thread) ? 0 : -1;
}

/* A kernel right in its trial and at one thread but wrong at two: left out whole, its one-thread
 * figure dropped from the record, with its line; the next kernel measured. */
static void test_measure_wrong_later(void **state)
{
    (void)state;
    main_thread = pthread_self();
    rt_flops_kernel kt[2] = {{"fp32", RT_ISA_SCALAR, "workers", 2, 1, always, wrong_on_workers},
                             *good_kernel()};
    stage_run r;
    measure_on(kt, 2, false, 2, &r);
    expect_only(&r, "fp32 (scalar, workers): computed a wrong result on 2 threads: not measured");
    assert_int_equal(r.meas->n_peaks, 2); /* the good kernel at 1 and 2 threads */
    for (size_t i = 0; i < r.meas->n_peaks; i++)
        assert_string_equal(r.meas->peaks[i].unit, "fp64");
    assert_true(r.best[0].have && r.best[0].k == &kt[1]);
    assert_false(r.best[1].have);
    release_run(&r);
}

/* --quick measures a unit's best ISA only: when that kernel computes a wrong result on a second
 * thread, the unit falls back to its next ISA whose trial passed, and the line says so. */
static void test_quick_wrong_later(void **state)
{
    (void)state;
    main_thread = pthread_self();
    rt_flops_kernel kt[2] = {*good_kernel(),
                             {"fp64", RT_ISA_AVX2, "workers", 2, 1, always, wrong_on_workers}};
    stage_run r;
    measure_on(kt, 2, true, 2, &r);
    expect_only(&r, "fp64 (avx2, workers): computed a wrong result on 2 threads: "
                    "not measured; --quick measures fp64 with sse (mulpd+addpd "
                    "xmm) instead");
    assert_int_equal(r.meas->n_peaks, 2); /* the SSE kernel at 1 and 2 threads */
    for (size_t i = 0; i < r.meas->n_peaks; i++)
        assert_string_equal(r.meas->peaks[i].isa, "sse");
    assert_true(r.best[0].have && r.best[0].k == &kt[0]);
    release_run(&r);
}
#else
static void test_measure_wrong_later(void **state)
{
    (void)state;
    print_message("skipped: a build without OpenMP measures on one thread\n");
    skip();
}

static void test_quick_wrong_later(void **state)
{
    test_measure_wrong_later(state);
}
#endif

/* Whether flag_kernel has run in this process (a trial runs in a child, which leaves it unset). */
static bool flagged;

/* The good kernel, which says it ran. */
static int flag_kernel(long iters)
{
    flagged = true;
    return good_kernel()->run(iters);
}

/* Right until flag_kernel has run here, wrong after; each run sleeps a millisecond, so its thread
 * loses the CPU and every trial reads disturbed (no clean trial: the second look measures it
 * again). Measured before flag_kernel, it is right in its trial and its measurement, and wrong on
 * its second look. */
static int late_kernel(long iters)
{
    (void)iters;
    if (flagged)
        return -1;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
    return 0;
}

/* A kernel that computes a wrong result on its second look is a unit left out with its line, its
 * figures dropped, as at its first; the measurement goes on. */
static void test_second_look_wrong(void **state)
{
    (void)state;
    flagged = false;
    rt_flops_kernel kt[2] = {{"fp32", RT_ISA_SCALAR, "late", 2, 1, always, late_kernel},
                             {"fp64", RT_ISA_SSE, "flag", 2, 2, always, flag_kernel}};
    stage_run r;
    measure(kt, 2, false, &r);
    expect_only(&r, "fp32 (scalar, late): computed a wrong result on its second "
                    "look (1 thread): not measured");
    expect_alone(&r, &kt[1], 0, 1); /* fp64, not fp32 */
    release_run(&r);
}

/* Under --quick a kernel wrong on its second look leaves its unit to the next ISA whose trial
 * passed, measured then (and looked at again in its turn). */
static void test_quick_second_look_wrong(void **state)
{
    (void)state;
    flagged = false;
    rt_flops_kernel kt[3] = {*good_kernel(),
                             {"fp64", RT_ISA_AVX2, "late", 2, 1, always, late_kernel},
                             {"fp32", RT_ISA_SSE, "flag", 2, 2, always, flag_kernel}};
    stage_run r;
    measure(kt, 3, true, &r);
    expect_only(&r, "fp64 (avx2, late): computed a wrong result on its second look "
                    "(1 thread): not measured; --quick measures fp64 with sse "
                    "(mulpd+addpd xmm) instead");
    assert_int_equal(r.meas->n_peaks, 2); /* flag, then the fallback */
    assert_string_equal(r.meas->peaks[0].unit, "fp32");
    assert_string_equal(r.meas->peaks[1].unit, "fp64");
    assert_string_equal(r.meas->peaks[1].isa, "sse");
    assert_true(r.best[0].have && r.best[0].k == &kt[0]);
    assert_true(r.best[1].have && r.best[1].k == &kt[2]);
    release_run(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guard),
        cmocka_unit_test(test_amx_without_amx),
        cmocka_unit_test(test_measure_skips),
        cmocka_unit_test(test_quick_falls_back),
        cmocka_unit_test(test_measure_wrong),
        cmocka_unit_test(test_measure_wrong_later),
        cmocka_unit_test(test_quick_wrong_later),
        cmocka_unit_test(test_second_look_wrong),
        cmocka_unit_test(test_quick_second_look_wrong),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
