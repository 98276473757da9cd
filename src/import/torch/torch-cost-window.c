/* The cost model of PyTorch operators, the sliding windows: convolution forward and backward,
 * pooling; FLOPs in either convention (taps inside the input, or the whole window). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "torch-cost-args.h"
#include "rooftime/util/sliding-window.h"

#define MAXK 3 /* spatial dimensions */

typedef struct window {
    int k; /* spatial dimensions */
    int64_t s[MAXK], p[MAXK], d[MAXK];
    int known; /* stride, padding and dilation were recorded (or have no argument) */
} window;

static const tc_arg *tensor(const tc_call *c, int i)
{
    return i >= 0 && i < c->n && c->arg[i].is_tensor ? &c->arg[i] : NULL;
}

/* One per-dimension list of the window (stride, padding, dilation): 1 = read, 0 = not recorded,
 * -1 = unreadable. A position of -1 (the operator has no such argument) gives dflt. */
static int window_list(const tc_call *c, int pos, int k, int64_t dflt, int64_t *v)
{
    int64_t x[MAXK + 1];
    if (pos < 0) {
        for (int i = 0; i < k; i++)
            v[i] = dflt;
        return 1;
    }
    int n = rt_torch_cost_concrete_ints(c, pos, x, MAXK + 1);
    if (n < 0 || n > k || (n > 1 && n != k))
        return -1;
    if (n == 0)
        return 0;
    for (int i = 0; i < k; i++)
        v[i] = x[n == 1 ? 0 : i];
    return 1;
}

/* Stride, padding and dilation at the entry's positions; -1 when unreadable (why set). */
static int read_window(const tc_entry *e, const tc_call *c, int k, window *w, rt_torch_cost *out)
{
    w->k = k;
    int a = window_list(c, e->pos[TCP_STRIDE], k, 1, w->s);
    int b = window_list(c, e->pos[TCP_PADDING], k, 0, w->p);
    int d = window_list(c, e->pos[TCP_DILATION], k, 1, w->d);
    if (a < 0 || b < 0 || d < 0) {
        rt_torch_cost_incomplete(
            out,
            "'Concrete Inputs' has a stride, padding or dilation that is not a "
            "list of %d whole numbers",
            k);
        return -1;
    }
    w->known = a && b && d;
    for (int i = 0; w->known && i < k; i++)
        if (w->s[i] < 1 || w->d[i] < 1 || w->p[i] < 0) {
            rt_torch_cost_incomplete(out, "stride %lld, dilation %lld or padding %lld out of range",
                                     (long long)w->s[i], (long long)w->d[i], (long long)w->p[i]);
            return -1;
        }
    return 0;
}

/* Output size of a window along one dimension (floor, or ceil as pooling's ceil_mode). */
static double out_size(double in, double kern, const window *w, int i, int ceil_mode)
{
    double span = in + 2.0 * (double)w->p[i] - (double)w->d[i] * (kern - 1) - 1;
    if (span < 0)
        return 0;
    double o = (ceil_mode ? ceil(span / (double)w->s[i]) : floor(span / (double)w->s[i])) + 1;
    if (ceil_mode && (o - 1) * (double)w->s[i] >= in + (double)w->p[i])
        o -= 1;
    return o;
}

/* Pairs of output positions and kernel taps: whole window, or only taps inside the input. -1
 * when the sizes are beyond what the counter takes. */
static double pairs(const double *out, const double *in, const double *kern, const window *w,
                    rt_conv_flops conv)
{
    double n = 1;
    for (int i = 0; i < w->k; i++) {
        if (conv == RT_CONV_WINDOW) {
            n *= out[i] * kern[i];
            continue;
        }
        if (out[i] > (double)RT_WINDOW_MAX_DIM || in[i] > (double)RT_WINDOW_MAX_DIM ||
            kern[i] > (double)RT_WINDOW_MAX_DIM)
            return -1;
        int64_t t = rt_window_taps((int64_t)out[i], (int64_t)in[i], (int64_t)kern[i], w->s[i],
                                   w->d[i], w->p[i]);
        if (t < 0)
            return -1;
        n *= (double)t;
    }
    return n;
}

static double prod(const double *v, int k)
{
    double n = 1;
    for (int i = 0; i < k; i++)
        n *= v[i];
    return n;
}

void rt_torch_cost_conv(const tc_entry *e, const tc_call *c, rt_conv_flops conv, rt_torch_cost *out)
{
    const tc_arg *in = tensor(c, e->a), *wt = tensor(c, e->b), *bias = tensor(c, e->c);
    if (!in || !wt || in->nd < 3 || in->nd > 2 + MAXK || wt->nd != in->nd) {
        rt_torch_cost_incomplete(out,
                                 "input and weight are not recorded tensors of 3 to 5 dimensions");
        return;
    }
    if (bias && bias->numel == 0)
        bias = NULL;
    int k = in->nd - 2;
    double n = in->d[0], ci = in->d[1], co = wt->d[0], cg = wt->d[1];
    if (cg < 1 || fmod(ci, cg) != 0) {
        rt_torch_cost_incomplete(out, "input channels %g not a multiple of the weight's %g", ci,
                                 cg);
        return;
    }
    window w;
    if (read_window(e, c, k, &w, out) != 0)
        return;
    double o[MAXK], kern[MAXK];
    for (int i = 0; i < k; i++)
        kern[i] = wt->d[2 + i];
    double po, np;
    if (w.known) {
        for (int i = 0; i < k; i++)
            if ((o[i] = out_size(in->d[2 + i], kern[i], &w, i, 0)) < 1) {
                rt_torch_cost_incomplete(out, "the window does not fit the input");
                return;
            }
        po = prod(o, k);
        np = pairs(o, in->d + 2, kern, &w, conv);
        if (np < 0) {
            rt_torch_cost_incomplete(out, "sizes beyond the window counter");
            return;
        }
    } else if (conv == RT_CONV_WINDOW && c->flops_arg > 0 && n * co * cg * prod(kern, k) > 0) {
        /* torch's own count is the whole window: 2 N Co (C/g) K times the output positions */
        po = c->flops_arg / (2 * n * co * cg * prod(kern, k));
        np = po * prod(kern, k);
    } else {
        rt_torch_cost_incomplete(out,
                                 "stride and padding not recorded ('Concrete Inputs'), needed by "
                                 "--conv-flops %s",
                                 rt_conv_flops_name(conv));
        return;
    }
    out->unit = in->unit;
    out->flops = in->unit ? 2 * n * co * cg * np + (bias ? n * co * po : 0) : 0;
    out->flops_known = 1;
    if (in->esize > 0 && wt->esize > 0 && (!bias || bias->esize > 0)) {
        out->bytes = in->numel * in->esize + wt->numel * wt->esize +
                     (bias ? bias->numel * bias->esize : 0) + n * co * po * in->esize;
        out->bytes_known = 1;
    }
}

void rt_torch_cost_conv_backward(const tc_entry *e, const tc_call *c, rt_conv_flops conv,
                                 rt_torch_cost *out)
{
    const tc_arg *go = tensor(c, e->a), *in = tensor(c, e->b), *wt = tensor(c, e->c);
    if (!go || !in || !wt || in->nd < 3 || in->nd > 2 + MAXK || wt->nd != in->nd ||
        go->nd != in->nd) {
        rt_torch_cost_incomplete(out,
                                 "grad_output, input and weight are not recorded tensors of 3 to 5 "
                                 "dimensions");
        return;
    }
    int k = in->nd - 2;
    double n = go->d[0], co = go->d[1], cg = wt->d[1];
    double kern[MAXK];
    for (int i = 0; i < k; i++)
        kern[i] = wt->d[2 + i];
    int64_t mask[3] = {1, 1, 0};
    int nm = rt_torch_cost_concrete_ints(c, e->pos[TCP_MASK], mask, 3);
    if (nm < 0 || (nm > 0 && nm != 3)) {
        rt_torch_cost_incomplete(out,
                                 "'Concrete Inputs' has an output_mask that is not three booleans");
        return;
    }
    window w;
    if (read_window(e, c, k, &w, out) != 0)
        return;
    double po = prod(go->d + 2, k), np;
    if (conv == RT_CONV_WINDOW) {
        np = po * prod(kern, k);
    } else if (!w.known) {
        rt_torch_cost_incomplete(out,
                                 "stride and padding not recorded ('Concrete Inputs'), needed by "
                                 "--conv-flops taps");
        return;
    } else if ((np = pairs(go->d + 2, in->d + 2, kern, &w, conv)) < 0) {
        rt_torch_cost_incomplete(out, "sizes beyond the window counter");
        return;
    }
    double per = 2 * n * co * cg * np;
    out->unit = go->unit;
    out->flops = go->unit ? per * (double)(!!mask[0] + !!mask[1]) + (mask[2] ? n * co * po : 0) : 0;
    out->flops_known = 1;
    if (go->esize > 0 && in->esize > 0 && wt->esize > 0) {
        double b = go->numel * go->esize;
        if (mask[0]) /* grad_input: weight read, input-sized gradient written */
            b += wt->numel * wt->esize + in->numel * in->esize;
        if (mask[1]) /* grad_weight: input read, weight-sized gradient written */
            b += in->numel * in->esize + wt->numel * wt->esize;
        if (mask[2])
            b += co * go->esize;
        out->bytes = b;
        out->bytes_known = 1;
    }
}

void rt_torch_cost_pool(const tc_entry *e, const tc_call *c, rt_conv_flops conv, rt_torch_cost *out)
{
    const tc_arg *in = tensor(c, 0);
    if (!in || in->nd < 3 || in->nd > 2 + MAXK) {
        rt_torch_cost_incomplete(out, "the input is not a recorded tensor of 3 to 5 dimensions");
        return;
    }
    int k = in->nd - 2;
    double nc = in->d[0] * in->d[1], o[MAXK], kern[MAXK], flops;
    if (e->adaptive) {
        int64_t os[MAXK];
        int r = window_list(c, e->pos[TCP_OUTSIZE], k, 1, os);
        if (r <= 0) {
            rt_torch_cost_incomplete(out, "output_size not recorded ('Concrete Inputs')");
            return;
        }
        for (int i = 0; i < k; i++)
            o[i] = (double)os[i];
        flops = in->numel; /* every element enters a window */
    } else {
        int64_t kk[MAXK], cm = 0;
        int r = window_list(c, e->pos[TCP_KERNEL], k, 1, kk);
        if (r <= 0) {
            rt_torch_cost_incomplete(out, "kernel size not recorded ('Concrete Inputs')");
            return;
        }
        window w;
        if (read_window(e, c, k, &w, out) != 0)
            return;
        /* an empty stride is the kernel */
        int64_t sx[MAXK + 1];
        if (e->pos[TCP_STRIDE] >= 0 &&
            rt_torch_cost_concrete_ints(c, e->pos[TCP_STRIDE], sx, MAXK + 1) == 0 && w.known == 0) {
            for (int i = 0; i < k; i++)
                w.s[i] = kk[i];
            int b = window_list(c, e->pos[TCP_PADDING], k, 0, w.p);
            int d = window_list(c, e->pos[TCP_DILATION], k, 1, w.d);
            w.known = b > 0 && d > 0;
        }
        if (!w.known) {
            rt_torch_cost_incomplete(out, "padding or dilation not recorded ('Concrete Inputs')");
            return;
        }
        if (rt_torch_cost_concrete_ints(c, e->pos[TCP_CEIL], &cm, 1) < 0) {
            rt_torch_cost_incomplete(out, "ceil_mode is not a boolean");
            return;
        }
        for (int i = 0; i < k; i++) {
            if (kk[i] < 1) {
                rt_torch_cost_incomplete(out, "kernel size %lld", (long long)kk[i]);
                return;
            }
            kern[i] = (double)kk[i];
            if ((o[i] = out_size(in->d[2 + i], kern[i], &w, i, cm != 0)) < 1) {
                rt_torch_cost_incomplete(out, "the window does not fit the input");
                return;
            }
        }
        double np = pairs(o, in->d + 2, kern, &w, conv);
        if (np < 0) {
            rt_torch_cost_incomplete(out, "sizes beyond the window counter");
            return;
        }
        flops = nc * np;
    }
    double on = nc * prod(o, k);
    out->unit = in->unit;
    out->flops = in->unit ? flops : 0;
    out->flops_known = 1;
    if (in->esize > 0) {
        out->bytes = in->numel * in->esize + on * in->esize + (e->indices ? on * 8 : 0);
        out->bytes_known = 1;
    }
}
