/* PyTorch and oneDNN profiles of one run joined by shapes: each oneDNN convolution to the aten
 * operator that called it, each reorder to the convolution whose source, destination or weights
 * it converts; the operators learn oneDNN's implementation, the oneDNN kernels their caller. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "problem-shape.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

#define MAXD 8

/* One oneDNN convolution: its shapes and where it was joined. */
typedef struct dconv {
    size_t k;     /* kernel index in the oneDNN profile */
    int backward; /* backward_data or backward_weights */
    double src[MAXD], dst[MAXD], wei[MAXD];
    int nd; /* dimensions of src and dst (weights: nd, or nd + 1 with groups) */
    int nw;
    char *caller; /* "aten::mkldnn_convolution @ train.py:37 (Conv2d_0)", or NULL */
} dconv;

/* The token before the last of a oneDNN kernel name ("... f32 mb32_ic3oc16...") is its type, the
 * last its problem; a "#2" suffix (two keys sharing a name) is skipped. */
static const char *problem_of(const char *name, char *buf, size_t n)
{
    const char *end = name + strlen(name);
    const char *sp = strrchr(name, ' ');
    if (sp && sp[1] == '#') {
        end = sp;
        while (sp > name && *--sp != ' ')
            ;
    }
    if (!sp)
        return NULL;
    size_t l = (size_t)(end - sp - 1);
    if (l + 1 > n)
        return NULL;
    memcpy(buf, sp + 1, l);
    buf[l] = '\0';
    return buf;
}

static int read_conv(const rt_kernel *k, dconv *c)
{
    if (strncmp(k->name, "convolution ", 12) != 0)
        return -1;
    char buf[512];
    rt_shape sh;
    if (!problem_of(k->name, buf, sizeof buf) || rt_shape_parse(buf, &sh) != 0 ||
        !rt_shape_has(&sh, "mb"))
        return -1;
    c->backward = strstr(k->name, " backward") != NULL;
    double mb = rt_shape_get(&sh, "mb", 1), g = rt_shape_get(&sh, "g", 1),
           ic = rt_shape_get(&sh, "ic", 1), oc = rt_shape_get(&sh, "oc", 1);
    c->src[0] = c->dst[0] = mb;
    c->src[1] = ic;
    c->dst[1] = oc;
    c->wei[0] = oc;
    c->wei[1] = ic / g;
    int n = 2;
    const char *sp[3] = {"d", "h", "w"};
    for (int i = 0; i < 3; i++) {
        char ki[4], ko[4], kk[4];
        snprintf(ki, sizeof ki, "i%s", sp[i]);
        snprintf(ko, sizeof ko, "o%s", sp[i]);
        snprintf(kk, sizeof kk, "k%s", sp[i]);
        if (!rt_shape_has(&sh, ki))
            continue;
        c->src[n] = rt_shape_get(&sh, ki, 1);
        c->dst[n] = rt_shape_get(&sh, ko, 1);
        c->wei[n] = rt_shape_get(&sh, kk, 1);
        n++;
    }
    c->nd = c->nw = n;
    return 0;
}

/* The first two shapes of a torch kernel name "op [[..],[..],...]" into a and b. */
static int torch_shapes(const char *name, size_t op_len, double *a, int *na, double *b, int *nb,
                        double *c, int *nc)
{
    if (name[op_len] != ' ')
        return -1;
    json_t *j = json_loads(name + op_len + 1, JSON_DECODE_ANY, NULL);
    double *out[3] = {a, b, c};
    int *n[3] = {na, nb, nc};
    int rc = json_is_array(j) && json_array_size(j) >= 3 ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < 3; i++) {
        const json_t *s = json_array_get(j, i), *v;
        size_t k;
        *n[i] = 0;
        if (!json_is_array(s) || json_array_size(s) > MAXD) {
            rc = -1;
            break;
        }
        json_array_foreach(s, k, v) out[i][(*n[i])++] = json_number_value(v);
    }
    json_decref(j);
    return rc;
}

/* A matmul problem "AxB:CxD[:ExF]" (source, weights[, destination] dims). */
typedef struct mm_dims {
    double d[3][MAXD];
    int nd[3];
    int n;
} mm_dims;

static int read_dims(const char *s, mm_dims *dl)
{
    memset(dl, 0, sizeof *dl);
    dl->n = 1;
    for (const char *p = s; *p;) {
        char *e;
        double v = strtod(p, &e);
        if (e == p || dl->nd[dl->n - 1] == MAXD)
            return -1;
        dl->d[dl->n - 1][dl->nd[dl->n - 1]++] = v;
        if (*e == ':' && dl->n == 3)
            return -1;
        if (*e == ':')
            dl->n++;
        else if (*e != 'x' && *e != '\0')
            return -1;
        p = *e ? e + 1 : e;
    }
    return 0;
}

/* Shape i of a torch kernel name "op [[..],[..],...]" into a. */
static int torch_shape(const char *name, size_t op_len, size_t i, double *a, int *na)
{
    if (name[op_len] != ' ')
        return -1;
    json_t *j = json_loads(name + op_len + 1, JSON_DECODE_ANY, NULL);
    const json_t *s = json_array_get(j, i), *v;
    size_t k;
    int rc = json_is_array(s) && json_array_size(s) <= MAXD ? 0 : -1;
    *na = 0;
    if (rc == 0)
        json_array_foreach(s, k, v) a[(*na)++] = json_number_value(v);
    json_decref(j);
    return rc;
}

static int same(const double *a, int na, const double *b, int nb)
{
    if (na != nb)
        return 0;
    for (int i = 0; i < na; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

static char *caller_of(const rt_kernel *k, size_t op_len)
{
    const char *src = rt_tags_get(&k->tags, "source"), *mod = rt_tags_get(&k->tags, "module");
    return rt_asprintf("%.*s%s%s%s%s%s", (int)op_len, k->name, src ? " @ " : "", src ? src : "",
                       mod ? " (" : "", mod ? mod : "", mod ? ")" : "");
}

/* The operator computes on the unit of the oneDNN primitive it ran (data/onednn/units.json chose
 * it from the implementation: amx_bf16 for brg:avx512_core_amx ...): its FLOPs move there. */
static int take_unit(rt_kernel *k, const rt_kernel *d)
{
    if (d->flops.n != 1 || k->flops.n != 1 || strcmp(k->flops.v[0].key, d->flops.v[0].key) == 0)
        return 0;
    rt_values moved = {0};
    rt_values_set(&moved, d->flops.v[0].key, k->flops.v[0].value);
    rt_values_release(&k->flops);
    k->flops = moved;
    return 1;
}

/* oneDNN matmuls to the aten matrix products that ran them (torch sends bf16 ones to oneDNN), by
 * their source and weights dims; returns how many operators were joined. */
static size_t join_matmuls(rt_profile *torch, rt_profile *dnn, size_t *moved)
{
    static const struct {
        const char *op;
        size_t a; /* the shape index of the first factor; the second follows it */
    } ops[] = {{"aten::mm", 0}, {"aten::bmm", 0}, {"aten::addmm", 1}, {"aten::baddbmm", 1}};
    size_t joined = 0;
    for (size_t i = 0; i < dnn->n_kernels; i++) {
        const rt_kernel *d = &dnn->kernels[i];
        char buf[256];
        mm_dims dl;
        if (strncmp(d->name, "matmul ", 7) != 0 || !problem_of(d->name, buf, sizeof buf) ||
            read_dims(buf, &dl) != 0 || dl.n < 2)
            continue;
        for (size_t t = 0; t < torch->n_kernels; t++) {
            rt_kernel *k = &torch->kernels[t];
            for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
                size_t ol = strlen(ops[o].op);
                double a[MAXD], b[MAXD];
                int na, nb;
                if (strncmp(k->name, ops[o].op, ol) != 0 ||
                    torch_shape(k->name, ol, ops[o].a, a, &na) != 0 ||
                    torch_shape(k->name, ol, ops[o].a + 1, b, &nb) != 0 ||
                    !same(a, na, dl.d[0], dl.nd[0]) || !same(b, nb, dl.d[1], dl.nd[1]))
                    continue;
                const char *impl = d->name + 7, *e = strchr(impl, ' ');
                snprintf(buf, sizeof buf, "%.*s", (int)(e ? e - impl : 100), impl);
                rt_tags_set(&k->tags, "onednn", buf);
                *moved += (size_t)take_unit(k, d);
                joined++;
            }
        }
    }
    return joined;
}

void rt_torch_join_onednn(rt_profile *torch, rt_profile *dnn)
{
    size_t n = dnn->n_kernels, nc = 0, joined = 0, moved = 0;
    dconv *cv = rt_xcalloc(n ? n : 1, sizeof *cv);
    for (size_t i = 0; i < n; i++) {
        dconv c = {.k = i};
        if (read_conv(&dnn->kernels[i], &c) == 0)
            cv[nc++] = c;
    }
    static const char fwd[] = "aten::mkldnn_convolution", bwd[] = "aten::convolution_backward";
    for (size_t i = 0; i < nc; i++) {
        dconv *c = &cv[i];
        double best = -1;
        for (size_t t = 0; t < torch->n_kernels; t++) {
            rt_kernel *k = &torch->kernels[t];
            const char *op = c->backward ? bwd : fwd;
            size_t ol = strlen(op);
            double a[MAXD], b[MAXD], w[MAXD];
            int na, nb, nw;
            if (strncmp(k->name, op, ol) != 0 || torch_shapes(k->name, ol, a, &na, b, &nb, w, &nw))
                continue;
            /* forward: input, weight; backward: grad_output, input, weight */
            const double *in = c->backward ? b : a, *wt = c->backward ? w : b;
            int nin = c->backward ? nb : na, nwt = c->backward ? nw : nb;
            if (!same(in, nin, c->src, c->nd) || !same(wt, nwt, c->wei, c->nw))
                continue;
            const char *impl = strchr(dnn->kernels[c->k].name, ' ');
            char implbuf[128];
            if (impl) {
                const char *e = strchr(impl + 1, ' ');
                snprintf(implbuf, sizeof implbuf, "%.*s", (int)(e ? e - impl - 1 : 100), impl + 1);
                rt_tags_set(&k->tags, "onednn", implbuf);
            }
            moved += (size_t)take_unit(k, &dnn->kernels[c->k]);
            if (k->time > best) {
                best = k->time;
                free(c->caller);
                c->caller = caller_of(k, ol);
            }
        }
        if (c->caller) {
            rt_tags_set(&dnn->kernels[c->k].tags, "caller", c->caller);
            joined++;
        }
    }
    /* reorders: to the convolution whose source, destination or weights they convert */
    double reorder_t = 0, attributed = 0;
    for (size_t i = 0; i < n; i++) {
        rt_kernel *k = &dnn->kernels[i];
        if (strncmp(k->name, "reorder ", 8) != 0)
            continue;
        reorder_t += k->time;
        char buf[256];
        double d[MAXD];
        int nd = 0;
        if (!problem_of(k->name, buf, sizeof buf))
            continue;
        for (char *p = buf; *p && nd < MAXD;) {
            char *e;
            d[nd++] = strtod(p, &e);
            if (e == p)
                break;
            p = *e == 'x' ? e + 1 : e;
        }
        for (size_t j = 0; j < nc; j++) {
            const dconv *c = &cv[j];
            if (!c->caller)
                continue;
            if (same(d, nd, c->src, c->nd) || same(d, nd, c->dst, c->nd) ||
                same(d, nd, c->wei, c->nw)) {
                rt_tags_set(&k->tags, "caller", c->caller);
                attributed += k->time;
                break;
            }
        }
    }
    size_t mm = join_matmuls(torch, dnn, &moved);
    char a[64], b[64], note[768];
    rt_fmt_time(a, sizeof a, attributed);
    rt_fmt_time(b, sizeof b, reorder_t);
    snprintf(note, sizeof note,
             "%zu of %zu oneDNN convolutions joined by shape to the aten operator that called "
             "them (tag 'caller'; the operators tagged 'onednn' with the implementation); "
             "reorders of %s of %s joined to the convolution whose tensors they convert; %zu "
             "aten matrix products joined to oneDNN matmuls by their factors' shapes (tag "
             "'onednn'); %zu operators' FLOPs moved to the unit of the oneDNN primitive they ran",
             joined, nc, a, b, mm, moved);
    rt_tags_set(&dnn->provenance.notes, "torch_join", note);
    rt_tags_set(&torch->provenance.notes, "onednn_join", note);
    for (size_t i = 0; i < nc; i++)
        free(cv[i].caller);
    free(cv);
}
