/* Makes the oneDNN verbose recordings in tests/data: runs one primitive of each kind through
 * libdnnl. */
/*
 * Not part of the build: compile and run it by hand (see tests/data/README.md):
 *   gcc -O1 -o /tmp/onednn-recorder tests/data/onednn-recorder.c -ldnnl
 *   ONEDNN_VERBOSE=1 /tmp/onednn-recorder > tests/data/onednn-2.6-primitives.log
 * Each primitive is executed a few times so the log shows repeated invocations.
 */
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        dnnl_status_t s_ = (x);                                                                    \
        if (s_ != dnnl_success) {                                                                  \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #x, (int)s_);            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static dnnl_engine_t eng;
static dnnl_stream_t strm;

/* Every execute argument a primitive may take; the ones its descriptor does not use are skipped. */
static const int all_args[] = {DNNL_ARG_SRC_0,
                               DNNL_ARG_SRC_1,
                               DNNL_ARG_SRC_2,
                               DNNL_ARG_DST_0,
                               DNNL_ARG_DST_1,
                               DNNL_ARG_DST_2,
                               DNNL_ARG_WEIGHTS_0,
                               DNNL_ARG_WEIGHTS_1,
                               DNNL_ARG_BIAS,
                               DNNL_ARG_MEAN,
                               DNNL_ARG_VARIANCE,
                               DNNL_ARG_WORKSPACE,
                               DNNL_ARG_SCRATCHPAD,
                               DNNL_ARG_DIFF_SRC_0,
                               DNNL_ARG_DIFF_SRC_1,
                               DNNL_ARG_DIFF_SRC_2,
                               DNNL_ARG_DIFF_DST_0,
                               DNNL_ARG_DIFF_DST_1,
                               DNNL_ARG_DIFF_DST_2,
                               DNNL_ARG_DIFF_WEIGHTS_0,
                               DNNL_ARG_DIFF_WEIGHTS_1,
                               DNNL_ARG_DIFF_BIAS,
                               DNNL_ARG_MULTIPLE_SRC + 0,
                               DNNL_ARG_MULTIPLE_SRC + 1,
                               DNNL_ARG_MULTIPLE_SRC + 2};

/* Create the primitive of pd, give it zero-filled memory for every argument it takes, run it `reps`
 * times. */
static void run_pd(dnnl_primitive_desc_t pd, int reps)
{
    dnnl_exec_arg_t args[32];
    int n = 0;
    for (size_t i = 0; i < sizeof all_args / sizeof all_args[0]; i++) {
        const dnnl_memory_desc_t *md =
            dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, all_args[i]);
        if (!md || md->ndims == 0)
            continue;
        dnnl_memory_t m;
        CHECK(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE));
        void *h;
        CHECK(dnnl_memory_get_data_handle(m, &h));
        memset(h, 0, dnnl_memory_desc_get_size(md));
        args[n].arg = all_args[i];
        args[n].memory = m;
        n++;
    }
    dnnl_primitive_t p;
    CHECK(dnnl_primitive_create(&p, pd));
    for (int r = 0; r < reps; r++)
        CHECK(dnnl_primitive_execute(p, strm, n, args));
    CHECK(dnnl_stream_wait(strm));
    dnnl_primitive_destroy(p);
    for (int i = 0; i < n; i++)
        dnnl_memory_destroy(args[i].memory);
}

static dnnl_primitive_desc_t make_pd(const void *op_desc, const_dnnl_primitive_desc_t hint)
{
    dnnl_primitive_desc_t pd;
    CHECK(dnnl_primitive_desc_create(&pd, op_desc, NULL, eng, hint));
    return pd;
}

static dnnl_memory_desc_t md(int nd, const dnnl_dims_t dims, dnnl_data_type_t dt,
                             dnnl_format_tag_t tag)
{
    dnnl_memory_desc_t m;
    CHECK(dnnl_memory_desc_init_by_tag(&m, nd, dims, dt, tag));
    return m;
}

/* Convolution (or deconvolution) forward, and backward data/weights when f32. */
static void conv(int deconv, dnnl_data_type_t sdt, dnnl_data_type_t wdt, dnnl_data_type_t ddt,
                 int mb, int g, int ic, int oc, int ih, int kh, int sh, int dh, int ph, int bwd)
{
    int oh = deconv ? (ih - 1) * sh - 2 * ph + (kh - 1) * (dh + 1) + 1
                    : (ih + 2 * ph - ((kh - 1) * (dh + 1) + 1)) / sh + 1;
    dnnl_dims_t sd = {mb, ic, ih, ih}, dd = {mb, oc, oh, oh}, bd = {oc};
    dnnl_dims_t wd5 = {g, oc / g, ic / g, kh, kh}, wd4 = {oc, ic, kh, kh};
    dnnl_dims_t strides = {sh, sh}, dil = {dh, dh}, pad = {ph, ph};
    dnnl_memory_desc_t s = md(4, sd, sdt, dnnl_format_tag_any),
                       d = md(4, dd, ddt, dnnl_format_tag_any);
    dnnl_memory_desc_t w =
        g > 1 ? md(5, wd5, wdt, dnnl_format_tag_any) : md(4, wd4, wdt, dnnl_format_tag_any);
    dnnl_memory_desc_t b = md(1, bd, ddt == dnnl_u8 || ddt == dnnl_s8 ? dnnl_f32 : ddt, dnnl_a);
    dnnl_prop_kind_t pk = bwd ? dnnl_forward_training : dnnl_forward_inference;
    dnnl_convolution_desc_t cd;
    if (deconv)
        CHECK(dnnl_dilated_deconvolution_forward_desc_init(&cd, pk, dnnl_deconvolution_direct, &s,
                                                           &w, &b, &d, strides, dil, pad, pad));
    else
        CHECK(dnnl_dilated_convolution_forward_desc_init(&cd, pk, dnnl_convolution_direct, &s, &w,
                                                         &b, &d, strides, dil, pad, pad));
    dnnl_primitive_desc_t fpd = make_pd(&cd, NULL);
    run_pd(fpd, 3);
    if (bwd) {
        dnnl_convolution_desc_t bdd, bwd_w;
        if (deconv) {
            CHECK(dnnl_dilated_deconvolution_backward_data_desc_init(
                &bdd, dnnl_deconvolution_direct, &s, &w, &d, strides, dil, pad, pad));
            CHECK(dnnl_dilated_deconvolution_backward_weights_desc_init(
                &bwd_w, dnnl_deconvolution_direct, &s, &w, &b, &d, strides, dil, pad, pad));
        } else {
            CHECK(dnnl_dilated_convolution_backward_data_desc_init(
                &bdd, dnnl_convolution_direct, &s, &w, &d, strides, dil, pad, pad));
            CHECK(dnnl_dilated_convolution_backward_weights_desc_init(
                &bwd_w, dnnl_convolution_direct, &s, &w, &b, &d, strides, dil, pad, pad));
        }
        dnnl_primitive_desc_t p1 = make_pd(&bdd, fpd), p2 = make_pd(&bwd_w, fpd);
        run_pd(p1, 2);
        run_pd(p2, 2);
        dnnl_primitive_desc_destroy(p1);
        dnnl_primitive_desc_destroy(p2);
    }
    dnnl_primitive_desc_destroy(fpd);
}

static void inner_product(int mb, int ic, int oc)
{
    dnnl_dims_t sd = {mb, ic}, wd = {oc, ic}, bd = {oc}, dd = {mb, oc};
    dnnl_memory_desc_t s = md(2, sd, dnnl_f32, dnnl_ab),
                       w = md(2, wd, dnnl_f32, dnnl_format_tag_any),
                       b = md(1, bd, dnnl_f32, dnnl_a), d = md(2, dd, dnnl_f32, dnnl_ab);
    dnnl_inner_product_desc_t f, bd1, bw;
    CHECK(dnnl_inner_product_forward_desc_init(&f, dnnl_forward_training, &s, &w, &b, &d));
    CHECK(dnnl_inner_product_backward_data_desc_init(&bd1, &s, &w, &d));
    CHECK(dnnl_inner_product_backward_weights_desc_init(&bw, &s, &w, &b, &d));
    dnnl_primitive_desc_t fpd = make_pd(&f, NULL), p1 = make_pd(&bd1, fpd), p2 = make_pd(&bw, fpd);
    run_pd(fpd, 3);
    run_pd(p1, 2);
    run_pd(p2, 2);
    dnnl_primitive_desc_destroy(fpd);
    dnnl_primitive_desc_destroy(p1);
    dnnl_primitive_desc_destroy(p2);
}

static void matmul(dnnl_data_type_t dt, int b, int m, int k, int n)
{
    dnnl_dims_t sd = {b, m, k}, wd = {b, k, n}, dd = {b, m, n};
    dnnl_memory_desc_t s = md(3, sd, dt, dnnl_abc), w = md(3, wd, dt, dnnl_abc),
                       d = md(3, dd, dt, dnnl_abc);
    dnnl_matmul_desc_t mm;
    CHECK(dnnl_matmul_desc_init(&mm, &s, &w, NULL, &d));
    dnnl_primitive_desc_t pd = make_pd(&mm, NULL);
    run_pd(pd, 3);
    dnnl_primitive_desc_destroy(pd);
}

/* kind: 0 vanilla_lstm, 1 vanilla_gru, 2 lbr_gru, 3 vanilla_rnn (tanh). */
static void rnn(int kind, dnnl_rnn_direction_t dir, int l, int t, int mb, int sic, int slc, int dhc,
                int bwd)
{
    int gates = kind == 0 ? 4 : kind == 3 ? 1 : 3;
    int dirs = dir == dnnl_bidirectional_concat || dir == dnnl_bidirectional_sum ? 2 : 1;
    int dlc = dir == dnnl_bidirectional_concat ? 2 * dhc : dhc;
    dnnl_dims_t src_layer = {t, mb, slc}, src_iter = {l, dirs, mb, sic},
                w_layer = {l, dirs, slc, gates, dhc}, w_iter = {l, dirs, sic, gates, dhc},
                bias = {l, dirs, gates + (kind == 2), dhc}, dst_layer = {t, mb, dlc},
                dst_iter = {l, dirs, mb, dhc};
    dnnl_memory_desc_t sl = md(3, src_layer, dnnl_f32, dnnl_tnc),
                       si = md(4, src_iter, dnnl_f32, dnnl_ldnc),
                       wl = md(5, w_layer, dnnl_f32, dnnl_format_tag_any),
                       wi = md(5, w_iter, dnnl_f32, dnnl_format_tag_any),
                       b = md(4, bias, dnnl_f32, dnnl_ldgo),
                       dl = md(3, dst_layer, dnnl_f32, dnnl_tnc),
                       di = md(4, dst_iter, dnnl_f32, dnnl_ldnc);
    dnnl_prop_kind_t pk = bwd ? dnnl_forward_training : dnnl_forward_inference;
    dnnl_rnn_desc_t f, bd;
    switch (kind) {
    case 0:
        CHECK(dnnl_lstm_forward_desc_init(&f, pk, dir, &sl, &si, &si, &wl, &wi, &b, &dl, &di, &di,
                                          0));
        break;
    case 1:
        CHECK(dnnl_gru_forward_desc_init(&f, pk, dir, &sl, &si, &wl, &wi, &b, &dl, &di, 0));
        break;
    case 2:
        CHECK(dnnl_lbr_gru_forward_desc_init(&f, pk, dir, &sl, &si, &wl, &wi, &b, &dl, &di, 0));
        break;
    default:
        CHECK(dnnl_vanilla_rnn_forward_desc_init(&f, pk, dnnl_eltwise_tanh, dir, &sl, &si, &wl, &wi,
                                                 &b, &dl, &di, 0, 0.f, 0.f));
    }
    dnnl_primitive_desc_t fpd = make_pd(&f, NULL);
    run_pd(fpd, 3);
    if (bwd && kind == 0) {
        CHECK(dnnl_lstm_backward_desc_init(&bd, dnnl_backward, dir, &sl, &si, &si, &wl, &wi, &b,
                                           &dl, &di, &di, &sl, &si, &si, &wl, &wi, &b, &dl, &di,
                                           &di, 0));
        dnnl_primitive_desc_t bpd = make_pd(&bd, fpd);
        run_pd(bpd, 2);
        dnnl_primitive_desc_destroy(bpd);
    }
    dnnl_primitive_desc_destroy(fpd);
}

static void norms(void)
{
    dnnl_dims_t d4 = {8, 32, 14, 14}, d3 = {4, 16, 64};
    dnnl_memory_desc_t x = md(4, d4, dnnl_f32, dnnl_nchw), y = md(3, d3, dnnl_f32, dnnl_tnc);
    dnnl_batch_normalization_desc_t bf, bb;
    CHECK(dnnl_batch_normalization_forward_desc_init(&bf, dnnl_forward_training, &x, 1e-5f,
                                                     dnnl_use_scaleshift));
    CHECK(dnnl_batch_normalization_backward_desc_init(&bb, dnnl_backward, &x, &x, 1e-5f,
                                                      dnnl_use_scaleshift));
    dnnl_primitive_desc_t fpd = make_pd(&bf, NULL), bpd = make_pd(&bb, fpd);
    run_pd(fpd, 3);
    run_pd(bpd, 2);
    dnnl_primitive_desc_destroy(fpd);
    dnnl_primitive_desc_destroy(bpd);
    dnnl_layer_normalization_desc_t lf;
    CHECK(dnnl_layer_normalization_forward_desc_init(&lf, dnnl_forward_inference, &y, NULL, 1e-5f,
                                                     dnnl_use_scaleshift));
    dnnl_primitive_desc_t lpd = make_pd(&lf, NULL);
    run_pd(lpd, 3);
    dnnl_primitive_desc_destroy(lpd);
}

static void elementwise(void)
{
    dnnl_dims_t d4 = {8, 32, 14, 14}, o4 = {8, 32, 7, 7}, k = {2, 2}, s = {2, 2}, p = {0, 0},
                dil = {0, 0};
    dnnl_memory_desc_t x = md(4, d4, dnnl_f32, dnnl_nchw), y = md(4, o4, dnnl_f32, dnnl_nchw);
    dnnl_eltwise_desc_t ef, eb;
    CHECK(dnnl_eltwise_forward_desc_init(&ef, dnnl_forward_training, dnnl_eltwise_relu, &x, 0.f,
                                         0.f));
    CHECK(dnnl_eltwise_backward_desc_init(&eb, dnnl_eltwise_relu, &x, &x, 0.f, 0.f));
    dnnl_primitive_desc_t fpd = make_pd(&ef, NULL), bpd = make_pd(&eb, fpd);
    run_pd(fpd, 3);
    run_pd(bpd, 2);
    dnnl_primitive_desc_destroy(fpd);
    dnnl_primitive_desc_destroy(bpd);

    dnnl_pooling_v2_desc_t pm, pa;
    CHECK(dnnl_pooling_v2_forward_desc_init(&pm, dnnl_forward_inference, dnnl_pooling_max, &x, &y,
                                            s, k, dil, p, p));
    CHECK(dnnl_pooling_v2_forward_desc_init(
        &pa, dnnl_forward_inference, dnnl_pooling_avg_exclude_padding, &x, &y, s, k, dil, p, p));
    dnnl_primitive_desc_t p1 = make_pd(&pm, NULL), p2 = make_pd(&pa, NULL);
    run_pd(p1, 3);
    run_pd(p2, 3);
    dnnl_primitive_desc_destroy(p1);
    dnnl_primitive_desc_destroy(p2);

    dnnl_binary_desc_t bin;
    CHECK(dnnl_binary_desc_init(&bin, dnnl_binary_add, &x, &x, &x));
    dnnl_primitive_desc_t p3 = make_pd(&bin, NULL);
    run_pd(p3, 3);
    dnnl_primitive_desc_destroy(p3);

    dnnl_dims_t sm = {64, 1000};
    dnnl_memory_desc_t z = md(2, sm, dnnl_f32, dnnl_ab);
    dnnl_softmax_desc_t sf;
    CHECK(dnnl_softmax_forward_desc_init(&sf, dnnl_forward_inference, &z, 1));
    dnnl_primitive_desc_t p4 = make_pd(&sf, NULL);
    run_pd(p4, 3);
    dnnl_primitive_desc_destroy(p4);

    dnnl_memory_desc_t srcs[2] = {x, x};
    float scales[2] = {1.f, 1.f};
    dnnl_primitive_desc_t p5;
    CHECK(dnnl_sum_primitive_desc_create(&p5, &x, 2, scales, srcs, NULL, eng));
    run_pd(p5, 3);
    dnnl_primitive_desc_destroy(p5);

    dnnl_dims_t cd = {8, 64, 14, 14};
    dnnl_memory_desc_t c = md(4, cd, dnnl_f32, dnnl_nchw);
    dnnl_primitive_desc_t p6;
    CHECK(dnnl_concat_primitive_desc_create(&p6, &c, 2, 1, srcs, NULL, eng));
    run_pd(p6, 3);
    dnnl_primitive_desc_destroy(p6);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    int all = strcmp(what, "all") == 0;
    if (all || strcmp(what, "conv") == 0) {
        conv(0, dnnl_f32, dnnl_f32, dnnl_f32, 2, 1, 16, 16, 28, 3, 2, 0, 1, 1); /* plain, strided */
        conv(0, dnnl_f32, dnnl_f32, dnnl_f32, 2, 2, 16, 32, 14, 3, 1, 1, 2,
             0); /* grouped, dilated */
        conv(0, dnnl_bf16, dnnl_bf16, dnnl_bf16, 2, 1, 16, 16, 28, 3, 2, 0, 1, 0);
        conv(0, dnnl_u8, dnnl_s8, dnnl_s32, 2, 1, 16, 16, 28, 3, 1, 0, 1, 0);
        conv(1, dnnl_f32, dnnl_f32, dnnl_f32, 2, 1, 16, 8, 14, 3, 2, 0, 1, 1); /* deconvolution */
    }
    if (all || strcmp(what, "ip") == 0) {
        inner_product(16, 256, 128);
        matmul(dnnl_f32, 4, 32, 64, 48);
        matmul(dnnl_bf16, 4, 32, 64, 48);
    }
    if (all || strcmp(what, "rnn") == 0) {
        rnn(0, dnnl_unidirectional_left2right, 1, 16, 16, 16, 32, 16, 1); /* the paper's LSTM */
        rnn(0, dnnl_bidirectional_concat, 2, 8, 4, 16, 16, 16, 0);
        rnn(1, dnnl_unidirectional_left2right, 1, 8, 4, 16, 32, 16, 0);
        rnn(2, dnnl_unidirectional_left2right, 1, 8, 4, 16, 32, 16, 0);
        rnn(3, dnnl_unidirectional_left2right, 1, 8, 4, 16, 32, 16, 0);
    }
    if (all || strcmp(what, "misc") == 0) {
        norms();
        elementwise();
    }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
}
