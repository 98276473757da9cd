/* Import oneDNN verbose logs: kernels, FLOPs and bytes per primitive execution. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rooftime/core/profile.h"
#include "rooftime/import/onednn.h"
#include "rooftime/util/error.h"
#include "rooftime/util/line-reader.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/sliding-window.h"
#include "rooftime/util/strings.h"

/* How many unreadable lines are described one by one, and how many line numbers are listed. */
#define MAX_BAD_DETAILS 20
#define MAX_BAD_LINES 200
#define MAX_FIELDS 64

/* One distinct primitive execution: kind + implementation + propagation + memory descriptors +
 * auxiliary + problem. FLOPs and bytes are per call, computed once when it is first seen. */
typedef struct entry {
    char *name;
    double calls;
    double ms;
    rt_values flops;
    rt_values bytes;
} entry;

struct rt_onednn_reader {
    char *origin;
    size_t lineno;
    size_t n_exec, n_create, n_info, n_skipped;
    rt_name_index ix; /* key -> index into e */
    entry *e;
    size_t n_e, cap_e;
    rt_name_index names;       /* kernel names in use, so two keys never share a name */
    rt_name_index next_number; /* name -> the next "#k" suffix to try for it */
    size_t n_bad;
    size_t bad_lines[MAX_BAD_LINES];
    char *bad_msgs[MAX_BAD_DETAILS];
    rt_warnings notes; /* one per thing the model does not cover, e.g. an unknown primitive kind */
    rt_name_index noted;
    char *version;
    char *isa;
    char *engine;
};

/* ---- small parsers ---- */

/* Problem descriptors such as "g2mb16_ic64oc64_ih112oh56kh3sh2dh0ph1_iw112ow56kw3sw2dw0pw1" or
 * "l1t16mb16sic16slc32dhc16dic16": letters name the number that follows. */
typedef struct shape {
    struct {
        char k[8];
        double v;
    } kv[48];
    int n;
} shape;

static int shape_parse(const char *s, shape *sh)
{
    sh->n = 0;
    const char *p = s;
    while (*p) {
        if (*p == '_' || *p == ' ') {
            p++;
            continue;
        }
        if (*p == 'n' && p[1] == '"') { /* a primitive's name: n"text" */
            const char *q = strchr(p + 2, '"');
            if (!q)
                return -1;
            p = q + 1;
            continue;
        }
        const char *k0 = p;
        while (isalpha((unsigned char)*p))
            p++;
        size_t kl = (size_t)(p - k0);
        if (kl == 0 || kl >= sizeof sh->kv[0].k || !isdigit((unsigned char)*p))
            return -1;
        double v = 0;
        while (isdigit((unsigned char)*p))
            v = v * 10 + (*p++ - '0');
        if (sh->n == (int)(sizeof sh->kv / sizeof sh->kv[0]))
            return -1;
        memcpy(sh->kv[sh->n].k, k0, kl);
        sh->kv[sh->n].k[kl] = '\0';
        sh->kv[sh->n].v = v;
        sh->n++;
    }
    return sh->n > 0 ? 0 : -1;
}

static int shape_has(const shape *sh, const char *k)
{
    for (int i = 0; i < sh->n; i++)
        if (strcmp(sh->kv[i].k, k) == 0)
            return 1;
    return 0;
}

static double shape_get(const shape *sh, const char *k, double dflt)
{
    for (int i = 0; i < sh->n; i++)
        if (strcmp(sh->kv[i].k, k) == 0)
            return sh->kv[i].v;
    return dflt;
}

/* Dimension lists such as "4x32x64:4x64x48:4x32x48". */
#define MAX_LISTS 16
#define MAX_DIMS 12
typedef struct dimlists {
    double d[MAX_LISTS][MAX_DIMS];
    int nd[MAX_LISTS];
    int n;
} dimlists;

static int dims_parse(const char *s, dimlists *dl)
{
    memset(dl, 0, sizeof *dl);
    const char *p = s;
    if (!*p)
        return -1;
    dl->n = 1;
    for (;;) {
        if (!isdigit((unsigned char)*p))
            return -1;
        double v = 0;
        while (isdigit((unsigned char)*p))
            v = v * 10 + (*p++ - '0');
        int l = dl->n - 1;
        if (dl->nd[l] == MAX_DIMS)
            return -1;
        dl->d[l][dl->nd[l]++] = v;
        if (*p == '\0')
            return 0;
        if (*p == 'x') {
            p++;
        } else if (*p == ':') {
            if (dl->n == MAX_LISTS)
                return -1;
            dl->n++;
            p++;
        } else {
            return -1;
        }
    }
}

static double dims_prod(const dimlists *dl, int l)
{
    double p = 1;
    for (int i = 0; i < dl->nd[l]; i++)
        p *= dl->d[l][i];
    return p;
}

/* One memory descriptor of the verbose line: "src_f32::blocked:abcd:f0" (2.x, early 3.x) or
 * "src:f32::blocked:abcd::f0" (later 3.x). */
typedef struct mdesc {
    char arg[32];
    char dt[16];
    char layout[32];
} mdesc;

static double dt_size(const char *dt)
{
    static const struct {
        const char *dt;
        double size;
    } t[] = {{"f32", 4},  {"f64", 8},     {"bf16", 2},    {"f16", 2},     {"s8", 1},
             {"u8", 1},   {"s32", 4},     {"f8_e5m2", 1}, {"f8_e4m3", 1}, {"s4", 0.5},
             {"u4", 0.5}, {"boolean", 1}, {"undef", 0}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(t[i].dt, dt) == 0)
            return t[i].size;
    return -1;
}

static int md_parse(const char *tok, mdesc *m)
{
    memset(m, 0, sizeof *m);
    char buf[256];
    if (strlen(tok) >= sizeof buf)
        return -1;
    strcpy(buf, tok);
    char *parts[8];
    int np = 0;
    char *s = buf;
    parts[np++] = s;
    for (; *s && np < 8; s++)
        if (*s == ':') {
            *s = '\0';
            parts[np++] = s + 1;
        }
    if (np >= 2 && dt_size(parts[1]) >= 0) { /* later 3.x: arg:dt:... */
        snprintf(m->arg, sizeof m->arg, "%s", parts[0]);
        snprintf(m->dt, sizeof m->dt, "%s", parts[1]);
        if (np >= 5)
            snprintf(m->layout, sizeof m->layout, "%s", parts[4]);
        return 0;
    }
    /* The data type is the longest known suffix "_DT" of the first part (f8_e5m2 holds a '_'). */
    static const char *dts[] = {"f8_e5m2", "f8_e4m3", "boolean", "undef", "bf16", "f16", "f32",
                                "f64",     "s32",     "s8",      "u8",    "s4",   "u4"};
    char *us = NULL;
    size_t l0 = strlen(parts[0]);
    for (size_t i = 0; i < sizeof dts / sizeof dts[0] && !us; i++) {
        size_t dl = strlen(dts[i]);
        if (l0 > dl + 1 && parts[0][l0 - dl - 1] == '_' && strcmp(parts[0] + l0 - dl, dts[i]) == 0)
            us = parts[0] + l0 - dl - 1;
    }
    if (!us)
        return -1;
    *us = '\0';
    snprintf(m->arg, sizeof m->arg, "%s", parts[0]);
    snprintf(m->dt, sizeof m->dt, "%s", us + 1);
    /* "src_f32::blocked:abcd:f0" -> parts: src_f32, "", blocked, abcd, f0 */
    if (np >= 4)
        snprintf(m->layout, sizeof m->layout, "%s", parts[3]);
    return 0;
}

#define MAX_MDS 24
typedef struct mdlist {
    mdesc m[MAX_MDS];
    int n;
} mdlist;

static int mds_parse(const char *s, mdlist *ml, rt_error *err)
{
    ml->n = 0;
    char buf[2048];
    if (strlen(s) >= sizeof buf) {
        rt_error_set(err, "memory descriptors too long");
        return -1;
    }
    strcpy(buf, s);
    char *save = NULL;
    for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        if (ml->n == MAX_MDS) {
            rt_error_set(err, "more than %d memory descriptors", MAX_MDS);
            return -1;
        }
        if (md_parse(tok, &ml->m[ml->n]) != 0) {
            rt_error_set(err, "cannot read memory descriptor '%s'", tok);
            return -1;
        }
        ml->n++;
    }
    if (ml->n == 0) {
        rt_error_set(err, "no memory descriptors");
        return -1;
    }
    return 0;
}

/* The value of "key:value" in the auxiliary field ("alg:vanilla_lstm direction:... flags:S"). */
static void aux_get(const char *aux, const char *key, char *out, size_t n)
{
    out[0] = '\0';
    size_t kl = strlen(key);
    for (const char *p = aux; (p = strstr(p, key)) != NULL; p += kl) {
        if ((p == aux || p[-1] == ' ') && p[kl] == ':') {
            const char *v = p + kl + 1;
            size_t l = strcspn(v, " ");
            if (l >= n)
                l = n - 1;
            memcpy(out, v, l);
            out[l] = '\0';
            return;
        }
    }
}

/* The argument name without "diff_" (its traffic is the same size as the plain argument's). */
static const char *base_arg(const char *arg, int *is_diff)
{
    *is_diff = strncmp(arg, "diff_", 5) == 0;
    return *is_diff ? arg + 5 : arg;
}

/* ---- FLOP and byte models per primitive kind ---- */

/*
 * Multiply-adds of a sliding window along one spatial dimension: for each of `out` output
 * positions o, the taps k in [0, kern) whose input index o*s - p + k*(d+1) lies in [0, in).
 * oneDNN's dilation is 0-based (d = 0: dense). Taps that fall into padding do no work. NAN when a
 * size is not a whole number within RT_WINDOW_MAX_DIM (checked before any conversion).
 */
static double valid_taps(double out, double in, double kern, double s, double d, double p)
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

static int is_forward(const char *prop)
{
    return strncmp(prop, "forward", 7) == 0;
}

typedef struct cost {
    double flops;    /* per call */
    double bytes;    /* per call */
    int flops_known; /* 0: the kind is not modelled, FLOPs left out */
    int bytes_known;
} cost;

/* Elements of a memory descriptor whose size follows from `elems(arg)`; -1 when the argument is
 * not one this kind has. */
typedef double (*elems_fn)(const void *ctx, const char *arg, const char *prop, double *mult);

static int sum_bytes(const mdlist *ml, const void *ctx, elems_fn f, const char *prop, double *bytes,
                     rt_error *err)
{
    double b = 0;
    for (int i = 0; i < ml->n; i++) {
        const mdesc *m = &ml->m[i];
        double sz = dt_size(m->dt);
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
    const char *a = base_arg(arg, &d);
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

static int cost_conv(int deconv, const shape *sh, const mdlist *ml, const char *prop, cost *c,
                     rt_error *err)
{
    static const char *need[] = {"mb", "ic", "oc"};
    for (size_t i = 0; i < 3; i++)
        if (!shape_has(sh, need[i])) {
            rt_error_set(err, "problem descriptor lacks '%s'", need[i]);
            return -1;
        }
    if (!shape_has(sh, "iw") && !shape_has(sh, "ih") && !shape_has(sh, "id")) {
        rt_error_set(err, "problem descriptor has no spatial dimension");
        return -1;
    }
    conv_ctx x = {.mb = shape_get(sh, "mb", 1),
                  .g = shape_get(sh, "g", 1),
                  .ic = shape_get(sh, "ic", 1),
                  .oc = shape_get(sh, "oc", 1)};
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
        *in[i] = shape_get(sh, k[0], 1);
        *out[i] = shape_get(sh, k[1], 1);
        *ker[i] = shape_get(sh, k[2], 1);
        double s = shape_get(sh, k[3], 1), d = shape_get(sh, kd, 0), p = shape_get(sh, kp, 0);
        if (s < 1) {
            rt_error_set(err, "stride %s is %g", k[3], s);
            return -1;
        }
        /* Deconvolution runs the window over its source: each source position scatters into
         * the destination taps that land inside it. */
        taps *= deconv ? valid_taps(*in[i], *out[i], *ker[i], s, d, p)
                       : valid_taps(*out[i], *in[i], *ker[i], s, d, p);
    }
    if (x.g < 1 || fmod(x.ic, x.g) != 0 || fmod(x.oc, x.g) != 0) {
        rt_error_set(err, "channels ic%g oc%g not divisible by groups g%g", x.ic, x.oc, x.g);
        return -1;
    }
    double macs = x.mb * x.oc * (x.ic / x.g) * taps;
    c->flops = 2 * macs;
    int has_bias = 0;
    for (int i = 0; i < ml->n; i++)
        if ((strcmp(ml->m[i].arg, "bia") == 0 || strcmp(ml->m[i].arg, "bias") == 0) &&
            strcmp(ml->m[i].dt, "undef") != 0)
            has_bias = 1;
    /* The bias is one add per output element forward, and one reduction add backward. */
    if (has_bias && (is_forward(prop) || strcmp(prop, "backward_weights") == 0))
        c->flops += x.mb * x.oc * x.od * x.oh * x.ow;
    c->flops_known = 1;
    if (sum_bytes(ml, &x, conv_elems, prop, &c->bytes, err) != 0)
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
    const char *a = base_arg(arg, &d);
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

static int cost_ip(const shape *sh, const mdlist *ml, const char *prop, cost *c, rt_error *err)
{
    if (!shape_has(sh, "mb") || !shape_has(sh, "ic") || !shape_has(sh, "oc")) {
        rt_error_set(err, "inner product problem descriptor needs mb, ic and oc");
        return -1;
    }
    ip_ctx x = {shape_get(sh, "mb", 1), shape_get(sh, "ic", 1), shape_get(sh, "oc", 1),
                shape_get(sh, "id", 1) * shape_get(sh, "ih", 1) * shape_get(sh, "iw", 1)};
    c->flops = 2 * x.mb * x.oc * x.ic * x.sp;
    for (int i = 0; i < ml->n; i++)
        if (strcmp(ml->m[i].arg, "bia") == 0 && strcmp(ml->m[i].dt, "undef") != 0 &&
            (is_forward(prop) || strcmp(prop, "backward_weights") == 0))
            c->flops += x.mb * x.oc;
    c->flops_known = 1;
    if (sum_bytes(ml, &x, ip_elems, prop, &c->bytes, err) != 0)
        return -1;
    c->bytes_known = 1;
    return 0;
}

/* Matmul: "src dims:weights dims:dst dims". */
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

static int cost_matmul(const char *problem, const mdlist *ml, const char *prop, cost *c,
                       rt_error *err)
{
    dimlists dl;
    if (dims_parse(problem, &dl) != 0 || dl.n < 3 || dl.nd[0] < 2 || dl.nd[1] < 2 || dl.nd[2] < 2) {
        rt_error_set(err, "matmul problem '%s' is not SRC:WEIGHTS:DST dims", problem);
        return -1;
    }
    double m = dl.d[0][dl.nd[0] - 2], k = dl.d[0][dl.nd[0] - 1], n = dl.d[1][dl.nd[1] - 1];
    double batch = 1;
    for (int i = 0; i < dl.nd[2] - 2; i++)
        batch *= dl.d[2][i];
    c->flops = 2 * batch * m * n * k;
    for (int i = 0; i < ml->n; i++)
        if (strcmp(ml->m[i].arg, "bia") == 0 && strcmp(ml->m[i].dt, "undef") != 0)
            c->flops += batch * m * n;
    c->flops_known = 1;
    mm_ctx x = {dims_prod(&dl, 0), dims_prod(&dl, 1), dims_prod(&dl, 2), n};
    if (sum_bytes(ml, &x, mm_elems, prop, &c->bytes, err) != 0)
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
    const char *a = base_arg(arg, &d);
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

static int cost_rnn(const shape *sh, const mdlist *ml, const char *prop, const char *aux, cost *c,
                    rt_error *err)
{
    static const char *need[] = {"l", "t", "mb", "sic", "slc", "dhc"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        if (!shape_has(sh, need[i])) {
            rt_error_set(err, "rnn problem descriptor lacks '%s'", need[i]);
            return -1;
        }
    char alg[64], dir[64];
    aux_get(aux, "alg", alg, sizeof alg);
    aux_get(aux, "direction", dir, sizeof dir);
    rnn_ctx x = {.l = shape_get(sh, "l", 1),
                 .t = shape_get(sh, "t", 1),
                 .mb = shape_get(sh, "mb", 1),
                 .sic = shape_get(sh, "sic", 1),
                 .slc = shape_get(sh, "slc", 1),
                 .dhc = shape_get(sh, "dhc", 1)};
    x.dic = shape_get(sh, "dic", x.dhc);
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
    double gemm = 2 * x.mb * x.gates * x.dhc * (x.slc + x.sic);
    if (x.gates == 4 && x.dic != x.dhc)
        gemm += 2 * x.mb * x.dhc * x.dic;
    double bias = x.bias_gates * x.mb * x.dhc;
    /* Backward: the data gradient and the weights gradient GEMMs, each as large as forward's. */
    c->flops = cells * ((is_forward(prop) ? 1 : 2) * gemm + bias);
    c->flops_known = 1;
    if (sum_bytes(ml, &x, rnn_elems, prop, &c->bytes, err) != 0)
        return -1;
    c->bytes_known = 1;
    return 0;
}

/*
 * Per-element models of the normalizations, elementwise and reduction-like kinds. Arguments named
 * "data" (2.x prints one descriptor for source and destination) count twice forward (read and
 * write) and once backward; "diff" twice (diff_dst read, diff_src written).
 */
typedef struct elem_ctx {
    double elems;    /* elements of src/dst */
    double stats;    /* elements of mean/variance (layer normalization) */
    double channels; /* batch normalization: scale/shift/mean/variance */
} elem_ctx;

static double elem_elems(const void *c_, const char *arg, const char *prop, double *mult)
{
    const elem_ctx *c = c_;
    if (strcmp(arg, "data") == 0) {
        *mult = is_forward(prop) ? 2 : 1;
        return c->elems;
    }
    if (strcmp(arg, "diff") == 0) {
        *mult = 2;
        return c->elems;
    }
    if (strcmp(arg, "stats") == 0) {
        *mult = 2; /* mean and variance */
        return c->stats;
    }
    int d;
    const char *a = base_arg(arg, &d);
    if (strcmp(a, "src") == 0 || strcmp(a, "dst") == 0)
        return c->elems;
    if (strcmp(a, "scale") == 0 || strcmp(a, "shift") == 0 || strcmp(a, "mean") == 0 ||
        strcmp(a, "var") == 0 || strcmp(a, "variance") == 0)
        return c->channels;
    if (strcmp(a, "ws") == 0 || strcmp(a, "workspace") == 0)
        return c->elems;
    return -1;
}

/* FLOPs per element of batch and layer normalization, from the flags (G: global statistics given,
 * S/C/H: scale and shift, R/A: fused ReLU). Forward with statistics: mean 1 (add) + variance 3
 * (sub, mul, add) + normalize 2 (sub, mul); scale and shift 1 each; ReLU 1. Backward: 9 (diff_beta
 * 1, diff_gamma 4, diff_src 4). */
static double norm_flops_per_elem(const char *prop, const char *flags)
{
    if (!is_forward(prop))
        return 9;
    double f = strchr(flags, 'G') ? 2 : 6;
    if (strchr(flags, 'S'))
        f += 2;
    else {
        if (strchr(flags, 'C'))
            f += 1;
        if (strchr(flags, 'H'))
            f += 1;
    }
    if (strchr(flags, 'R') || strchr(flags, 'A'))
        f += 1;
    return f;
}

static int cost_bnorm(const shape *sh, const mdlist *ml, const char *prop, const char *aux, cost *c,
                      rt_error *err)
{
    if (!shape_has(sh, "mb") || !shape_has(sh, "ic")) {
        rt_error_set(err, "batch normalization problem descriptor needs mb and ic");
        return -1;
    }
    char flags[32];
    aux_get(aux, "flags", flags, sizeof flags);
    elem_ctx x = {.channels = shape_get(sh, "ic", 1)};
    x.elems = shape_get(sh, "mb", 1) * x.channels * shape_get(sh, "id", 1) *
              shape_get(sh, "ih", 1) * shape_get(sh, "iw", 1);
    x.stats = x.channels;
    c->flops = x.elems * norm_flops_per_elem(prop, flags);
    c->flops_known = 1;
    if (sum_bytes(ml, &x, elem_elems, prop, &c->bytes, err) != 0)
        return -1;
    c->bytes_known = 1;
    return 0;
}

static int cost_lnorm(const char *problem, const mdlist *ml, const char *prop, const char *aux,
                      cost *c, rt_error *err)
{
    dimlists dl;
    if (dims_parse(problem, &dl) != 0 || dl.nd[0] < 2) {
        rt_error_set(err, "layer normalization problem '%s' is not dims", problem);
        return -1;
    }
    char flags[32];
    aux_get(aux, "flags", flags, sizeof flags);
    elem_ctx x = {.elems = dims_prod(&dl, 0)};
    x.channels = dl.d[0][dl.nd[0] - 1];
    x.stats = x.elems / x.channels;
    c->flops = x.elems * norm_flops_per_elem(prop, flags);
    c->flops_known = 1;
    if (sum_bytes(ml, &x, elem_elems, prop, &c->bytes, err) != 0)
        return -1;
    c->bytes_known = 1;
    return 0;
}

/* Eltwise FLOPs per element: 1 for one-operation functions (relu, abs, square, exp, tanh ...,
 * transcendental functions count as one), 2 for those with a multiply and an add (linear,
 * clip, bounded_relu, leaky relu with alpha != 0, pow); backward adds the multiply by diff_dst. */
static double eltwise_flops_per_elem(const char *prop, const char *aux)
{
    char alg[64], alpha[32];
    aux_get(aux, "alg", alg, sizeof alg);
    aux_get(aux, "alpha", alpha, sizeof alpha);
    const char *a = strncmp(alg, "eltwise_", 8) == 0 ? alg + 8 : alg;
    double f = 1;
    if (strncmp(a, "linear", 6) == 0 || strncmp(a, "clip", 4) == 0 ||
        strncmp(a, "bounded_relu", 12) == 0 || strncmp(a, "pow", 3) == 0)
        f = 2;
    else if (strncmp(a, "relu", 4) == 0 && alpha[0] && strtod(alpha, NULL) != 0)
        f = 2;
    return is_forward(prop) ? f : f + 1;
}

static int cost_dims_elementwise(const char *kind, const char *problem, const mdlist *ml,
                                 const char *prop, const char *aux, cost *c, rt_error *err)
{
    dimlists dl;
    if (dims_parse(problem, &dl) != 0) {
        rt_error_set(err, "%s problem '%s' is not dims", kind, problem);
        return -1;
    }
    elem_ctx x = {.elems = dims_prod(&dl, 0)};
    x.stats = x.channels = x.elems;
    if (strcmp(kind, "eltwise") == 0)
        c->flops = x.elems * eltwise_flops_per_elem(prop, aux);
    else /* softmax, softmax_v2, logsoftmax: max 1, sub+exp 2, sum 1, divide 1; backward 4 */
        c->flops = x.elems * (is_forward(prop) ? 5 : 4);
    c->flops_known = 1;
    if (sum_bytes(ml, &x, elem_elems, prop, &c->bytes, err) != 0)
        return -1;
    c->bytes_known = 1;
    return 0;
}

/* Pooling (and pooling_v2). */
typedef struct pool_ctx {
    double src, dst;
} pool_ctx;

static double pool_elems(const void *c_, const char *arg, const char *prop, double *mult)
{
    (void)prop;
    (void)mult;
    const pool_ctx *c = c_;
    int d;
    const char *a = base_arg(arg, &d);
    if (strcmp(a, "src") == 0)
        return c->src;
    if (strcmp(a, "dst") == 0 || strcmp(a, "ws") == 0)
        return c->dst;
    return -1;
}

static int cost_pool(const shape *sh, const mdlist *ml, const char *prop, const char *aux, cost *c,
                     rt_error *err)
{
    if (!shape_has(sh, "mb") || !shape_has(sh, "ic")) {
        rt_error_set(err, "pooling problem descriptor needs mb and ic");
        return -1;
    }
    char alg[64];
    aux_get(aux, "alg", alg, sizeof alg);
    int include_pad = strstr(alg, "include_padding") != NULL;
    int avg = strstr(alg, "avg") != NULL;
    double mbc = shape_get(sh, "mb", 1) * shape_get(sh, "ic", 1);
    double taps = 1, src = mbc, dst = mbc;
    const char dims[3] = {'d', 'h', 'w'};
    for (int i = 0; i < 3; i++) {
        char ki[4], ko[4], kk[4], ks[4], kd[4], kp[4];
        snprintf(ki, 4, "i%c", dims[i]);
        snprintf(ko, 4, "o%c", dims[i]);
        snprintf(kk, 4, "k%c", dims[i]);
        snprintf(ks, 4, "s%c", dims[i]);
        snprintf(kd, 4, "d%c", dims[i]);
        snprintf(kp, 4, "p%c", dims[i]);
        double in = shape_get(sh, ki, 1), out = shape_get(sh, ko, 1), k = shape_get(sh, kk, 1);
        double s = shape_get(sh, ks, 1);
        if (s < 1) {
            rt_error_set(err, "stride %s is %g", ks, s);
            return -1;
        }
        src *= in;
        dst *= out;
        /* Average including padding divides by the whole window but still adds only real inputs. */
        taps *= include_pad ? out * k
                            : valid_taps(out, in, k, s, shape_get(sh, kd, 0), shape_get(sh, kp, 0));
    }
    /* One compare (max) or add (avg) per tap, plus one divide per output for avg. */
    c->flops = mbc * taps + (avg ? dst : 0);
    c->flops_known = 1;
    pool_ctx x = {src, dst};
    if (sum_bytes(ml, &x, pool_elems, prop, &c->bytes, err) != 0)
        return -1;
    c->bytes_known = 1;
    return 0;
}

/* Kinds whose problem is a list of dims, one per source: binary, sum, concat, reorder, shuffle,
 * prelu, reduction, resampling. Sources take the lists in order; the destination is the
 * broadcast (binary), the sum of the concatenated lists (concat) or the last list. */
static int cost_lists(const char *kind, const char *problem, const mdlist *ml, const char *aux,
                      cost *c, rt_error *err)
{
    dimlists dl;
    if (dims_parse(problem, &dl) != 0) {
        rt_error_set(err, "%s problem '%s' is not dims", kind, problem);
        return -1;
    }
    double dst;
    if (strcmp(kind, "binary") == 0) {
        int nd = 0;
        for (int l = 0; l < dl.n; l++)
            if (dl.nd[l] > nd)
                nd = dl.nd[l];
        dst = 1;
        for (int i = 0; i < nd; i++) {
            double m = 1;
            for (int l = 0; l < dl.n; l++) {
                int j = i - (nd - dl.nd[l]);
                if (j >= 0 && dl.d[l][j] > m)
                    m = dl.d[l][j];
            }
            dst *= m;
        }
    } else if (strcmp(kind, "concat") == 0) {
        dst = 0;
        for (int l = 0; l < dl.n; l++)
            dst += dims_prod(&dl, l);
    } else {
        dst = dims_prod(&dl, dl.n - 1);
    }
    int n_src = 0;
    double b = 0;
    for (int i = 0; i < ml->n; i++) {
        const mdesc *m = &ml->m[i];
        double sz = dt_size(m->dt);
        if (sz <= 0)
            continue;
        int d;
        const char *a = base_arg(m->arg, &d);
        if (strncmp(a, "src", 3) == 0 || strcmp(a, "wei") == 0) {
            int l = n_src < dl.n ? n_src : dl.n - 1;
            /* sum and reorder: every source has the one shape. */
            b += dims_prod(&dl, l) * sz;
            n_src++;
        } else if (strcmp(a, "dst") == 0) {
            b += dst * sz;
        } else {
            rt_error_set(err, "memory descriptor '%s' is not one %s has", m->arg, kind);
            return -1;
        }
    }
    c->bytes = b;
    c->bytes_known = 1;
    c->flops_known = 1;
    if (strcmp(kind, "binary") == 0)
        c->flops = dst;
    else if (strcmp(kind, "sum") == 0)
        c->flops = (n_src > 1 ? n_src - 1 : 0) * dst;
    else if (strcmp(kind, "prelu") == 0)
        c->flops = 2 * dims_prod(&dl, 0);
    else if (strcmp(kind, "reduction") == 0)
        c->flops = dims_prod(&dl, 0);
    else if (strcmp(kind, "reorder") == 0 || strcmp(kind, "concat") == 0 ||
             strcmp(kind, "shuffle") == 0)
        c->flops = 0; /* data movement: zero arithmetic intensity */
    else
        c->flops_known = 0;
    (void)aux;
    return 0;
}

/* FLOPs unit of a primitive: its source data type; AMX implementations get the AMX units. */
static const char *flops_unit(const mdlist *ml, const char *impl)
{
    const char *dt = NULL;
    static const char *src_args[] = {"src", "src_layer", "data", "src_0", "src_1", "diff_src"};
    for (size_t a = 0; a < sizeof src_args / sizeof src_args[0] && !dt; a++)
        for (int i = 0; i < ml->n; i++)
            if (strcmp(ml->m[i].arg, src_args[a]) == 0 && strcmp(ml->m[i].dt, "undef") != 0) {
                dt = ml->m[i].dt;
                break;
            }
    for (int i = 0; i < ml->n && !dt; i++)
        if (strcmp(ml->m[i].dt, "undef") != 0)
            dt = ml->m[i].dt;
    if (!dt)
        return "fp32";
    int amx = strstr(impl, "amx") != NULL || strstr(impl, "AMX") != NULL;
    if (strcmp(dt, "bf16") == 0)
        return amx ? "amx_bf16" : "bf16";
    if (strcmp(dt, "f16") == 0)
        return "fp16";
    if (strcmp(dt, "s8") == 0 || strcmp(dt, "u8") == 0)
        return amx ? "amx_int8" : "int8";
    if (strcmp(dt, "f64") == 0)
        return "fp64";
    return "fp32";
}

/* ---- the reader ---- */

rt_onednn_reader *rt_onednn_reader_new(const char *origin)
{
    rt_onednn_reader *r = rt_xcalloc(1, sizeof *r);
    r->origin = rt_strdup(origin ? origin : "oneDNN verbose output");
    return r;
}

void rt_onednn_reader_free(rt_onednn_reader *r)
{
    if (!r)
        return;
    free(r->origin);
    for (size_t i = 0; i < r->n_e; i++) {
        free(r->e[i].name);
        rt_values_release(&r->e[i].flops);
        rt_values_release(&r->e[i].bytes);
    }
    free(r->e);
    rt_name_index_release(&r->ix);
    rt_name_index_release(&r->names);
    rt_name_index_release(&r->next_number);
    rt_name_index_release(&r->noted);
    for (size_t i = 0; i < MAX_BAD_DETAILS; i++)
        free(r->bad_msgs[i]);
    rt_warnings_release(&r->notes);
    free(r->version);
    free(r->isa);
    free(r->engine);
    free(r);
}

size_t rt_onednn_reader_n_exec(const rt_onednn_reader *r)
{
    return r->n_exec;
}

ssize_t rt_onednn_marker(const char *line, size_t len)
{
    static const char *markers[] = {"onednn_verbose,", "dnnl_verbose,", "mkldnn_verbose,"};
    ssize_t best = -1;
    for (size_t m = 0; m < 3; m++) {
        size_t ml = strlen(markers[m]);
        for (size_t i = 0; i + ml <= len; i++) {
            if (line[i] == markers[m][0] && memcmp(line + i, markers[m], ml) == 0) {
                if (best < 0 || (ssize_t)i < best)
                    best = (ssize_t)i;
                break;
            }
        }
    }
    return best;
}

static void bad_line(rt_onednn_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void bad_line(rt_onednn_reader *r, const char *fmt, ...)
{
    if (r->n_bad < MAX_BAD_DETAILS) {
        char buf[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        r->bad_msgs[r->n_bad] = rt_asprintf("'%s': line %zu: %s", r->origin, r->lineno, buf);
    }
    if (r->n_bad < MAX_BAD_LINES)
        r->bad_lines[r->n_bad] = r->lineno;
    r->n_bad++;
}

static void note_once(rt_onednn_reader *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void note_once(rt_onednn_reader *r, const char *key, const char *fmt, ...)
{
    if (rt_name_index_get(&r->noted, key, strlen(key)) != (size_t)-1)
        return;
    rt_name_index_put(&r->noted, key, strlen(key), 1);
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    rt_warnings_add(&r->notes, "'%s': %s", r->origin, buf);
}

static int is_number(const char *s)
{
    double v;
    return rt_parse_double(s, &v);
}

/* A kernel name a reader can follow: kind, implementation, propagation, algorithm, data types and
 * the problem; reorders show their layouts since both directions share one problem. */
static char *make_name(const char *kind, const char *impl, const char *prop, const char *aux,
                       const mdlist *ml, const char *problem)
{
    char alg[64] = "";
    aux_get(aux, "alg", alg, sizeof alg);
    if (strcmp(alg, "convolution_direct") == 0 || strcmp(alg, "deconvolution_direct") == 0)
        alg[0] = '\0';
    char types[256] = "";
    size_t tl = 0;
    const char *first = NULL;
    for (int i = 0; i < ml->n; i++) {
        const char *dt = ml->m[i].dt;
        if (strcmp(dt, "undef") == 0)
            continue;
        if (!first) {
            first = dt;
            tl += (size_t)snprintf(types + tl, sizeof types - tl, "%s", dt);
        } else if (strcmp(dt, first) != 0 && !strstr(types, dt) && tl < sizeof types - 20) {
            tl += (size_t)snprintf(types + tl, sizeof types - tl, "/%s", dt);
        }
    }
    char layouts[160] = "";
    if (strcmp(kind, "reorder") == 0 && ml->n >= 2)
        snprintf(layouts, sizeof layouts, "%s>%s", ml->m[0].layout, ml->m[ml->n - 1].layout);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s %s%s%s%s%s%s%s %s %s", kind, impl,
             strcmp(prop, "undef") != 0 && prop[0] ? " " : "",
             strcmp(prop, "undef") != 0 ? prop : "", alg[0] ? " " : "", alg, layouts[0] ? " " : "",
             layouts, types[0] ? types : "-", problem);
    return rt_strdup(buf);
}

static int compute_cost(rt_onednn_reader *r, const char *kind, const char *prop, const mdlist *ml,
                        const char *aux, const char *problem, cost *c, rt_error *err)
{
    memset(c, 0, sizeof *c);
    shape sh;
    if (strcmp(kind, "convolution") == 0 || strcmp(kind, "deconvolution") == 0) {
        if (shape_parse(problem, &sh) != 0)
            goto bad_problem;
        return cost_conv(kind[0] == 'd', &sh, ml, prop, c, err);
    }
    if (strcmp(kind, "inner_product") == 0) {
        if (shape_parse(problem, &sh) != 0)
            goto bad_problem;
        return cost_ip(&sh, ml, prop, c, err);
    }
    if (strcmp(kind, "rnn") == 0) {
        if (shape_parse(problem, &sh) != 0)
            goto bad_problem;
        return cost_rnn(&sh, ml, prop, aux, c, err);
    }
    if (strcmp(kind, "batch_normalization") == 0) {
        if (shape_parse(problem, &sh) != 0)
            goto bad_problem;
        return cost_bnorm(&sh, ml, prop, aux, c, err);
    }
    if (strcmp(kind, "pooling") == 0 || strcmp(kind, "pooling_v2") == 0) {
        if (shape_parse(problem, &sh) != 0)
            goto bad_problem;
        return cost_pool(&sh, ml, prop, aux, c, err);
    }
    if (strcmp(kind, "matmul") == 0)
        return cost_matmul(problem, ml, prop, c, err);
    if (strcmp(kind, "layer_normalization") == 0)
        return cost_lnorm(problem, ml, prop, aux, c, err);
    if (strcmp(kind, "eltwise") == 0 || strncmp(kind, "softmax", 7) == 0 ||
        strcmp(kind, "logsoftmax") == 0)
        return cost_dims_elementwise(kind, problem, ml, prop, aux, c, err);
    if (strcmp(kind, "binary") == 0 || strcmp(kind, "sum") == 0 || strcmp(kind, "concat") == 0 ||
        strcmp(kind, "reorder") == 0 || strcmp(kind, "shuffle") == 0 ||
        strcmp(kind, "prelu") == 0 || strcmp(kind, "reduction") == 0 ||
        strcmp(kind, "resampling") == 0) {
        if (cost_lists(kind, problem, ml, aux, c, err) != 0)
            return -1;
        if (!c->flops_known)
            note_once(
                r, kind,
                "FLOPs of '%s' primitives are not modelled: their kernels have time and bytes "
                "but no FLOPs",
                kind);
        return 0;
    }
    /* lrn and kinds newer than this reader: keep the time, say what is missing. */
    note_once(r, kind,
              "'%s' primitives are not modelled: their kernels have time but no FLOPs or bytes",
              kind);
    return 0;
bad_problem:
    rt_error_set(err, "cannot read problem descriptor '%s'", problem);
    return -1;
}

static void read_exec(rt_onednn_reader *r, char **f, int nf, int i)
{
    if (nf - i < 10) {
        bad_line(r,
                 "exec record has %d fields, expected at least 10 "
                 "(engine, primitive, implementation, propagation, memory descriptors, "
                 "attributes, auxiliary, problem, time)",
                 nf - i - 1);
        return;
    }
    const char *engine = f[i + 1], *kind = f[i + 2], *impl = f[i + 3], *prop = f[i + 4],
               *mds = f[i + 5], *aux = f[nf - 3], *problem = f[nf - 2], *time_s = f[nf - 1];
    double ms;
    if (!rt_parse_double(time_s, &ms) || ms < 0) {
        bad_line(r, "field 'exec_time': '%s' is not a time in milliseconds", time_s);
        return;
    }
    if (!kind[0] || !problem[0]) {
        bad_line(r, "exec record has an empty primitive kind or problem descriptor");
        return;
    }
    /* The key is everything but the time: the fields were split in place, so rebuild it. */
    char key[4096];
    size_t kl = 0;
    for (int j = i + 1; j < nf - 1; j++) {
        int w = snprintf(key + kl, sizeof key - kl, "%s%s", j > i + 1 ? "," : "", f[j]);
        if (w < 0 || (size_t)w >= sizeof key - kl) {
            bad_line(r, "exec record too long");
            return;
        }
        kl += (size_t)w;
    }
    size_t idx = rt_name_index_get(&r->ix, key, kl);
    if (idx == (size_t)-1) {
        mdlist ml;
        rt_error e = {{0}};
        cost c;
        if (mds_parse(mds, &ml, &e) != 0 ||
            compute_cost(r, kind, prop, &ml, aux, problem, &c, &e) != 0 ||
            (c.flops_known && !(isfinite(c.flops) && c.flops >= 0) &&
             (rt_error_set(&e, "FLOPs per call %g: a size is out of range", c.flops), 1)) ||
            (c.bytes_known && !(isfinite(c.bytes) && c.bytes >= 0) &&
             (rt_error_set(&e, "bytes per call %g: a size is out of range", c.bytes), 1))) {
            bad_line(r, "%s %s: field 'problem_desc' or 'memory_descriptors': %s", kind, problem,
                     e.msg);
            return;
        }
        if (r->n_e == r->cap_e) {
            r->cap_e = r->cap_e ? 2 * r->cap_e : 16;
            r->e = rt_xrealloc(r->e, r->cap_e * sizeof *r->e);
        }
        entry *en = &r->e[r->n_e];
        memset(en, 0, sizeof *en);
        char *name = make_name(kind, impl, prop, aux, &ml, problem);
        /* Two keys differing only in layouts would share a name: number the later ones. */
        if (rt_name_index_get(&r->names, name, strlen(name)) != (size_t)-1) {
            /* the next number to try is remembered per name: 20,000 keys sharing a name cost
             * linear time, not quadratic */
            size_t k = rt_name_index_get(&r->next_number, name, strlen(name));
            if (k == (size_t)-1)
                k = 2;
            for (;; k++) {
                char *alt = rt_asprintf("%s #%zu", name, k);
                if (rt_name_index_get(&r->names, alt, strlen(alt)) == (size_t)-1) {
                    rt_name_index_put(&r->next_number, name, strlen(name), k + 1);
                    free(name);
                    name = alt;
                    break;
                }
                free(alt);
            }
        }
        rt_name_index_put(&r->names, name, strlen(name), r->n_e);
        en->name = name;
        if (c.flops_known)
            rt_values_set(&en->flops, flops_unit(&ml, impl), c.flops);
        if (c.bytes_known)
            rt_values_set(&en->bytes, "DRAM", c.bytes);
        idx = r->n_e++;
        rt_name_index_put(&r->ix, key, kl, idx);
        if (!r->engine)
            r->engine = rt_strdup(engine);
    }
    r->e[idx].calls += 1;
    r->e[idx].ms += ms;
    r->n_exec++;
}

void rt_onednn_reader_line(rt_onednn_reader *r, const char *line, size_t len)
{
    r->lineno++;
    ssize_t at = rt_onednn_marker(line, len);
    if (at < 0)
        return;
    size_t n = len - (size_t)at;
    char *buf = rt_strndup(line + at, n);
    n = strlen(buf); /* a NUL byte in the line ends it */
    while (n > 0 && (buf[n - 1] == '\r' || buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    char *f[MAX_FIELDS];
    int nf = 0;
    f[nf++] = buf;
    for (char *p = buf; *p; p++)
        if (*p == ',') {
            if (nf == MAX_FIELDS) {
                bad_line(r, "more than %d fields", MAX_FIELDS);
                goto out;
            }
            *p = '\0';
            f[nf++] = p + 1;
        }
    int i = 1;
    if (i < nf && is_number(f[i])) /* timestamp (ONEDNN_VERBOSE_TIMESTAMP=1) */
        i++;
    if (i < nf && strcmp(f[i], "primitive") == 0) /* 3.x category */
        i++;
    else if (i < nf && (strcmp(f[i], "graph") == 0 || strcmp(f[i], "common") == 0 ||
                        strcmp(f[i], "ukernel") == 0)) {
        r->n_skipped++;
        note_once(r, "category:graph",
                  "oneDNN '%s' records are not imported (their primitives are logged on their own "
                  "lines when they run)",
                  f[i]);
        goto out;
    }
    if (i >= nf) {
        bad_line(r, "verbose marker without a record");
        goto out;
    }
    const char *op = f[i];
    if (strcmp(op, "exec") == 0) {
        read_exec(r, f, nf, i);
    } else if (strncmp(op, "create", 6) == 0) {
        r->n_create++;
    } else if (strcmp(op, "info") == 0) {
        r->n_info++;
        for (int j = i + 1; j < nf; j++) {
            const char *v = strstr(f[j], "oneDNN v");
            if (!v)
                v = strstr(f[j], "DNNL v");
            if (v && !r->version) {
                const char *s = strchr(v, 'v') + 1;
                r->version = rt_strndup(s, strcspn(s, " "));
            }
            if (strncmp(f[j], "isa:", 4) == 0 && !r->isa)
                r->isa = rt_strdup(f[j] + 4);
        }
    } else if (strcmp(op, "error") == 0 || strcmp(op, "warn") == 0 || strcmp(op, "warning") == 0 ||
               strcmp(op, "check") == 0 || strncmp(op, "prim_template", 13) == 0) {
        r->n_skipped++;
    } else {
        bad_line(r, "unknown verbose record '%s'", op);
    }
out:
    free(buf);
}

int rt_onednn_reader_finish(rt_onednn_reader *r, rt_profile **out, rt_warnings *w, rt_error *err)
{
    *out = NULL;
    for (size_t i = 0; i < r->notes.n; i++)
        rt_warnings_add(w, "%s", r->notes.msg[i]);
    for (size_t i = 0; i < r->n_bad && i < MAX_BAD_DETAILS; i++)
        rt_warnings_add(w, "%s", r->bad_msgs[i]);
    if (r->n_bad > 0) {
        char list[2048];
        size_t l = 0;
        for (size_t i = 0; i < r->n_bad && i < MAX_BAD_LINES && l < sizeof list - 32; i++)
            l += (size_t)snprintf(list + l, sizeof list - l, "%s%zu", i ? ", " : "",
                                  r->bad_lines[i]);
        rt_warnings_add(w, "'%s': %zu oneDNN verbose line%s could not be read (line%s %s%s)",
                        r->origin, r->n_bad, r->n_bad == 1 ? "" : "s", r->n_bad == 1 ? "" : "s",
                        list, r->n_bad > MAX_BAD_LINES ? ", ..." : "");
    }
    if (r->n_exec == 0) {
        rt_error_set(err,
                     "'%s': no oneDNN verbose execution records found (%zu lines read%s); "
                     "was the program run with ONEDNN_VERBOSE=1 (or DNNL_VERBOSE=1)?",
                     r->origin, r->lineno, r->n_bad ? ", some of them unreadable" : "");
        return -1;
    }
    rt_profile *p = rt_profile_new();
    p->tool = rt_strdup("onednn-verbose");
    p->version = rt_strdup_utf8(r->version ? r->version : "unknown");
    p->method = rt_asprintf(
        "oneDNN verbose exec records (%zu calls); time = the sum of exec_time; FLOPs from the "
        "problem descriptors (multiply-add = 2, taps in padding not counted); bytes (DRAM) = the "
        "compulsory traffic of the memory descriptors, once per call",
        r->n_exec);
    if (r->isa) {
        json_t *extra = json_object();
        json_object_set_new(extra, "onednn_isa", json_string(r->isa));
        if (r->engine)
            json_object_set_new(extra, "onednn_engine", json_string(r->engine));
        p->extra = extra;
    }
    for (size_t i = 0; i < r->n_e; i++) {
        entry *en = &r->e[i];
        rt_kernel *k = rt_profile_add_kernel(p, en->name);
        k->invocations = en->calls;
        k->time = en->ms * 1e-3;
        for (size_t j = 0; j < en->flops.n; j++)
            rt_values_set(&k->flops, en->flops.v[j].key, en->flops.v[j].value * en->calls);
        for (size_t j = 0; j < en->bytes.n; j++)
            rt_values_set(&k->bytes, en->bytes.v[j].key, en->bytes.v[j].value * en->calls);
    }
    *out = p;
    return 0;
}

int rt_import_onednn_text(const char *text, size_t len, const char *origin, rt_profile **out,
                          rt_warnings *w, rt_error *err)
{
    rt_onednn_reader *r = rt_onednn_reader_new(origin);
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        rt_onednn_reader_line(r, text + pos, end - pos);
        pos = end + 1;
    }
    int rc = rt_onednn_reader_finish(r, out, w, err);
    rt_onednn_reader_free(r);
    return rc;
}

int rt_import_onednn(const char *path, rt_profile **out, rt_warnings *w, rt_error *err)
{
    *out = NULL;
    int is_stdin = strcmp(path, "-") == 0;
    const char *shown = is_stdin ? "standard input" : path;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0) {
        rt_error_set(err, "cannot read '%s': %s", path, strerror(errno));
        return -1;
    }
    rt_onednn_reader *r = rt_onednn_reader_new(shown);
    rt_line_reader lr;
    rt_line_reader_init(&lr, fd, shown, RT_MAX_LINE, true);
    const char *s;
    size_t n;
    bool ends, in_long = false;
    int got;
    while ((got = rt_line_reader_next(&lr, &s, &n, &ends, err)) == 1) {
        /* A line longer than RT_MAX_LINE reaches the reader as its first piece only (no record
         * is that long: the reader reports it by number); the rest is skipped. */
        if (!in_long)
            rt_onednn_reader_line(r, s, n);
        in_long = !ends;
    }
    rt_line_reader_release(&lr);
    if (!is_stdin)
        close(fd);
    int rc = -1;
    if (got < 0)
        rt_error_prefix(err, "cannot read '%s'", shown);
    else
        rc = rt_onednn_reader_finish(r, out, w, err);
    rt_onednn_reader_free(r);
    return rc;
}
