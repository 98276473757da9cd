/* The cost model of PyTorch operators: the cost of one call by its table entry (torch-ops.c),
 * dispatched to the matrix, streaming and embedding models here and the window models of
 * torch-cost-window.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/import/torch-cost.h"
#include "torch-cost-args.h"
#include "rooftime/util/strings.h"

/* ---- matrix products, streams, embeddings ---- */

static const tc_arg *tensor(const tc_call *c, int i)
{
    return i >= 0 && i < c->n && c->arg[i].is_tensor ? &c->arg[i] : NULL;
}

static void cost_matmul(const tc_entry *e, const tc_call *c, rt_torch_cost *out)
{
    const tc_arg *a = tensor(c, e->a), *b = tensor(c, e->b), *bias = tensor(c, e->c);
    if (!a || !b || a->nd < 1 || b->nd < 1) {
        rt_torch_cost_incomplete(out, "the matrices (inputs %d and %d) are not recorded tensors",
                                 e->a, e->b);
        return;
    }
    double m = a->nd >= 2 ? a->d[a->nd - 2] : 1, k = a->d[a->nd - 1];
    double kb, n;
    if (e->transpose_b) {
        n = b->nd >= 2 ? b->d[b->nd - 2] : 1;
        kb = b->d[b->nd - 1];
    } else {
        kb = b->nd >= 2 ? b->d[b->nd - 2] : b->d[0];
        n = b->nd >= 2 ? b->d[b->nd - 1] : 1;
    }
    if (kb != k) {
        rt_torch_cost_incomplete(out, "inner sizes %g and %g differ", k, kb);
        return;
    }
    /* batch: the broadcast of the leading dimensions */
    double batch = 1;
    int la = a->nd > 2 ? a->nd - 2 : 0, lb = b->nd > 2 ? b->nd - 2 : 0;
    for (int i = 0; i < (la > lb ? la : lb); i++) {
        double x = i < la ? a->d[la - 1 - i] : 1, y = i < lb ? b->d[lb - 1 - i] : 1;
        batch *= x > y ? x : y;
    }
    double outn = batch * m * n;
    out->flops = 2 * batch * m * n * k + (bias ? outn : 0);
    out->flops_known = a->unit != NULL;
    if (!a->unit)
        out->flops = 0, out->flops_known = 1;
    out->unit = a->unit;
    if (a->esize > 0 && b->esize > 0 && (!bias || bias->esize > 0)) {
        out->bytes = a->numel * a->esize + b->numel * b->esize +
                     (bias ? bias->numel * bias->esize : 0) + outn * a->esize;
        out->bytes_known = 1;
    }
}

/* An in-place operator (aten::add_, not a dunder such as aten::__and__): its output is its first
 * input, read and written. */
static int in_place(const char *name)
{
    size_t n = strlen(name);
    return n >= 2 && name[n - 1] == '_' && name[n - 2] != '_';
}

static void cost_stream(const tc_entry *e, const tc_call *c, int inplace, rt_torch_cost *out)
{
    const tc_arg *first = NULL, *list = NULL;
    for (int i = 0; i < c->n; i++) {
        if (c->arg[i].is_tensor && !first)
            first = &c->arg[i];
        if (c->arg[i].is_tensor && c->arg[i].nd < 0 && !list)
            list = &c->arg[i];
    }
    if (!first) {
        rt_torch_cost_incomplete(out, "no tensor input recorded");
        return;
    }
    double bytes = rt_torch_cost_reads(e, c);
    int bytes_ok = bytes >= 0;
    double out0 = -1, out0_bytes = 0;
    for (int o = 0; o < e->n_out; o++) {
        double n, es;
        if (e->out[o] >= 0) {
            const tc_arg *a = tensor(c, e->out[o]);
            if (!a) {
                rt_torch_cost_incomplete(
                    out, "output shaped like input %d, which is not a recorded tensor", e->out[o]);
                return;
            }
            n = a->numel;
            es = a->esize;
        } else if (list) {
            /* a tensor-list operator (torch._foreach_pow(2.0, steps)): elementwise over the
             * first list, in its type */
            n = list->numel;
            es = list->esize;
        } else {
            /* broadcast of the tensor inputs, right-aligned */
            double d[TC_MAX_DIMS];
            int nd = 0;
            n = 1;
            for (int i = 0; i < c->n; i++) {
                const tc_arg *a = &c->arg[i];
                if (!a->is_tensor || a->nd < 0)
                    continue;
                for (int k = 0; k < a->nd; k++) {
                    int at = a->nd - 1 - k;
                    if (k >= nd)
                        d[nd++] = 1;
                    if (a->d[at] != 1)
                        d[k] = a->d[at];
                }
            }
            for (int k = 0; k < nd; k++)
                n *= d[k];
            es = first->esize;
        }
        if (e->out_bool)
            es = 1;
        else if (e->out_esize)
            es = e->out_esize;
        else if (e->out_type_in >= 0) {
            const tc_arg *t = tensor(c, e->out_type_in);
            if (!t) {
                rt_torch_cost_incomplete(out, "outputs typed as input %d, not a recorded tensor",
                                         e->out_type_in);
                return;
            }
            es = t->esize;
        }
        if (o == 0)
            out0 = n, out0_bytes = n * es;
        bytes += n * es;
        bytes_ok &= es > 0;
    }
    if (e->gathered >= 0) {
        /* one element of input 0 read per index, wherever the index points */
        const tc_arg *src = tensor(c, 0), *ix = tensor(c, e->gathered);
        if (!src || !ix) {
            rt_torch_cost_incomplete(out,
                                     "the source (input 0) and the indices (input %d) are not "
                                     "recorded tensors",
                                     e->gathered);
            return;
        }
        bytes += ix->numel * src->esize;
        bytes_ok &= src->esize > 0;
    }
    double var[1 + TC_MAX_ARGS] = {0};
    var[0] = out0 >= 0 ? out0 : first->numel;
    for (int i = 0; i < c->n; i++)
        var[1 + i] = c->arg[i].numel;
    const double *bank[1] = {var};
    double f = rt_formula_eval(&e->flops, bank);
    out->unit = first->unit;
    out->flops = first->unit && isfinite(f) && f > 0 ? f : 0;
    out->flops_known = isfinite(f) || !first->unit;
    if (bytes_ok) {
        out->bytes = bytes;
        out->bytes_known = 1;
        /* in place: the first input read and written is one tensor in a cache */
        if (inplace && e->n_out > 0 && e->out[0] == 0 && (e->reads_all || (e->reads & 1)) &&
            out0_bytes > 0 && out0_bytes < bytes)
            out->working_set = bytes - out0_bytes;
    }
}

static void cost_embedding(const tc_entry *e, const tc_call *c, rt_torch_cost *out)
{
    const tc_arg *w = tensor(c, e->a), *ix = tensor(c, e->b);
    if (!w || !ix || w->nd < 1) {
        rt_torch_cost_incomplete(out, "the %s and the indices are not recorded tensors",
                                 e->backward ? "gradient" : "weight");
        return;
    }
    double row = w->d[w->nd - 1];
    if (!e->backward && e->pos[TCP_DIM] >= 0) {
        /* index_select: the slices across dimension dim, one per index */
        int64_t dim = 0;
        int n = rt_torch_cost_concrete_ints(c, e->pos[TCP_DIM], &dim, 1);
        if (n < 0 || (n == 0 && w->nd > 1)) {
            rt_torch_cost_incomplete(out, "%s",
                                     n < 0 ? "dim is not a whole number"
                                           : "dim not recorded ('Concrete Inputs')");
            return;
        }
        if (dim < 0)
            dim += w->nd;
        if (dim < 0 || dim >= w->nd) {
            rt_torch_cost_incomplete(out, "dim %lld out of range", (long long)dim);
            return;
        }
        row = w->d[dim] > 0 ? w->numel / w->d[dim] : 0;
    }
    out->unit = w->unit;
    if (e->backward) {
        /* grad_output [..., D]: read, and as many rows accumulated into the weight gradient */
        out->flops = w->unit ? w->numel : 0;
        out->flops_known = 1;
        out->bytes = 2 * w->numel * w->esize + ix->numel * ix->esize;
    } else {
        out->flops = 0;
        out->flops_known = 1;
        out->bytes = 2 * ix->numel * row * w->esize + ix->numel * ix->esize;
    }
    out->bytes_known = w->esize > 0 && ix->esize > 0;
    if (!out->bytes_known)
        out->bytes = 0;
}

static void cost_of(const rt_torch_ops *o, const tc_entry *e, const rt_torch_call *rc,
                    rt_conv_flops conv, rt_torch_cost *out);

void rt_torch_ops_cost(const rt_torch_ops *o, const rt_torch_call *rc, rt_conv_flops conv,
                       rt_torch_cost *out)
{
    memset(out, 0, sizeof *out);
    const tc_entry *e = rt_torch_ops_find(o, rc->name);
    if (!e) {
        out->status = RT_TC_UNKNOWN;
        out->klass = "unknown";
        return;
    }
    cost_of(o, e, rc, conv, out);
    /* each model gives its data's precision; the arithmetic may run on another unit */
    out->precision = out->unit;
    out->unit = rt_torch_ops_opmath(o, e, out->unit);
}

static void cost_of(const rt_torch_ops *o, const tc_entry *e, const rt_torch_call *rc,
                    rt_conv_flops conv, rt_torch_cost *out)
{
    out->klass = e->klass;
    if (e->model == TC_NONE || e->model == TC_UNCOUNTED) {
        out->status = e->model == TC_NONE ? RT_TC_NONE : RT_TC_UNCOUNTED;
        out->flops_known = out->bytes_known = 1;
        return;
    }
    if (e->model == TC_COMPILED) {
        rt_torch_cost_compiled(o, e, rc, out);
        return;
    }
    if (e->model == TC_REGION) {
        /* work is done, the records cannot count it: uncovered, with the table's reason */
        out->status = RT_TC_INCOMPLETE;
        snprintf(out->why, sizeof out->why, "%s", e->why);
        return;
    }
    out->status = RT_TC_COSTED;
    tc_call *c = rt_xmalloc(sizeof *c);
    if (rt_torch_cost_read_call(rc, c, out->why, sizeof out->why) != 0) {
        out->status = RT_TC_INCOMPLETE;
        free(c);
        return;
    }
    for (int i = 0; i < c->n; i++)
        if (c->arg[i].bare_list) {
            rt_torch_cost_incomplete(
                out, "a tensor list recorded as [] without its shapes, as torch 1.13 records "
                     "lists: profile --torch records those of torch.cat, torch.stack and "
                     "torch._foreach_* called from Python");
            free(c);
            return;
        } else if (c->arg[i].nd < 0 && c->arg[i].esize == 0 && c->typed) {
            rt_torch_cost_incomplete(
                out, "a tensor list recorded without its element type ('TensorList'): "
                     "profile --torch records those of lists passed to torch from Python");
            free(c);
            return;
        }
    switch (e->model) {
    case TC_MATMUL:
        cost_matmul(e, c, out);
        break;
    case TC_CONV:
        rt_torch_cost_conv(e, c, conv, out);
        break;
    case TC_CONV_BACKWARD:
        rt_torch_cost_conv_backward(e, c, conv, out);
        break;
    case TC_POOL:
        rt_torch_cost_pool(e, c, conv, out);
        break;
    case TC_STREAM:
        cost_stream(e, c, in_place(rc->name), out);
        break;
    case TC_EMBEDDING:
        cost_embedding(e, c, out);
        break;
    case TC_ATTENTION:
        rt_torch_cost_attention(e, c, out);
        break;
    case TC_TBE:
        rt_torch_cost_tbe(e, c, out);
        break;
    case TC_NONE:
    case TC_UNCOUNTED:
    case TC_REGION:
    case TC_COMPILED:
    case TC_MODELS:
        break;
    }
    if (out->status == RT_TC_COSTED && !out->flops_known && !out->bytes_known)
        rt_torch_cost_incomplete(out, "%s",
                                 c->typed ? "the inputs' types are not tensor types"
                                          : "no input types recorded ('Input type')");
    if (out->status == RT_TC_COSTED && !out->bytes_known && !out->why[0])
        snprintf(out->why, sizeof out->why, "no input types recorded: no bytes");
    free(c);
}
