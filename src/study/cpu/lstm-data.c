/* The LSTM tensors every implementation of the study starts from, filled the same way from a seed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lstm-data.h"
#include "rooftime/study/study-tensors.h"

void rt_lstm_data_init(rt_lstm_data *d, const rt_lstm_shape *s, uint64_t seed)
{
    size_t N = s->batch, F = s->features, H = s->hidden, T = s->seq;
    d->s = *s;
    d->x = rt_study_random_tensor(T * N * F, RT_PREC_FP32, &seed);
    d->h0 = rt_study_random_tensor(N * H, RT_PREC_FP32, &seed);
    d->c0 = rt_study_random_tensor(N * H, RT_PREC_FP32, &seed);
    d->W = rt_study_random_tensor(F * 4 * H, RT_PREC_FP32, &seed);
    d->U = rt_study_random_tensor(H * 4 * H, RT_PREC_FP32, &seed);
    d->b = rt_study_random_tensor(4 * H, RT_PREC_FP32, &seed);
    d->dy = rt_study_random_tensor(T * N * H, RT_PREC_FP32, &seed);
    /* Scale the weights like a trained layer (about 1/sqrt(fan-in)) so the gates do not
     * saturate, where every implementation would agree for the wrong reason. */
    float sw = 1.0f / sqrtf((float)(F + H));
    for (size_t i = 0; i < F * 4 * H; i++)
        d->W[i] *= sw;
    for (size_t i = 0; i < H * 4 * H; i++)
        d->U[i] *= sw;
}

void rt_lstm_data_release(rt_lstm_data *d)
{
    free(d->x);
    free(d->h0);
    free(d->c0);
    free(d->W);
    free(d->U);
    free(d->b);
    free(d->dy);
    memset(d, 0, sizeof *d);
}

size_t rt_lstm_out_elems(const rt_lstm_shape *s, rt_pass pass)
{
    size_t N = s->batch, F = s->features, H = s->hidden, T = s->seq;
    if (pass == RT_PASS_FWD)
        return T * N * H + N * H;
    return T * N * F + F * 4 * H + H * 4 * H + 4 * H + 2 * N * H;
}
