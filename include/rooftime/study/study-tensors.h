/* Tensors of the study and the case every implementation makes (study-tensors.c): random inputs
 * that are never zero, bf16 conversion, normwise comparison. */
#ifndef ROOFTIME_STUDY_STUDY_TENSORS_H
#define ROOFTIME_STUDY_STUDY_TENSORS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/util/error.h"

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

typedef struct rt_study_case rt_study_case;

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

void rt_study_case_free(rt_study_case *c);

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

#endif
