/* The study: Conv2D and LSTM run through several implementations, timed kernel by kernel. */
#ifndef ROOFTIME_STUDY_STUDY_H
#define ROOFTIME_STUDY_STUDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/error.h"

/* ---- shapes (study-shapes.c) ---- */

/* A 2-D convolution, NCHW input, KCRS weights, symmetric padding. */
typedef struct rt_conv_shape {
    long n, c, h, w; /* batch, input channels, input height and width */
    long k, r, s;    /* filters (output channels), kernel height and width */
    long stride, pad;
} rt_conv_shape;

/* Output height and width (valid only for a shape that passed rt_conv_shape_check). */
long rt_conv_out_h(const rt_conv_shape *s);
long rt_conv_out_w(const rt_conv_shape *s);
/* Sizes positive, kernel no larger than the padded input, padding smaller than the kernel. */
int rt_conv_shape_check(const rt_conv_shape *s, rt_error *err);

/* One LSTM layer, one direction, time-major input [seq][batch][features]. */
typedef struct rt_lstm_shape {
    long batch, seq, features, hidden;
} rt_lstm_shape;

int rt_lstm_shape_check(const rt_lstm_shape *s, rt_error *err);

typedef enum rt_study_op { RT_OP_CONV2D = 0, RT_OP_LSTM = 1, RT_OP_COUNT } rt_study_op;
typedef enum rt_precision {
    RT_PREC_FP32 = 0,
    RT_PREC_BF16 = 1,
    RT_PREC_FP16 = 2,
    RT_PREC_COUNT
} rt_precision;
/* Conv2D has forward, backward-data and backward-weights; the LSTM forward and backward. */
typedef enum rt_pass {
    RT_PASS_FWD = 0,
    RT_PASS_BWD_DATA = 1,
    RT_PASS_BWD_WEIGHTS = 2,
    RT_PASS_BWD = 3,
    RT_PASS_COUNT
} rt_pass;

const char *rt_study_op_name(rt_study_op op);
const char *rt_precision_name(rt_precision p);
const char *rt_pass_name(rt_pass p);
int rt_precision_parse(const char *s, rt_precision *out, rt_error *err);
int rt_study_op_parse(const char *s, rt_study_op *out, rt_error *err);

/* The implementations, by the name a user passes to --impl. */
typedef enum rt_study_impl {
    RT_IMPL_DIRECT = 0,  /* conv2d: direct loops in C, the correctness reference */
    RT_IMPL_IM2COL = 1,  /* conv2d: im2col/col2im + OpenBLAS sgemm */
    RT_IMPL_ONEDNN = 2,  /* conv2d and lstm: oneDNN primitives */
    RT_IMPL_UNFUSED = 3, /* lstm: per step GEMMs + elementwise kernels */
    RT_IMPL_PYTORCH = 4, /* conv2d and lstm: torch (scripts/torch-client.py), from its traces */
    RT_IMPL_COUNT
} rt_study_impl;

/* ---- the implementations, one table (study-impls.c) ---- */

typedef struct rt_study_case rt_study_case;
typedef int (*rt_conv_case_new)(const rt_conv_shape *s, rt_precision prec, rt_pass pass,
                                uint64_t seed, rt_study_case **out, rt_error *err);
typedef int (*rt_lstm_case_new)(const rt_lstm_shape *s, rt_precision prec, rt_pass pass,
                                uint64_t seed, rt_study_case **out, rt_error *err);

typedef struct rt_study_impl_info {
    const char *name;  /* as --impl takes it */
    const char *about; /* one line for --help */
    bool ops[RT_OP_COUNT];
    /* The passes it runs per op (NULL: the op's own passes). */
    const rt_pass *passes[RT_OP_COUNT];
    size_t n_passes[RT_OP_COUNT];
    bool precisions[RT_PREC_COUNT]; /* those it can run at all (others are skipped, noted) */
    const char *precision_note;     /* why the others are not run */
    rt_conv_case_new conv;          /* NULL: not run in process (an external client) or no conv2d */
    rt_lstm_case_new lstm;
    bool external;    /* runs in its own process (the PyTorch client), not as cases */
    bool reference;   /* its fp32 results are the correctness reference */
    bool timed_quick; /* timed by --quick too (the direct loops are not: too slow) */
} rt_study_impl_info;

const rt_study_impl_info *rt_study_impl_get(rt_study_impl i);
const char *rt_study_impl_name(rt_study_impl i);
int rt_study_impl_parse(const char *s, rt_study_impl *out, rt_error *err);
bool rt_study_impl_has_op(rt_study_impl i, rt_study_op op);
/* The passes implementation i runs for op. */
const rt_pass *rt_study_impl_passes(rt_study_impl i, rt_study_op op, size_t *n);
/* "direct, im2col, onednn, pytorch": the implementations that have op (RT_OP_COUNT: all of
 * them), joined into buf. */
void rt_study_impls_of(rt_study_op op, char *buf, size_t size);

/* The paper's defaults and sweeps (method.md section 4). */
rt_conv_shape rt_conv_default(void);
rt_lstm_shape rt_lstm_default(void);

/* One point of a sweep: the shape and the parameter varied from the default ("default" for it). */
typedef struct rt_study_point {
    rt_study_op op;
    rt_conv_shape conv;
    rt_lstm_shape lstm;
    const char *varied;
} rt_study_point;

/*
 * The distinct points of the sweeps of op, the default first, one parameter varied at a
 * time. quick keeps the default and the second value of each sweep. scale (0 < scale <= 1)
 * shrinks the spatial size, channels and filters (conv) or every size (lstm) for tests;
 * 1 is the paper's shapes. Caller frees the array.
 */
rt_study_point *rt_study_points(rt_study_op op, bool quick, double scale, size_t *n);

/* The swept parameters of op, in the order of their tags. */
const char *const *rt_study_params(rt_study_op op, size_t *n);
/* The value of parameter `param` of a point (batch, filters, kernel, stride; batch, seq, ...). */
long rt_study_point_param(const rt_study_point *p, const char *param);

/* ---- FLOPs and bytes (study-flops.c): exact counts for the loops actually run ---- */

/* Sum over output positions of the kernel taps that land inside the input along one dimension. */
long rt_conv_valid_taps(long in, long ksize, long stride, long pad, long out);
/* Multiply-adds of a convolution that skips padding (direct loops, oneDNN jit direct). */
double rt_conv_macs_valid(const rt_conv_shape *s);
/* Multiply-adds of a convolution over the padded input (im2col + GEMM): N K C R S P Q. */
double rt_conv_macs_padded(const rt_conv_shape *s);
/* Element counts of the tensors. */
double rt_conv_src_elems(const rt_conv_shape *s);
double rt_conv_wei_elems(const rt_conv_shape *s);
double rt_conv_dst_elems(const rt_conv_shape *s);
/* Compulsory bytes of one pass: the tensors it reads and writes, each once. */
double rt_conv_pass_bytes(const rt_conv_shape *s, rt_pass pass, double elem_bytes);
/* Bytes the direct loops load and store at L1 in one pass (conv-direct.c's loop structure). */
double rt_conv_direct_l1_bytes(const rt_conv_shape *s, rt_pass pass, double elem_bytes);
/* im2col of one image: valid loads and stores of the column buffer, in elements. */
double rt_im2col_loads(const rt_conv_shape *s);
double rt_im2col_stores(const rt_conv_shape *s);
/* col2im of one image: additions (one per valid column entry) and element loads/stores. */
double rt_col2im_adds(const rt_conv_shape *s);
/* GEMM C = A B (+ C when accumulate): 2 M N K, plus M N additions when accumulating. */
double rt_gemm_flops(long m, long n, long k, bool accumulate);

/* Per-element FLOPs of the LSTM elementwise kernels (each libm call counts as one FLOP). */
enum {
    RT_LSTM_SIGMOID_FLOPS = 12,  /* i, f, o: bias add + expf + add + divide, 4 each */
    RT_LSTM_TANH_FLOPS = 2,      /* g: bias add + tanhf */
    RT_LSTM_CELL_FLOPS = 3,      /* c = f c + i g */
    RT_LSTM_HIDDEN_FLOPS = 2,    /* h = o tanh(c) */
    RT_LSTM_BWD_CELL_FLOPS = 11, /* dh = dy + dh', do, dc (lstm-unfused.c) */
    RT_LSTM_BWD_GATES_FLOPS = 13 /* di, df, dg with their derivatives, dc_prev */
};
/* FLOPs of the whole LSTM (forward or backward) as the reference and unfused loops run it. */
double rt_lstm_flops(const rt_lstm_shape *s, rt_pass pass);
/* Compulsory bytes of a whole LSTM pass (inputs, weights, outputs; saved states for backward). */
double rt_lstm_pass_bytes(const rt_lstm_shape *s, rt_pass pass, double elem_bytes);

/* ---- timing (study-timer.c) ---- */

/* What one kernel invocation does: counted by the caller from the formulas above. */
typedef struct rt_kernel_cost {
    const char *name;
    const char *unit; /* compute unit of the FLOPs: fp32, bf16, amx_bf16 ... */
    double flops;
    double dram_bytes; /* compulsory traffic of its tensors */
    double l1_bytes;   /* loads + stores at L1, counted per loop iteration; < 0 when unknown */
    const char *impl;  /* implementation detail (oneDNN impl name, "openblas"); NULL: none */
} rt_kernel_cost;

/*
 * Times each kernel invocation with a monotonic clock and, while recording, adds it to a
 * profile under the given tags (warm-up iterations run with recording off).
 */
typedef struct rt_study_timer {
    rt_profile *profile; /* not owned */
    const rt_tags *tags; /* not owned: every kernel of the current config carries them */
    bool recording;
    double t0;
    double total; /* seconds of all timed invocations, recorded or not */
} rt_study_timer;

void rt_timer_init(rt_study_timer *t, rt_profile *p, const rt_tags *tags);
static inline void rt_timer_start(rt_study_timer *t);
/* Stop the clock and record the invocation described by cost. */
void rt_timer_stop(rt_study_timer *t, const rt_kernel_cost *cost);

/* ---- the implementations (conv-*.c, lstm-*.c) ---- */

/* Random inputs in +-[0.1, 1): never zero, so a missing term shows. */
void rt_study_fill_random(float *x, size_t n, uint64_t *seed);
/* n random elements in prec (fp32: float, bf16/fp16: 16-bit); the same seed gives the same
 * values, the seed advances. Caller frees. */
void *rt_study_random_tensor(size_t n, rt_precision prec, uint64_t *seed);
/* bf16 conversions (round to nearest even, NaN kept), inline: the direct loops call them per
 * element. */
static inline uint16_t rt_f32_to_bf16(float f);
static inline float rt_bf16_to_f32(uint16_t b);
/* Normwise relative difference max|a - b| / max|b|. */
double rt_rel_diff(const float *a, const float *b, size_t n);

/*
 * A runnable instance of one implementation x precision x op x pass at one shape, with its
 * tensors allocated and filled. run() executes one iteration and times every kernel through t.
 * out() exposes the pass's result as fp32 (converted copy for bf16) for correctness checks;
 * caller frees it.
 */
struct rt_study_case {
    int (*run)(rt_study_case *c, rt_study_timer *t, rt_error *err);
    float *(*out)(rt_study_case *c, size_t *n);
    void (*free)(rt_study_case *c);
    char *impl; /* the main kernel's implementation (oneDNN's impl name ...); may be NULL */
    char *note; /* how the case runs (layouts oneDNN chose ...); may be NULL */
};

/* Inputs of a conv case are generated from seed, so two implementations given the same seed
 * see the same tensors. Returns -1 with a message when the implementation cannot run it
 * (precision unsupported, library missing): the caller reports it as skipped. */
int rt_conv_direct_new(const rt_conv_shape *s, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err);
int rt_conv_im2col_new(const rt_conv_shape *s, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err);
int rt_conv_onednn_new(const rt_conv_shape *s, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err);
int rt_lstm_reference_new(const rt_lstm_shape *s, rt_precision prec, rt_pass pass, uint64_t seed,
                          rt_study_case **out, rt_error *err);
int rt_lstm_unfused_new(const rt_lstm_shape *s, rt_precision prec, rt_pass pass, uint64_t seed,
                        rt_study_case **out, rt_error *err);
int rt_lstm_onednn_new(const rt_lstm_shape *s, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err);
void rt_study_case_free(rt_study_case *c);

/* The ISA oneDNN dispatches to on this CPU ("avx512_core_bf16" ...), or a reason it is unknown. */
const char *rt_onednn_isa(void);

/* ---- the run (study-run.c) ---- */

typedef struct rt_study_progress {
    size_t done, total; /* cases */
    const char *what;   /* "onednn bf16 conv2d forward filters=256" */
    double elapsed;     /* seconds since the study started */
} rt_study_progress;

typedef struct rt_study_opts {
    bool ops[RT_OP_COUNT];
    bool precisions[RT_PREC_COUNT];
    bool impls[RT_IMPL_COUNT];
    int warmup, iters; /* < 0: the paper's 5 and 20 (quick: 1 and 3) */
    bool quick;
    double scale; /* 1: the paper's shapes; smaller shrinks them (tests) */
    void (*progress)(void *ud, const rt_study_progress *p);
    void *progress_ud;
    const char *python; /* for pytorch; NULL: $ROOFTIME_PYTHON, else /usr/bin/python3 */
    /* pytorch was selected by default, not asked for: when torch cannot run here the study skips
     * it with a note; otherwise that is an error (rt_study_run fails before any work) */
    bool pytorch_optional;
} rt_study_opts;

/* Everything selected: every op, fp32 and bf16 (fp16 tried too), every implementation (pytorch
 * optional). */
void rt_study_opts_init(rt_study_opts *o);

/* Whether the pytorch implementation can run: the python of o imports torch and
 * scripts/torch-client.py is found ($ROOFTIME_SRC/scripts, the source tree, the installed share
 * directory). 0, or -1 with the reason. Starts python: a second or two. */
int rt_study_torch_check(const rt_study_opts *o, rt_error *err);

/* One correctness check: an implementation's result against the reference at a small shape. */
typedef struct rt_study_check {
    char *what; /* "onednn bf16 conv2d backward-data" */
    double rel_diff, bound;
    bool ok;
} rt_study_check;

typedef struct rt_study_result {
    rt_profile **profiles; /* one per implementation x precision x op x pass */
    size_t n_profiles;
    rt_study_check *checks;
    size_t n_checks;
    rt_warnings skipped; /* what did not run and why */
    double seconds;      /* wall time of the whole study */
    char *isa;           /* what oneDNN dispatches to */
    bool quick;          /* the sweeps that ran (rt_study_points) */
    double scale;
    int warmup, iters;
    /* 1-minute load average at the start and the end, and the CPUs online: a loaded machine
     * inflates the times (a thread descheduled at an OpenMP barrier stalls its team). */
    double load_start, load_end;
    long ncpu;
    double clock_cost; /* seconds one clock read takes: inside every timed invocation once */
} rt_study_result;

/* Validate opts (every shape, every selected implementation) before any work starts. */
int rt_study_validate(const rt_study_opts *o, rt_error *err);
/* Run the checks and the sweeps; *out owns the profiles. */
int rt_study_run(const rt_study_opts *o, rt_study_result **out, rt_error *err);
void rt_study_result_free(rt_study_result *r);

/* How the study groups kernels into configs and families (for rt_analysis_new and the report). */
const rt_group_opts *rt_study_group_opts(void);

/* ---- findings (study-findings.c) ---- */

/*
 * The findings computed from the analysis of the study's profiles: the run, the correctness
 * checks, overhead-bound configs, matrix-unit use, zero-AI time share, jumps in AI within
 * families, scaling, recoverable seconds. A structure (core/findings.h) that the text writer
 * (formats) and the report render; rt_findings_free frees it.
 */
rt_findings *rt_study_findings(const rt_analysis *a, const rt_study_result *r);

/* ---- inline ---- */
static inline uint16_t rt_f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

static inline float rt_bf16_to_f32(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline void rt_timer_start(rt_study_timer *t)
{
    t->t0 = rt_now();
}

#endif
