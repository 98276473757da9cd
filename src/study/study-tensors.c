/* Tensors of the study: random inputs that are never zero, bf16 conversion, normwise comparison. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/util/strings.h"

/* xorshift64*: fast, deterministic for a seed, good enough for test data. */
static uint64_t next_u64(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

void rt_study_fill_random(float *x, size_t n, uint64_t *seed)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next_u64(seed);
        float mag = 0.1f + 0.9f * (float)((r >> 11) * (1.0 / 9007199254740992.0));
        x[i] = (r & 1) ? -mag : mag;
    }
}

double rt_rel_diff(const float *a, const float *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (isnan(d))
            return NAN; /* a NaN anywhere fails every bound */
        if (d > num)
            num = d;
        if (fabs((double)b[i]) > den)
            den = fabs((double)b[i]);
    }
    return den > 0 ? num / den : num;
}

void rt_study_case_free(rt_study_case *c)
{
    if (c)
        c->free(c);
}

void *rt_study_random_tensor(size_t n, rt_precision prec, uint64_t *seed)
{
    float *f = rt_xmalloc((n ? n : 1) * sizeof *f);
    rt_study_fill_random(f, n, seed);
    if (prec == RT_PREC_FP32)
        return f;
    uint16_t *b = rt_xmalloc((n ? n : 1) * sizeof *b);
    for (size_t i = 0; i < n; i++)
        b[i] = rt_f32_to_bf16(f[i]);
    free(f);
    return b;
}
