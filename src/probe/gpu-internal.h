/* Private to the GPU probe: one opened GPU and the pieces of the measurement that use it
 * (gpu-context.c, gpu-kernels.c, gpu-overhead.c; driven by gpu-measure.c). */
#ifndef ROOFTIME_PROBE_GPU_INTERNAL_H
#define ROOFTIME_PROBE_GPU_INTERNAL_H

#include <stddef.h>

#include "rooftime/core/gpu-arch.h"
#include "rooftime/core/gpu-measurement.h"
#include "rooftime/probe/gpu-driver.h"
#include "rooftime/probe/gpu-measure.h"

#define BLOCK 256
#define MAX_TRIALS 9

/* Handles of the kernel modules: indexes into rt_gpu_modules (gpu-modules.c), whose rows say
 * what each holds. MOD_WGMMA is compiled only for the generations whose entry in
 * data/gpu/architectures.json names wgmma (sm_90, as sm_90a); elsewhere (or when NVRTC cannot) it
 * stays unloaded and g->absent[MOD_WGMMA] says why. MOD_CONV is on demand: rt_gpu_open leaves it
 * to gpu-conv.c. */
enum { MOD_FMA, MOD_MMA, MOD_MEM, MOD_LAUNCH, MOD_WGMMA, MOD_CONV, N_MODS };

typedef struct rt_gpu_probe {
    rt_cuda cu;
    rt_nvrtc nv;
    rt_cu_device dev;
    rt_cu_context ctx;
    int have_ctx;
    rt_cu_stream s;
    rt_cu_event e0, e1;
    rt_cu_module mod[N_MODS];
    rt_cu_ptr meta, out, buf;
    size_t buf_bytes, out_floats;
    int sm, sms;
    double clock_hz;
    const rt_gpu_arch *arch;  /* sm's entry in architectures.json (its rates), or NULL */
    const rt_gpu_arch *gen;   /* its generation (the entry, else the nearest below), or NULL */
    char absent[N_MODS][320]; /* why a module stays unloaded */
    rt_error *err;
} rt_gpu_probe;

/* gpu-context.c: open (driver, device figures into r, the GPU's generation in archs (may be
 * NULL), NVRTC, context, the modules its generation runs) and close. */
int rt_gpu_open(rt_gpu_probe *g, int index, const rt_gpu_archs *archs, rt_gpu_measurement *r,
                rt_error *err);
void rt_gpu_close(rt_gpu_probe *g);
/* 0 on success, else -1 with g->err naming `what` and the driver's message. */
int rt_gpu_ck(rt_gpu_probe *g, rt_cu_result rc, const char *what);
int rt_gpu_get_fn(rt_gpu_probe *g, int mod, const char *name, rt_cu_function *f);
/* Blocks of BLOCK threads that fill every SM once (one wave). */
int rt_gpu_one_wave(rt_gpu_probe *g, rt_cu_function f, size_t smem, unsigned *grid);
/* The same for blocks of `block` threads. */
int rt_gpu_one_wave_of(rt_gpu_probe *g, rt_cu_function f, unsigned block, size_t smem,
                       unsigned *grid);
/* Launch once between the two events and wait; seconds of device time; meta copied to host. */
int rt_gpu_timed(rt_gpu_probe *g, rt_cu_function f, unsigned grid, unsigned smem, void **params,
                 double *sec, double meta[4]);
/* The same for blocks of `block` threads. */
int rt_gpu_timed_of(rt_gpu_probe *g, rt_cu_function f, unsigned grid, unsigned block, unsigned smem,
                    void **params, double *sec, double meta[4]);
/* Median, min and max of v (sorted in place). */
rt_spread rt_gpu_stat_of(double *v, int n);
/* The SM clock a kernel saw: clock64 ticks over globaltimer nanoseconds in meta[2], meta[3]. */
double rt_gpu_clock_of(const double meta[4]);

typedef struct rt_gpu_progress_t {
    const rt_gpu_opts *o;
    const char *stage;
    double lo, hi;
} rt_gpu_progress_t;
void rt_gpu_progress(rt_gpu_progress_t *p, double f);
void rt_gpu_stage(rt_gpu_progress_t *p, const char *name, double lo, double hi);

/* gpu-kernels.c */
/* A compute kernel: the instruction family it times ("fma", "mma.sync", "wgmma": the names of
 * architectures.json's tensor_instruction and timed_by), its input type (fp64 ... fp8), its name
 * and instruction, its module; block: threads per block (0: BLOCK). Which unit it measures is the
 * generation's to say (rt_gpu_unit_of). */
typedef struct rt_gpu_compute_kernel {
    const char *family, *type, *kernel, *instr;
    int mod;
    unsigned block;
} rt_gpu_compute_kernel;
extern const rt_gpu_compute_kernel rt_gpu_compute_kernels[];
extern const size_t rt_gpu_n_compute;
/* The unit kernel k measures on generation gen, into unit (n bytes): 1, or 0 when it is not run
 * there. The FMA kernels measure the vector unit of their type; a Tensor Core kernel measures
 * tensor_<type> where gen says its family reaches that ceiling, an mma.sync kernel mma_<type>
 * elsewhere; no generation (gen NULL): the vector units only. */
int rt_gpu_unit_of(const rt_gpu_compute_kernel *k, const rt_gpu_arch *gen, char *unit, size_t n);
/* The Tensor Core ceilings of gen that no kernel times (their family has no kernel of their type
 * here: tcgen05.mma, an FP4 mma.sync), one warning per family into w. */
void rt_gpu_untimed(const rt_gpu_arch *gen, int sm, rt_warnings *w);
/* gpu-selfcheck.c: the quantity (data/ncu/metrics.json's name, "flops.tensor_fp16") under which
 * the self-check expects the work of kernel k, measuring `unit` on generation gen, into q. */
void rt_gpu_selfcheck_quantity(const rt_gpu_compute_kernel *k, const char *unit,
                               const rt_gpu_arch *gen, char *q, size_t n);

typedef enum { BW_READ, BW_READ_L2, BW_RMW } rt_gpu_bw_kind;
extern const char *const rt_gpu_bw_kernels[];

/* The FMA kernels' operands b and c: each thread iterates x = b x + c, which converges to
 * c / (1 - b). */
#define RT_GPU_FMA_B 0.75f
#define RT_GPU_FMA_C 0.25f

/* Whether compute kernel k's first output out0, after `iters` iterations whose device-side
 * figures are meta, is the value its instructions compute; *want gets that value. */
int rt_gpu_result_ok(const rt_gpu_compute_kernel *k, int iters, const double meta[4], float out0,
                     double *want);

/* One unit's FLOP/s over `trials` runs of about `target` seconds; *absent 1 when the instruction
 * does not exist on this GPU, 2 when the figure is rejected (a wrong result, or a figure above
 * the theoretical peak: why says which; the context is intact, the next unit can run). -1 on a
 * driver error. */
int rt_gpu_run_compute(rt_gpu_probe *g, const rt_gpu_compute_kernel *k, const rt_gpu_arch *arch,
                       int trials, double target, rt_gpu_compute *res, int *absent, char *why,
                       size_t why_n);
/* Stream `ws` bytes per rep; bytes/s over the trials (RMW counts both ways). */
int rt_gpu_run_bw(rt_gpu_probe *g, rt_gpu_bw_kind kind, double ws, int trials, double target,
                  rt_spread *st, double *clock, double *ws_used);
/* L1 hits: 16 KB per block, at most max_per_sm blocks per SM. */
int rt_gpu_run_l1(rt_gpu_probe *g, int max_per_sm, int trials, double target, rt_spread *st,
                  double *clock, double *ws);
int rt_gpu_run_shared(rt_gpu_probe *g, int trials, double target, rt_spread *st, double *clock);
/* A bandwidth curve from lo to hi bytes in steps of `step`; progress from f0 to f1. */
int rt_gpu_run_sweep(rt_gpu_probe *g, rt_gpu_curve *c, rt_gpu_bw_kind kind, double lo, double hi,
                     double step, int trials, double target, rt_gpu_progress_t *p, double f0,
                     double f1);

/* gpu-overhead.c: the four definitions, `n` launches over `trials` trials. */
int rt_gpu_overhead_paper(rt_gpu_probe *g, rt_cu_function f, long n, int trials,
                          rt_gpu_overhead *o);
int rt_gpu_overhead_async(rt_gpu_probe *g, rt_cu_function f, long n, int trials,
                          rt_gpu_overhead *o);
int rt_gpu_overhead_cpu(rt_gpu_probe *g, rt_cu_function f, long n, int trials, rt_gpu_overhead *o);
int rt_gpu_overhead_graph(rt_gpu_probe *g, rt_cu_function f, int small, int big, int trials,
                          rt_gpu_overhead *o);

#endif
