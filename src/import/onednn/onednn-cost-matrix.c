/* oneDNN cost model, the matrix primitives: convolution and deconvolution, inner product, matmul
 * and RNN cells (FLOPs from the problem, bytes from the memory descriptors). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onednn-internal.h"
#include "rooftime/util/strings.h"

/* Convolution and deconvolution. */
typedef struct conv_ctx {
    double mb, g, ic, oc, id, ih, iw, od, oh, ow, kd, kh, kw;
} conv_ctx;

static double conv_elems(const void *c_, const char *arg, const char *prop, double *mult)
{
    (void)prop;
    (void)mult;
    const conv_ctx *c = c_;
    int d;
    const char *a = rt_onednn_base_arg(arg, &d);
    if (strcmp(a, "src") == 0)
        return c->mb * c->ic * c->id * c->ih * c->iw;
    if (strcmp(a, "wei") == 0 || strcmp(a, "weights") == 0)
        return c->oc * (c->ic / c->g) * c->kd * c->kh * c->kw;
    if (strcmp(a, "bia") == 0 || strcmp(a, "bias") == 0)
        return c->oc;
    if (strcmp(a, "dst") == 0)
        return c->mb * c->oc * c->od * c->oh * c->ow;
    return -1;
}

int rt_onednn_cost_conv(int deconv, int window, const rt_shape *sh, const mdlist *ml,
                        const char *prop, cost *c, rt_error *err)
{
    static const char *need[] = {"mb", "ic", "oc"};
    for (size_t i = 0; i < 3; i++)
        if (!rt_shape_has(sh, need[i])) {
            rt_error_set(err, "problem descriptor lacks '%s'", need[i]);
            return -1;
        }
    if (!rt_shape_has(sh, "iw") && !rt_shape_has(sh, "ih") && !rt_shape_has(sh, "id")) {
        rt_error_set(err, "problem descriptor has no spatial dimension");
        return -1;
    }
    conv_ctx x = {.mb = rt_shape_get(sh, "mb", 1),
                  .g = rt_shape_get(sh, "g", 1),
                  .ic = rt_shape_get(sh, "ic", 1),
                  .oc = rt_shape_get(sh, "oc", 1)};
    const char dims[3] = {'d', 'h', 'w'};
    double *in[3] = {&x.id, &x.ih, &x.iw}, *out[3] = {&x.od, &x.oh, &x.ow},
           *ker[3] = {&x.kd, &x.kh, &x.kw};
    double taps = 1;
    for (int i = 0; i < 3; i++) {
        char k[4][4];
        snprintf(k[0], 4, "i%c", dims[i]);
        snprintf(k[1], 4, "o%c", dims[i]);
        snprintf(k[2], 4, "k%c", dims[i]);
        snprintf(k[3], 4, "s%c", dims[i]);
        char kd[4], kp[4];
        snprintf(kd, 4, "d%c", dims[i]);
        snprintf(kp, 4, "p%c", dims[i]);
        *in[i] = rt_shape_get(sh, k[0], 1);
        *out[i] = rt_shape_get(sh, k[1], 1);
        *ker[i] = rt_shape_get(sh, k[2], 1);
        double s = rt_shape_get(sh, k[3], 1), d = rt_shape_get(sh, kd, 0),
               p = rt_shape_get(sh, kp, 0);
        if (s < 1) {
            rt_error_set(err, "stride %s is %g", k[3], s);
            return -1;
        }
        /* Deconvolution runs the window over its source: each source position scatters into
         * the destination taps that land inside it. */
        if (window)
            taps *= (deconv ? *in[i] : *out[i]) * *ker[i];
        else
            taps *= deconv ? rt_onednn_valid_taps(*in[i], *out[i], *ker[i], s, d, p)
                           : rt_onednn_valid_taps(*out[i], *in[i], *ker[i], s, d, p);
    }
    if (x.g < 1 || fmod(x.ic, x.g) != 0 || fmod(x.oc, x.g) != 0) {
        rt_error_set(err, "channels ic%g oc%g not divisible by groups g%g", x.ic, x.oc, x.g);
        return -1;
    }
    double macs = x.mb * x.oc * (x.ic / x.g) * taps;
    c->n.macs = macs;
    int has_bias = 0;
    for (int i = 0; i < ml->n; i++)
        if ((strcmp(ml->m[i].arg, "bia") == 0 || strcmp(ml->m[i].arg, "bias") == 0) &&
            strcmp(ml->m[i].dt, "undef") != 0)
            has_bias = 1;
    /* The bias is one add per output element forward, and one reduction add backward. */
    if (has_bias && (rt_onednn_is_forward(prop) || strcmp(prop, "backward_weights") == 0))
        c->n.bias_adds = x.mb * x.oc * x.od * x.oh * x.ow;
    if (rt_onednn_sum_bytes(ml, &x, conv_elems, prop, &c->bytes, err) != 0)
        return -1;
    c->bytes_known = 1;
    return 0;
}

/* Inner product. */
typedef struct ip_ctx {
    double mb, ic, oc, sp;
} ip_ctx;

static double ip_elems(const void *c_, const char *arg, const char *prop, double *mult)
{
    (void)prop;
    (void)mult;
    const ip_ctx *c = c_;
    int d;
    const char *a = rt_onednn_base_arg(arg, &d);
    if (strcmp(a, "src") == 0)
        return c->mb * c->ic * c->sp;
    if (strcmp(a, "wei") == 0 || strcmp(a, "weights") == 0)
        return c->oc * c->ic * c->sp;
    if (strcmp(a, "bia") == 0 || strcmp(a, "bias") == 0)
        return c->oc;
    if (strcmp(a, "dst") == 0)
        return c->mb * c->oc;
    return -1;
}

int rt_onednn_cost_ip(const rt_shape *sh, const mdlist *ml, const char *prop, cost *c,
                      rt_error *err)
{
    if (!rt_shape_has(sh, "mb") || !rt_shape_has(sh, "ic") || !rt_shape_has(sh, "oc")) {
        rt_error_set(err, "inner product problem descriptor needs mb, ic and oc");
        return -1;
    }
    ip_ctx x = {rt_shape_get(sh, "mb", 1), rt_shape_get(sh, "ic", 1), rt_shape_get(sh, "oc", 1),
                rt_shape_get(sh, "id", 1) * rt_shape_get(sh, "ih", 1) * rt_shape_get(sh, "iw", 1)};
    c->n.macs = x.mb * x.oc * x.ic * x.sp;
    for (int i = 0; i < ml->n; i++)
        if (strcmp(ml->m[i].arg, "bia") == 0 && strcmp(ml->m[i].dt, "undef") != 0 &&
            (rt_onednn_is_forward(prop) || strcmp(prop, "backward_weights") == 0))
            c->n.bias_adds += x.mb * x.oc;
    if (rt_onednn_sum_bytes(ml, &x, ip_elems, prop, &c->bytes, err) != 0)
        return -1;
    c->bytes_known = 1;
    return 0;
}

/* Matmul: "src dims:weights dims:dst dims" (2.x), "src dims:weights dims" (3.x: the destination
 * is the broadcast batch dims, then M x N). */
typedef struct mm_ctx {
    double src, wei, dst, n;
} mm_ctx;

static double mm_elems(const void *c_, const char *arg, const char *prop, double *mult)
{
    (void)prop;
    (void)mult;
    const mm_ctx *c = c_;
    if (strcmp(arg, "src") == 0)
        return c->src;
    if (strcmp(arg, "wei") == 0 || strcmp(arg, "weights") == 0)
        return c->wei;
    if (strcmp(arg, "dst") == 0)
        return c->dst;
    if (strcmp(arg, "bia") == 0 || strcmp(arg, "bias") == 0)
        return c->n; /* the verbose line does not give the bias dims; one row is the usual case */
    return -1;
}

int rt_onednn_cost_matmul(const char *problem, const mdlist *ml, const char *prop, cost *c,
                          rt_error *err)
{
    dimlists dl;
    if (rt_onednn_dims_parse(problem, &dl) != 0 || dl.n < 2 || dl.n > 3 || dl.nd[0] < 2 ||
        dl.nd[1] != dl.nd[0] || (dl.n == 3 && dl.nd[2] != dl.nd[0])) {
        rt_error_set(err, "matmul problem '%s' is not SRC:WEIGHTS[:DST] dims", problem);
        return -1;
    }
    int nd = dl.nd[0];
    double m = dl.d[0][nd - 2], k = dl.d[0][nd - 1], n = dl.d[1][nd - 1];
    double batch = 1;
    for (int i = 0; i < nd - 2; i++) /* the destination's batch dims (broadcast: the larger) */
        batch *= dl.n == 3 ? dl.d[2][i] : dl.d[0][i] > dl.d[1][i] ? dl.d[0][i] : dl.d[1][i];
    c->n.macs = batch * m * n * k;
    for (int i = 0; i < ml->n; i++)
        if (strcmp(ml->m[i].arg, "bia") == 0 && strcmp(ml->m[i].dt, "undef") != 0)
            c->n.bias_adds += batch * m * n;
    mm_ctx x = {rt_onednn_dims_prod(&dl, 0), rt_onednn_dims_prod(&dl, 1), batch * m * n, n};
    if (rt_onednn_sum_bytes(ml, &x, mm_elems, prop, &c->bytes, err) != 0)
        return -1;
    c->bytes_known = 1;
    return 0;
}

/* RNN, LSTM, GRU. */
typedef struct rnn_ctx {
    double l, t, mb, sic, slc, dhc, dic, dirs, gates, bias_gates, dlc;
} rnn_ctx;

static double rnn_elems(const void *c_, const char *arg, const char *prop, double *mult)
{
    (void)prop;
    (void)mult;
    const rnn_ctx *c = c_;
    int d;
    const char *a = rt_onednn_base_arg(arg, &d);
    double ld = c->l * c->dirs;
    if (strcmp(a, "src_layer") == 0)
        return c->t * c->mb * c->slc;
    if (strcmp(a, "src_iter") == 0)
        return ld * c->mb * c->sic;
    if (strcmp(a, "src_iter_c") == 0 || strcmp(a, "dst_iter_c") == 0)
        return ld * c->mb * c->dhc;
    if (strcmp(a, "wei_layer") == 0)
        return ld * c->slc * c->gates * c->dhc;
    if (strcmp(a, "wei_iter") == 0)
        return ld * c->sic * c->gates * c->dhc;
    if (strcmp(a, "wei_peephole") == 0)
        return ld * 3 * c->dhc;
    if (strcmp(a, "wei_proj") == 0 || strcmp(a, "wei_projection") == 0)
        return ld * c->dhc * c->dic;
    if (strcmp(a, "bias") == 0 || strcmp(a, "bia") == 0)
        return ld * c->bias_gates * c->dhc;
    if (strcmp(a, "dst_layer") == 0)
        return c->t * c->mb * c->dlc;
    if (strcmp(a, "dst_iter") == 0)
        return ld * c->mb * c->dic;
    if (strcmp(a, "src_layer_attention") == 0 || strcmp(a, "attention") == 0)
        return c->t * c->mb;
    return -1;
}

int rt_onednn_cost_rnn(const rt_shape *sh, const mdlist *ml, const char *prop, const char *aux,
                       cost *c, rt_error *err)
{
    static const char *need[] = {"l", "t", "mb", "sic", "slc", "dhc"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!rt_shape_has(sh, need[i])) {
            rt_error_set(err, "rnn problem descriptor lacks '%s'", need[i]);
            return -1;
        }
    char alg[64], dir[64];
    rt_onednn_aux_get(aux, "alg", alg, sizeof alg);
    rt_onednn_aux_get(aux, "direction", dir, sizeof dir);
    rnn_ctx x = {.l = rt_shape_get(sh, "l", 1),
                 .t = rt_shape_get(sh, "t", 1),
                 .mb = rt_shape_get(sh, "mb", 1),
                 .sic = rt_shape_get(sh, "sic", 1),
                 .slc = rt_shape_get(sh, "slc", 1),
                 .dhc = rt_shape_get(sh, "dhc", 1)};
    x.dic = rt_shape_get(sh, "dic", x.dhc);
    /* Gates per cell: what each cell's GEMMs produce. */
    if (strcmp(alg, "vanilla_lstm") == 0)
        x.gates = 4;
    else if (strcmp(alg, "vanilla_gru") == 0 || strcmp(alg, "lbr_gru") == 0 ||
             strcmp(alg, "vanilla_augru") == 0 || strcmp(alg, "lbr_augru") == 0)
        x.gates = 3;
    else if (strcmp(alg, "vanilla_rnn") == 0)
        x.gates = 1;
    else {
        rt_error_set(err, "unknown rnn cell 'alg:%s'", alg);
        return -1;
    }
    /* Linear-before-reset GRU keeps a fourth bias for the recurrent part of the candidate gate. */
    x.bias_gates = strncmp(alg, "lbr_", 4) == 0 ? x.gates + 1 : x.gates;
    if (strncmp(dir, "bidirectional", 13) == 0)
        x.dirs = 2;
    else if (strncmp(dir, "unidirectional", 14) == 0 || dir[0] == '\0')
        x.dirs = 1;
    else {
        rt_error_set(err, "unknown rnn 'direction:%s'", dir);
        return -1;
    }
    x.dlc = strcmp(dir, "bidirectional_concat") == 0 ? 2 * x.dic : x.dic;
    double cells = x.l * x.dirs * x.t;
    /* Per cell: the layer and the iteration GEMMs, the LSTM projection when dic != dhc, and the
     * bias adds; activations and gate products are left out (elementwise, a few per element). */
    c->n.cells = cells;
    c->n.gemm_macs = x.mb * x.gates * x.dhc * (x.slc + x.sic);
    if (x.gates == 4 && x.dic != x.dhc)
        c->n.gemm_macs += x.mb * x.dhc * x.dic;
    c->n.bias_adds = x.bias_gates * x.mb * x.dhc;
    /* Backward (data/onednn/cost.json): the data gradient and the weights gradient GEMMs, each
     * as large as forward's. */
    if (rt_onednn_sum_bytes(ml, &x, rnn_elems, prop, &c->bytes, err) != 0)
        return -1;
    c->bytes_known = 1;
    return 0;
}
