/* The study's implementations, one table (study-impls.c): names, operations, passes, precisions and
 * the constructors of their cases. */
#ifndef ROOFTIME_STUDY_STUDY_IMPLS_H
#define ROOFTIME_STUDY_STUDY_IMPLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/util/error.h"

/* The implementations, by the name a user passes to --impl. */
typedef enum rt_study_impl {
    RT_IMPL_DIRECT = 0,  /* conv2d: direct loops in C, the correctness reference */
    RT_IMPL_IM2COL = 1,  /* conv2d: im2col/col2im + OpenBLAS sgemm */
    RT_IMPL_ONEDNN = 2,  /* conv2d and lstm: oneDNN primitives */
    RT_IMPL_UNFUSED = 3, /* lstm: per step GEMMs + elementwise kernels */
    RT_IMPL_PYTORCH = 4, /* conv2d and lstm: torch (scripts/torch-client.py), from its traces */
    RT_IMPL_SDPA = 5,    /* attention and decode: torch's scaled_dot_product_attention (torch 2) */
    RT_IMPL_COUNT
} rt_study_impl;

typedef int (*rt_conv_case_new)(const rt_conv_shape *s, rt_precision prec, rt_pass pass,
                                uint64_t seed, rt_study_case **out, rt_error *err);
typedef int (*rt_lstm_case_new)(const rt_lstm_shape *s, rt_precision prec, rt_pass pass,
                                uint64_t seed, rt_study_case **out, rt_error *err);
/* The transformer study's operations (attention, mlp, decode): the point names the op. */
typedef int (*rt_xformer_case_new)(const rt_study_point *pt, rt_precision prec, rt_pass pass,
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
    rt_xformer_case_new xformer; /* attention, mlp, decode */
    bool external;               /* runs in its own process (the PyTorch client), not as cases */
    bool reference;              /* its fp32 results are the correctness reference */
    bool timed_quick;            /* timed by --quick too (the direct loops are not: too slow) */
} rt_study_impl_info;

const rt_study_impl_info *rt_study_impl_get(rt_study_impl i);
const char *rt_study_impl_name(rt_study_impl i);
int rt_study_impl_parse(const char *s, rt_study_impl *out, rt_error *err);
bool rt_study_impl_has_op(rt_study_impl i, rt_study_op op);
/* The passes implementation i runs for op. */
const rt_pass *rt_study_impl_passes(rt_study_impl i, rt_study_op op, size_t *n);
/* Whether implementation i runs in the PyTorch client (pytorch, sdpa). */
bool rt_study_impl_is_torch(rt_study_impl i);
/* "direct, im2col, onednn, pytorch": the implementations that have op (RT_OP_COUNT: all of
 * them), joined into buf. */
void rt_study_impls_of(rt_study_op op, char *buf, size_t size);

/* A case of implementation impl at point pt (its op's shape), through the table's constructor;
 * -1 with a message when impl has no such op or cannot run it. */
int rt_study_case_new(rt_study_impl impl, const rt_study_point *pt, rt_precision prec, rt_pass pass,
                      uint64_t seed, rt_study_case **c, rt_error *err);

#endif
