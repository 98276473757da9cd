/* The LSTM unfused, as a framework runs it op by op: per time step GEMMs plus elementwise gate
 * kernels, each a timed invocation of its own (many small kernels). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime-config.h"
#include "lstm-data.h"
#include "rooftime/study/lstm-unfused.h"
#include "rooftime/study/study-flops.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

#ifdef RT_HAVE_OPENBLAS
#include <cblas.h>
#endif

typedef struct unfused_case {
    rt_study_case base;
    rt_lstm_data d;
    rt_pass pass;
    float *G;        /* [N][4H] pre-activations of one step */
    float *acts;     /* [T][N][4H] i, f, g, o */
    float *c, *h;    /* [T+1][N][H] */
    float *out;      /* the pass's result (rt_lstm_out_elems) */
    float *dA, *dct; /* [N][4H] gate gradients, [N][H] cell gradient of one step */
    const char *gemm_impl;
} unfused_case;

/* C = A B (+ C): row-major, A is M x K (or K x M when ta), B is K x N (or N x K when tb). */
static void gemm_run(bool ta, bool tb, long M, long N, long K, const float *A, long lda,
                     const float *B, long ldb, bool acc, float *C, long ldc)
{
#ifdef RT_HAVE_OPENBLAS
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N,
                K, 1.0f, A, lda, B, ldb, acc ? 1.0f : 0.0f, C, ldc);
#else
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            float v = acc ? C[i * ldc + j] : 0.0f;
            for (long p = 0; p < K; p++)
                v +=
                    (ta ? A[p * lda + i] : A[i * lda + p]) * (tb ? B[j * ldb + p] : B[p * ldb + j]);
            C[i * ldc + j] = v;
        }
#endif
}

static void gemm(unfused_case *u, rt_study_timer *t, const char *name, bool ta, bool tb, long M,
                 long N, long K, const float *A, long lda, const float *B, long ldb, bool acc,
                 float *C, long ldc)
{
    double mn = (double)M * N;
#ifdef RT_HAVE_OPENBLAS
    double l1 = -1; /* inside OpenBLAS: not counted */
#else
    double l1 = 4.0 * (2.0 * mn * K + (acc ? mn : 0) + mn);
#endif
    rt_kernel_cost cost = {.name = name,
                           .unit = "fp32",
                           .flops = rt_gemm_flops(M, N, K, acc),
                           .dram_bytes =
                               4.0 * ((double)M * K + (double)K * N + mn + (acc ? mn : 0)),
                           .l1_bytes = l1,
                           .impl = u->gemm_impl,
                           .overhead = RT_STUDY_BLAS_OVERHEAD};
    rt_timer_start(t);
    gemm_run(ta, tb, M, N, K, A, lda, B, ldb, acc, C, ldc);
    rt_timer_stop(t, &cost);
}

/* An elementwise kernel over N x H hidden units: flops, loads and stores per unit, and the
 * elements it touches once (DRAM) when that differs from the per-unit count (bias vectors). */
static rt_kernel_cost ew_cost(const char *name, const rt_lstm_shape *s, double flops, double loads,
                              double stores, double dram_elems)
{
    double units = (double)s->batch * s->hidden;
    return (rt_kernel_cost){.name = name,
                            .unit = "fp32",
                            .flops = units * flops,
                            .dram_bytes = 4.0 * dram_elems,
                            .l1_bytes = 4.0 * units * (loads + stores),
                            .overhead = RT_OVERHEAD_NONE}; /* a loop in the calling thread */
}

static void forward(unfused_case *u, rt_study_timer *t)
{
    const rt_lstm_shape *s = &u->d.s;
    long N = s->batch, F = s->features, H = s->hidden, T = s->seq, G = 4 * H;
    double NH = (double)N * H;
    rt_kernel_cost c_sig = ew_cost("gates_sigmoid", s, RT_LSTM_SIGMOID_FLOPS, 6, 3, 6 * NH + 3 * H);
    rt_kernel_cost c_tanh = ew_cost("gates_tanh", s, RT_LSTM_TANH_FLOPS, 2, 1, 2 * NH + H);
    rt_kernel_cost c_cell = ew_cost("cell_update", s, RT_LSTM_CELL_FLOPS, 4, 1, 5 * NH);
    rt_kernel_cost c_hid = ew_cost("hidden_update", s, RT_LSTM_HIDDEN_FLOPS, 2, 1, 3 * NH);
    memcpy(u->c, u->d.c0, (size_t)(N * H) * sizeof(float));
    memcpy(u->h, u->d.h0, (size_t)(N * H) * sizeof(float));
    for (long st = 0; st < T; st++) {
        float *act = u->acts + st * N * G;
        const float *cp = u->c + st * N * H, *hp = u->h + st * N * H;
        float *cn = u->c + (st + 1) * N * H, *hn = u->h + (st + 1) * N * H;
        gemm(u, t, "gemm_input", false, false, N, G, F, u->d.x + st * N * F, F, u->d.W, G, false,
             u->G, G);
        gemm(u, t, "gemm_hidden", false, false, N, G, H, hp, H, u->d.U, G, true, u->G, G);
        rt_timer_start(t);
        for (long n = 0; n < N; n++)
            for (int g = 0; g < 4; g++) {
                if (g == 2)
                    continue;
                for (long j = 0; j < H; j++)
                    act[n * G + g * H + j] =
                        1.0f / (1.0f + expf(-(u->G[n * G + g * H + j] + u->d.b[g * H + j])));
            }
        rt_timer_stop(t, &c_sig);
        rt_timer_start(t);
        for (long n = 0; n < N; n++)
            for (long j = 0; j < H; j++)
                act[n * G + 2 * H + j] = tanhf(u->G[n * G + 2 * H + j] + u->d.b[2 * H + j]);
        rt_timer_stop(t, &c_tanh);
        rt_timer_start(t);
        for (long n = 0; n < N; n++)
            for (long j = 0; j < H; j++)
                cn[n * H + j] =
                    act[n * G + H + j] * cp[n * H + j] + act[n * G + j] * act[n * G + 2 * H + j];
        rt_timer_stop(t, &c_cell);
        rt_timer_start(t);
        for (long n = 0; n < N; n++)
            for (long j = 0; j < H; j++)
                hn[n * H + j] = act[n * G + 3 * H + j] * tanhf(cn[n * H + j]);
        rt_timer_stop(t, &c_hid);
    }
}

static void backward(unfused_case *u, rt_study_timer *t)
{
    const rt_lstm_shape *s = &u->d.s;
    long N = s->batch, F = s->features, H = s->hidden, T = s->seq, G = 4 * H;
    double NH = (double)N * H;
    float *dx = u->out, *dW = dx + T * N * F, *dU = dW + F * G, *db = dU + H * G;
    float *dh = db + G, *dc = dh + N * H;
    size_t zero_elems = (size_t)(F * G + H * G + G + 2 * N * H);
    rt_kernel_cost c_zero = {.name = "zero_grads",
                             .unit = "fp32",
                             .flops = 0,
                             .dram_bytes = 4.0 * zero_elems,
                             .l1_bytes = 4.0 * zero_elems,
                             .overhead = RT_OVERHEAD_NONE}; /* a memset */
    rt_kernel_cost c_hid = ew_cost("bwd_hidden", s, RT_LSTM_BWD_CELL_FLOPS, 5, 2, 7 * NH);
    rt_kernel_cost c_gates = ew_cost("bwd_gates", s, RT_LSTM_BWD_GATES_FLOPS, 5, 4, 9 * NH);
    rt_kernel_cost c_bias = {.name = "bias_grad",
                             .unit = "fp32",
                             .flops = (double)N * G,
                             .dram_bytes = 4.0 * ((double)N * G + 2.0 * G),
                             .l1_bytes = 4.0 * 3.0 * N * G,
                             .overhead = RT_OVERHEAD_NONE};
    rt_timer_start(t);
    memset(dW, 0, zero_elems * sizeof(float)); /* dW, dU, db, dh, dc are contiguous */
    rt_timer_stop(t, &c_zero);
    for (long st = T - 1; st >= 0; st--) {
        const float *act = u->acts + st * N * G, *dy = u->d.dy + st * N * H;
        const float *c = u->c + (st + 1) * N * H, *cp = u->c + st * N * H;
        rt_timer_start(t);
        for (long n = 0; n < N; n++)
            for (long j = 0; j < H; j++) {
                float o = act[n * G + 3 * H + j], tc = tanhf(c[n * H + j]);
                float dht = dy[n * H + j] + dh[n * H + j];
                u->dA[n * G + 3 * H + j] = dht * tc * (o * (1 - o));
                u->dct[n * H + j] = dc[n * H + j] + dht * o * (1 - tc * tc);
            }
        rt_timer_stop(t, &c_hid);
        rt_timer_start(t);
        for (long n = 0; n < N; n++)
            for (long j = 0; j < H; j++) {
                float i = act[n * G + j], f = act[n * G + H + j], g = act[n * G + 2 * H + j];
                float dct = u->dct[n * H + j];
                u->dA[n * G + j] = dct * g * (i * (1 - i));
                u->dA[n * G + H + j] = dct * cp[n * H + j] * (f * (1 - f));
                u->dA[n * G + 2 * H + j] = dct * i * (1 - g * g);
                dc[n * H + j] = dct * f;
            }
        rt_timer_stop(t, &c_gates);
        gemm(u, t, "gemm_dx", false, true, N, F, G, u->dA, G, u->d.W, G, false, dx + st * N * F, F);
        gemm(u, t, "gemm_dh", false, true, N, H, G, u->dA, G, u->d.U, G, false, dh, H);
        gemm(u, t, "gemm_dw", true, false, F, G, N, u->d.x + st * N * F, F, u->dA, G, true, dW, G);
        gemm(u, t, "gemm_du", true, false, H, G, N, u->h + st * N * H, H, u->dA, G, true, dU, G);
        rt_timer_start(t);
        for (long n = 0; n < N; n++)
            for (long q = 0; q < G; q++)
                db[q] += u->dA[n * G + q];
        rt_timer_stop(t, &c_bias);
    }
}

static int unfused_run(rt_study_case *base, rt_study_timer *t, rt_error *err)
{
    (void)err;
    unfused_case *u = (unfused_case *)base;
    if (u->pass == RT_PASS_FWD) {
        forward(u, t);
        long NH = u->d.s.batch * u->d.s.hidden, T = u->d.s.seq;
        memcpy(u->out, u->h + NH, (size_t)(T * NH) * sizeof(float));
        memcpy(u->out + T * NH, u->c + T * NH, (size_t)NH * sizeof(float));
    } else {
        backward(u, t);
    }
    return 0;
}

static float *unfused_out(rt_study_case *base, size_t *n)
{
    unfused_case *u = (unfused_case *)base;
    *n = rt_lstm_out_elems(&u->d.s, u->pass);
    float *o = rt_xmalloc(*n * sizeof *o);
    memcpy(o, u->out, *n * sizeof *o);
    return o;
}

static void unfused_free(rt_study_case *base)
{
    unfused_case *u = (unfused_case *)base;
    rt_lstm_data_release(&u->d);
    free(u->G);
    free(u->acts);
    free(u->c);
    free(u->h);
    free(u->out);
    free(u->dA);
    free(u->dct);
    free(u->base.note);
    free(u->base.impl);
    free(u);
}

int rt_lstm_unfused_new(const rt_lstm_shape *s, rt_precision prec, rt_pass pass, uint64_t seed,
                        rt_study_case **out, rt_error *err)
{
    *out = NULL;
    if (rt_lstm_shape_check(s, err) < 0)
        return -1;
    if (prec != RT_PREC_FP32) {
        rt_error_set(err,
                     "unfused: %s needs a %s GEMM; the OpenBLAS found at configure time has "
                     "fp32 (sgemm) only",
                     rt_precision_name(prec), rt_precision_name(prec));
        return -1;
    }
    if (pass != RT_PASS_FWD && pass != RT_PASS_BWD) {
        rt_error_set(err, "unfused: lstm has no pass '%s'", rt_pass_name(pass));
        return -1;
    }
    unfused_case *u = rt_xcalloc(1, sizeof *u);
    u->base.run = unfused_run;
    u->base.out = unfused_out;
    u->base.free = unfused_free;
    u->pass = pass;
#ifdef RT_HAVE_OPENBLAS
    u->gemm_impl = "openblas";
#else
    u->gemm_impl = "plain-c-gemm";
#endif
    u->base.impl = rt_strdup(u->gemm_impl);
    rt_lstm_data_init(&u->d, s, seed);
    size_t N = s->batch, H = s->hidden, T = s->seq;
    u->G = rt_xmalloc(N * 4 * H * sizeof(float));
    u->acts = rt_xmalloc(T * N * 4 * H * sizeof(float));
    u->c = rt_xmalloc((T + 1) * N * H * sizeof(float));
    u->h = rt_xmalloc((T + 1) * N * H * sizeof(float));
    u->out = rt_xcalloc(rt_lstm_out_elems(s, pass), sizeof(float));
    u->dA = rt_xmalloc(N * 4 * H * sizeof(float));
    u->dct = rt_xmalloc(N * H * sizeof(float));
    if (pass == RT_PASS_BWD) { /* the saved activations, untimed */
        rt_study_timer t;
        rt_timer_init(&t, NULL, NULL);
        forward(u, &t);
    }
    *out = &u->base;
    return 0;
}
