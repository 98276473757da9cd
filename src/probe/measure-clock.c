/* Core clock estimate from dependent register-to-register instruction chains timed by the monotonic
 * clock. */
#include <math.h>
#include <stdint.h>

#include "measure-internal.h"
#include "rooftime/util/clock.h"

#define RT_X10(s) s s s s s s s s s s
#define RT_X100(s) RT_X10(RT_X10(s))

/*
 * Why register operands: recent Intel cores fold `add reg, imm` chains at
 * rename, so such a chain retires several per cycle and reads several times
 * too fast. `add reg, reg` (1 cycle) and `imul reg, reg` (3 cycles) each wait
 * for the previous result on every x86-64 core we know.
 */
static double chain_seconds(long iters, int imul)
{
    uint64_t a = 1, b = 3;
    double t0 = rt_now();
#if defined(__x86_64__)
    if (imul)
        for (long i = 0; i < iters; i++)
            __asm__ volatile(RT_X100("imul %1, %0\n\t") : "+r"(a) : "r"(b));
    else
        for (long i = 0; i < iters; i++)
            __asm__ volatile(RT_X100("add %1, %0\n\t") : "+r"(a) : "r"(b));
#else
    (void)imul;
    for (long i = 0; i < iters; i++)
        __asm__ volatile("" : "+r"(a) : "r"(b));
#endif
    return rt_now() - t0;
}

/*
 * A chain's wall time, run up to three times while another process took
 * the core during it (thread CPU time below 99% of wall time): the fastest
 * such run is kept.
 */
static double undisturbed_seconds(long iters, int imul)
{
    double best = INFINITY;
    for (int attempt = 0; attempt < 3; attempt++) {
        double c0 = rt_thread_cpu_now();
        double w = chain_seconds(iters, imul);
        double c = rt_thread_cpu_now() - c0;
        best = fmin(best, w);
        if (c >= 0.99 * w)
            break;
    }
    return best;
}

/* Iterations that make one trial of a chain last about `seconds`. */
static long calibrate(double seconds, int imul)
{
    long iters = 10000;
    double t = chain_seconds(iters, imul);
    while (t < seconds / 4 && iters < (1L << 40)) {
        iters *= 4;
        t = chain_seconds(iters, imul);
    }
    return (long)((double)iters * seconds / (t > 0 ? t : 1e-9)) + 1;
}

rt_stat rt_measure_clock(int trials, double seconds, rt_stat *imul_hz)
{
    /* Warm-up: an idle core (or a VM's host) takes a while to reach its working clock. */
    double t0 = rt_now();
    while (rt_now() - t0 < 2 * seconds)
        chain_seconds(10000, 0);
    long ia = calibrate(seconds, 0), im = calibrate(seconds, 1);
    double va[64], vm[64];
    if (trials > 64)
        trials = 64;
    if (trials < 1)
        trials = 1;
    /* Interleaved, so a clock change during the run affects both estimates alike. */
    for (int i = 0; i < trials; i++) {
        va[i] = 100.0 * (double)ia / undisturbed_seconds(ia, 0);
        vm[i] = 300.0 * (double)im / undisturbed_seconds(im, 1);
    }
    if (imul_hz)
        *imul_hz = rt_stat_of(vm, (size_t)trials);
    return rt_stat_of(va, (size_t)trials);
}
