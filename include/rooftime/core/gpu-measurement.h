/* How a GPU was measured (gpu-measurement.c): the typed record `machine measure --gpu` fills and
 * formats/ writes as the "gpu" member of the machine file. The model reads none of it: the units,
 * levels and launch overheads it found are in the machine itself. */
#ifndef ROOFTIME_CORE_GPU_MEASUREMENT_H
#define ROOFTIME_CORE_GPU_MEASUREMENT_H

#include <stddef.h>

#include "rooftime/core/measurement.h"
#include "rooftime/util/error.h"

/* The four definitions of a GPU's launch overhead. */
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
/* The name of that definition in a machine's `overheads` ("cuda_empty_kernel_event" ...). */
const char *rt_gpu_tau_overhead_name(rt_gpu_tau t);

/* One compute ceiling as measured. */
typedef struct rt_gpu_compute {
    char unit[24];      /* fp64 fp32 fp16 bf16 tensor tensor_bf16 tensor_tf32 ... */
    char kernel[24];    /* kernel name in data/gpu/ */
    char instr[80];     /* the instruction it times */
    rt_spread flops;    /* FLOP/s over the trials */
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
    rt_spread bw;       /* bytes/s, read + written */
    double theoretical; /* 0 when unknown */
    double clock_hz;
} rt_gpu_bw;

typedef struct rt_gpu_overhead {
    char label[16]; /* paper, async, cpu, graph */
    char method[256];
    rt_spread seconds;
    long launches; /* kernel launches timed in all */
} rt_gpu_overhead;

/* A plateau found (or not) on a sweep. */
typedef struct rt_gpu_plateau {
    char name[8]; /* L2, HBM */
    int found;
    rt_spread bw;
    double from_bytes, to_bytes;
    int points;
    char note[200];
} rt_gpu_plateau;

/* A bandwidth-versus-working-set curve and the plateaus found on it. */
typedef struct rt_gpu_curve {
    char kind[8]; /* read, rmw */
    char kernel[24];
    size_t n;
    double *bytes, *bw, *min, *max; /* per point */
    rt_gpu_plateau plateau[2];      /* L2, then HBM */
} rt_gpu_curve;

typedef struct rt_gpu_measurement {
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
} rt_gpu_measurement;

rt_gpu_measurement *rt_gpu_measurement_new(void);
void rt_gpu_measurement_free(rt_gpu_measurement *g);

#endif
