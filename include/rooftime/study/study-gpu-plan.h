/* The GPU study's planner (study-gpu-plan.c): which client processes run (framework x operation x
 * precision x variant), over which sweep points and passes, with how many iterations in the trace
 * run and in the counter run, and the plan file each client reads (rooftime-study-gpu-plan/1). */
#ifndef ROOFTIME_STUDY_STUDY_GPU_PLAN_H
#define ROOFTIME_STUDY_STUDY_GPU_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/study/study-gpu-check.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/util/error.h"

#define RT_STUDY_GPU_PLAN_FORMAT "rooftime-study-gpu-plan/1"

/* The GPU precisions: fp32 (TF32 off), tf32, fp16 and bf16 (AMP autocast, or JAX's casts). */
typedef enum rt_gpu_prec {
    RT_GPU_FP32 = 0,
    RT_GPU_TF32 = 1,
    RT_GPU_FP16 = 2,
    RT_GPU_BF16 = 3,
    RT_GPU_PREC_COUNT
} rt_gpu_prec;

typedef enum rt_gpu_framework {
    RT_GPU_PYTORCH = 0,
    RT_GPU_JAX = 1,
    RT_GPU_FW_COUNT
} rt_gpu_framework;

const char *rt_gpu_prec_name(rt_gpu_prec p);
int rt_gpu_prec_parse(const char *s, rt_gpu_prec *out, rt_error *err);
const char *rt_gpu_framework_name(rt_gpu_framework f);
int rt_gpu_framework_parse(const char *s, rt_gpu_framework *out, rt_error *err);

typedef struct rt_study_gpu_opts {
    bool quick;
    double scale; /* 1: the paper's shapes */
    int device;
    int warmup, iters; /* < 0: the study's (5 and 20; quick 1 and 3) */
    bool ops[RT_OP_COUNT];
    bool frameworks[RT_GPU_FW_COUNT];
    bool precisions[RT_GPU_PREC_COUNT];
    const char *check_dir; /* where the clients write their check outputs; NULL: no check */
} rt_study_gpu_opts;

/* Everything selected, the paper's shapes, device 0, no check directory. */
void rt_study_gpu_opts_init(rt_study_gpu_opts *o);

/* One client process: one framework x operation x precision x variant, every point and pass. */
typedef struct rt_study_gpu_plan {
    char name[96]; /* "pytorch-conv2d-fp16-channels_last": the stem of its files */
    rt_gpu_framework framework;
    rt_study_op op;
    rt_gpu_prec precision;
    const char *variant; /* "", "channels_last", "graphs", "jit" */
    const rt_pass *passes;
    size_t n_passes;
    rt_study_point *points; /* owned */
    size_t n_points;
    int warmup, iters;     /* the trace run: every measured iteration timed */
    int c_warmup, c_iters; /* the counter run: the iterations whose counters are sampled */
    bool check;            /* the plan carries the correctness check points */
} rt_study_gpu_plan;

/* The plans of o, in the order they run (pytorch before jax, conv2d before lstm, then precision
 * and variant). -1 with err when nothing is selected or a shape is invalid. */
int rt_study_gpu_plans(const rt_study_gpu_opts *o, rt_study_gpu_plan **out, size_t *n,
                       rt_error *err);
void rt_study_gpu_plans_free(rt_study_gpu_plan *p, size_t n);

/* The check points (small shapes: every kernel size and stride of the sweeps). */
const rt_study_gpu_check_point *rt_study_gpu_check_points(size_t *n);

/* The plan file (JSON text, malloc'd) of p: the trace run's (counters false) or the counter
 * run's. point_index >= 0 keeps that point and the forward pass only, and no check (the ncu
 * cross-check). */
char *rt_study_gpu_plan_json(const rt_study_gpu_plan *p, const rt_study_gpu_opts *o, bool counters,
                             long point_index);

/* The client script of a framework: "scripts/study-gpu-torch.py", "scripts/study-gpu-jax.py". */
const char *rt_study_gpu_script(rt_gpu_framework f);

#endif
