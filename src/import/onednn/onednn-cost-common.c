/* oneDNN verbose logs, the cost model's helpers that every kind's cost function uses: the taps of
 * a sliding window, the direction of a propagation, the bytes of a list of memory descriptors. A
 * leaf: the dispatch (onednn-cost.c), the kinds (onednn-cost-matrix.c,
 * onednn-cost-elementwise.c) and the model (onednn-cost-model.c) call it, it calls none of them.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "onednn-internal.h"
#include "rooftime/util/sliding-window.h"

/*
 * Multiply-adds of a sliding window along one spatial dimension: for each of `out` output
 * positions o, the taps k in [0, kern) whose input index o*s - p + k*(d+1) lies in [0, in).
 * oneDNN's dilation is 0-based (d = 0: dense). Taps that fall into padding do no work. NAN when a
 * size is not a whole number within RT_WINDOW_MAX_DIM (checked before any conversion).
 */
double rt_onednn_valid_taps(double out, double in, double kern, double s, double d, double p)
{
    const double lim = (double)RT_WINDOW_MAX_DIM;
    const double v[6] = {out, in, kern, s, d, p};
    for (int i = 0; i < 6; i++)
        if (!(v[i] >= -lim && v[i] <= lim) || v[i] != floor(v[i]))
            return NAN;
    int64_t t = rt_window_taps((int64_t)out, (int64_t)in, (int64_t)kern, (int64_t)s, (int64_t)d + 1,
                               (int64_t)p);
    return t < 0 ? NAN : (double)t;
}

int rt_onednn_is_forward(const char *prop)
{
    return strncmp(prop, "forward", 7) == 0;
}

/* Elements of a memory descriptor whose size follows from `elems(arg)`; -1 when the argument is
 * not one this kind has. */

int rt_onednn_sum_bytes(const mdlist *ml, const void *ctx, elems_fn f, const char *prop,
                        double *bytes, rt_error *err)
{
    double b = 0;
    for (int i = 0; i < ml->n; i++) {
        const mdesc *m = &ml->m[i];
        double sz = rt_onednn_dt_size(m->dt);
        if (sz <= 0)
            continue; /* undef: the argument is not used */
        double mult = 1;
        double e = f(ctx, m->arg, prop, &mult);
        if (e < 0) {
            rt_error_set(err, "memory descriptor '%s' is not one this primitive kind has", m->arg);
            return -1;
        }
        b += e * sz * mult;
    }
    *bytes = b;
    return 0;
}
