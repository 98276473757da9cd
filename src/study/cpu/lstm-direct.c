/* The LSTM in plain C, gate by gate as the seed's equation 5 writes it: the correctness reference.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lstm-data.h"
#include "rooftime/study/lstm-direct.h"
#include "rooftime/study/study-flops.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

typedef struct ref_case {
    rt_study_case base;
    rt_lstm_data d;
    rt_pass pass;
    float *gates; /* [T][N][4][H] activations i, f, g, o */
    float *c, *h; /* [T+1][N][H], index 0 the initial state */
    float *out;
} ref_case;

static float sigm(float v)
{
    return 1.0f / (1.0f + expf(-v));
}

static void ref_forward(ref_case *r)
{
    const rt_lstm_shape *s = &r->d.s;
    long N = s->batch, F = s->features, H = s->hidden, T = s->seq;
    memcpy(r->c, r->d.c0, (size_t)(N * H) * sizeof(float));
    memcpy(r->h, r->d.h0, (size_t)(N * H) * sizeof(float));
    for (long t = 0; t < T; t++)
        for (long n = 0; n < N; n++)
            for (long j = 0; j < H; j++) {
                float a[4];
                for (int g = 0; g < 4; g++) {
                    float v = r->d.b[g * H + j];
                    for (long f = 0; f < F; f++)
                        v += r->d.x[(t * N + n) * F + f] * r->d.W[(f * 4 + g) * H + j];
                    for (long k = 0; k < H; k++)
                        v += r->h[(t * N + n) * H + k] * r->d.U[(k * 4 + g) * H + j];
                    a[g] = v;
                }
                float i = sigm(a[0]), f = sigm(a[1]), g = tanhf(a[2]), o = sigm(a[3]);
                float *gs = r->gates + ((t * N + n) * 4) * H + j;
                gs[0] = i;
                gs[H] = f;
                gs[2 * H] = g;
                gs[3 * H] = o;
                float c = f * r->c[(t * N + n) * H + j] + i * g;
                r->c[((t + 1) * N + n) * H + j] = c;
                r->h[((t + 1) * N + n) * H + j] = o * tanhf(c);
            }
}

static void ref_backward(ref_case *r)
{
    const rt_lstm_shape *s = &r->d.s;
    long N = s->batch, F = s->features, H = s->hidden, T = s->seq, G = 4 * H;
    float *dx = r->out, *dW = dx + T * N * F, *dU = dW + F * G, *db = dU + H * G;
    float *dh0 = db + G, *dc0 = dh0 + N * H;
    float *dh = rt_xcalloc((size_t)(N * H), sizeof *dh),
          *dc = rt_xcalloc((size_t)(N * H), sizeof *dc);
    float *da = rt_xmalloc((size_t)(N * G) * sizeof *da);
    memset(dW, 0, (size_t)(F * G + H * G + G) * sizeof(float));
    for (long t = T - 1; t >= 0; t--) {
        for (long n = 0; n < N; n++)
            for (long j = 0; j < H; j++) {
                const float *gs = r->gates + ((t * N + n) * 4) * H + j;
                float i = gs[0], f = gs[H], g = gs[2 * H], o = gs[3 * H];
                float c = r->c[((t + 1) * N + n) * H + j], cp = r->c[(t * N + n) * H + j];
                float tc = tanhf(c);
                float dht = r->d.dy[(t * N + n) * H + j] + dh[n * H + j];
                float dct = dc[n * H + j] + dht * o * (1 - tc * tc);
                da[n * G + 0 * H + j] = dct * g * i * (1 - i);
                da[n * G + 1 * H + j] = dct * cp * f * (1 - f);
                da[n * G + 2 * H + j] = dct * i * (1 - g * g);
                da[n * G + 3 * H + j] = dht * tc * o * (1 - o);
                dc[n * H + j] = dct * f;
            }
        for (long n = 0; n < N; n++) {
            for (long f = 0; f < F; f++) {
                float v = 0;
                for (long q = 0; q < G; q++)
                    v += da[n * G + q] * r->d.W[f * G + q];
                dx[(t * N + n) * F + f] = v;
            }
            for (long k = 0; k < H; k++) {
                float v = 0;
                for (long q = 0; q < G; q++)
                    v += da[n * G + q] * r->d.U[k * G + q];
                dh[n * H + k] = v;
            }
            for (long q = 0; q < G; q++) {
                for (long f = 0; f < F; f++)
                    dW[f * G + q] += r->d.x[(t * N + n) * F + f] * da[n * G + q];
                for (long k = 0; k < H; k++)
                    dU[k * G + q] += r->h[(t * N + n) * H + k] * da[n * G + q];
                db[q] += da[n * G + q];
            }
        }
    }
    memcpy(dh0, dh, (size_t)(N * H) * sizeof *dh);
    memcpy(dc0, dc, (size_t)(N * H) * sizeof *dc);
    free(dh);
    free(dc);
    free(da);
}

static int ref_run(rt_study_case *base, rt_study_timer *t, rt_error *err)
{
    (void)err;
    ref_case *r = (ref_case *)base;
    const rt_lstm_shape *s = &r->d.s;
    rt_kernel_cost cost = {.name =
                               r->pass == RT_PASS_FWD ? "lstm_reference_fwd" : "lstm_reference_bwd",
                           .unit = "fp32",
                           .flops = rt_lstm_flops(s, r->pass),
                           .dram_bytes = rt_lstm_pass_bytes(s, r->pass, 4),
                           .l1_bytes = -1,
                           .overhead = RT_OVERHEAD_NONE}; /* loops in the calling thread */
    rt_timer_start(t);
    if (r->pass == RT_PASS_FWD) {
        ref_forward(r);
        long NH = s->batch * s->hidden;
        memcpy(r->out, r->h + NH, (size_t)(s->seq * NH) * sizeof(float));
        memcpy(r->out + s->seq * NH, r->c + s->seq * NH, (size_t)NH * sizeof(float));
    } else {
        ref_backward(r);
    }
    rt_timer_stop(t, &cost);
    return 0;
}

static float *ref_out(rt_study_case *base, size_t *n)
{
    ref_case *r = (ref_case *)base;
    *n = rt_lstm_out_elems(&r->d.s, r->pass);
    float *o = rt_xmalloc(*n * sizeof *o);
    memcpy(o, r->out, *n * sizeof *o);
    return o;
}

static void ref_free(rt_study_case *base)
{
    ref_case *r = (ref_case *)base;
    rt_lstm_data_release(&r->d);
    free(r->gates);
    free(r->c);
    free(r->h);
    free(r->out);
    free(r->base.note);
    free(r->base.impl);
    free(r);
}

int rt_lstm_direct_new(const rt_lstm_shape *s, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err)
{
    *out = NULL;
    if (rt_lstm_shape_check(s, err) < 0)
        return -1;
    if (prec != RT_PREC_FP32) {
        rt_error_set(err, "reference: the LSTM reference is fp32 only");
        return -1;
    }
    if (pass != RT_PASS_FWD && pass != RT_PASS_BWD) {
        rt_error_set(err, "reference: lstm has no pass '%s'", rt_pass_name(pass));
        return -1;
    }
    ref_case *r = rt_xcalloc(1, sizeof *r);
    r->base.run = ref_run;
    r->base.out = ref_out;
    r->base.free = ref_free;
    r->pass = pass;
    rt_lstm_data_init(&r->d, s, seed);
    size_t N = s->batch, H = s->hidden, T = s->seq;
    r->gates = rt_xmalloc(T * N * 4 * H * sizeof(float));
    r->c = rt_xmalloc((T + 1) * N * H * sizeof(float));
    r->h = rt_xmalloc((T + 1) * N * H * sizeof(float));
    r->out = rt_xcalloc(rt_lstm_out_elems(s, pass), sizeof(float));
    if (pass == RT_PASS_BWD)
        ref_forward(r); /* the saved activations the backward pass needs */
    *out = &r->base;
    return 0;
}
