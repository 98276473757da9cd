/* Measuring an NVIDIA GPU: FLOP/s per precision and Tensor Cores, bandwidth per level, launch
 * overhead four ways; a machine for the model plus the details in a typed report. */
#ifndef ROOFTIME_PROBE_GPU_MEASURE_H
#define ROOFTIME_PROBE_GPU_MEASURE_H

#include <stddef.h>

#include "rooftime/core/machine.h"
#include "rooftime/probe/measure-machine.h"
#include "rooftime/probe/measure-plateau.h"
#include "rooftime/util/error.h"

/* The four definitions of the launch overhead. */
typedef enum rt_gpu_tau {
    RT_GPU_TAU_PAPER = 0, /* empty <<<1,1>>> kernel between two events, synchronized per launch */
    RT_GPU_TAU_ASYNC,     /* back-to-back asynchronous launches: device time per launch */
    RT_GPU_TAU_CPU,       /* host time spent inside cuLaunchKernel */
    RT_GPU_TAU_GRAPH,     /* per kernel node of a CUDA graph */
    RT_GPU_TAU_COUNT
} rt_gpu_tau;

/* "paper", "async", "cpu", "graph"; -1 with 'unknown launch-overhead definition' otherwise. */
int rt_gpu_tau_parse(const char *s, rt_gpu_tau *out, rt_error *err);
const char *rt_gpu_tau_name(rt_gpu_tau t);

typedef struct rt_gpu_opts {
    int device;     /* CUDA device ordinal */
    int quick;      /* under 30 s */
    rt_gpu_tau tau; /* which definition is the model's tau */
    rt_progress_fn progress;
    void *progress_ctx;
} rt_gpu_opts;

typedef struct rt_gpu_stat {
    double median, min, max;
} rt_gpu_stat;

/* One compute ceiling as measured. */
typedef struct rt_gpu_compute {
    char unit[24];      /* fp64 fp32 fp16 bf16 tensor tensor_bf16 tensor_tf32 ... */
    char kernel[24];    /* kernel name in data/gpu/ */
    char instr[80];     /* the instruction it times */
    rt_gpu_stat flops;  /* FLOP/s over the trials */
    double theoretical; /* SMs x clock x rate at the higher of the rated and measured clocks */
    double clock_hz;    /* SM clock during the runs (median) */
    int trials;
} rt_gpu_compute;

/* One bandwidth kernel. */
typedef struct rt_gpu_bw {
    char name[24]; /* shared, l1_read, l2_read, l2_rmw, hbm_read, hbm_rmw */
    char level[8]; /* L1, L2, HBM */
    char kernel[24];
    double working_set; /* bytes */
    rt_gpu_stat bw;     /* bytes/s, read + written */
    double theoretical; /* 0 when unknown */
    double clock_hz;
} rt_gpu_bw;

typedef struct rt_gpu_overhead {
    char label[16]; /* paper, async, cpu, graph */
    char method[256];
    rt_gpu_stat seconds;
    long launches; /* kernel launches timed in all */
} rt_gpu_overhead;

/* A bandwidth-versus-working-set curve and the plateaus found on it. */
typedef struct rt_gpu_curve {
    char kind[8]; /* read, rmw */
    char kernel[24];
    size_t n;
    double *bytes, *bw, *min, *max; /* per point */
    rt_plateau plateau[2];          /* L2, then HBM (named DRAM by the detector) */
} rt_gpu_curve;

typedef struct rt_gpu_report {
    char device[128];
    int index, cc_major, cc_minor, sms;
    double clock_hz;        /* rated maximum SM clock (cuDeviceGetAttribute) */
    double mem_clock_hz;    /* memory clock */
    double bus_width_bits;  /* memory bus */
    double hbm_theoretical; /* 2 x memory clock x bus width / 8 */
    double l2_bytes, mem_bytes;
    int driver_version;
    char nvrtc[600]; /* "13.0 (/path)" */
    char arch[32];   /* "Hopper", or "" when architectures.json has no entry */
    rt_gpu_compute compute[16];
    size_t n_compute;
    rt_gpu_bw bw[8];
    size_t n_bw;
    rt_gpu_overhead overhead[RT_GPU_TAU_COUNT];
    rt_gpu_tau tau;
    rt_gpu_curve curve[2];
    int quick;
    double seconds; /* wall time of the whole run */
} rt_gpu_report;

void rt_gpu_report_release(rt_gpu_report *r);

/*
 * Measure GPU opts->device (opts may be NULL: device 0, full run, the paper's tau). On success
 * *out is a new machine (source "measured"; units from fp64 to tensor_fp8 as the GPU has them,
 * each with its theoretical figure; levels L1, L2, HBM; tau per opts->tau) and *report holds
 * every figure behind it. What the GPU lacks is added to `skipped` (may be NULL). -1 with err
 * naming what is missing (driver, GPU, NVRTC, kernel sources) or what went wrong: a CUDA call
 * that failed, a kernel that computed a wrong result, a figure above its theoretical peak.
 */
int rt_gpu_measure(const rt_gpu_opts *opts, rt_machine **out, rt_gpu_report *report,
                   rt_warnings *skipped, rt_error *err);

/* The kernel sources of data/gpu/ (NULL-terminated names, "fma.cu" ...), and one of them with the
 * shared prelude in front, ready for NVRTC (malloc'd; NULL with err when unreadable). */
extern const char *const rt_gpu_kernel_sources[];
char *rt_gpu_kernel_source(const char *name, rt_error *err);

#endif
