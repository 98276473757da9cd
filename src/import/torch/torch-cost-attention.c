/* The cost model of PyTorch operators, attention: scaled_dot_product_attention and its fused
 * kernels (flash, memory-efficient, cuDNN, the CPU's flash) and their backward, from the recorded
 * shapes of q [..., L, E], k [..., S, E] and v [..., S, Ev] (or flash's own [B, L, H, E]). */
#include <math.h>

#include "torch-cost-args.h"

/* The sizes of one call: BH (the leading dimensions' product), L, S, E, Ev; -1 with the reason
 * in out when the shapes do not fit. */
static int attention_sizes(const tc_entry *e, const tc_arg *q, const tc_arg *k, const tc_arg *v,
                           double size[5], rt_torch_cost *out)
{
    /* [B, L, H, E]: the sequence is the second dimension from the start; a packed batch of
     * sequences of different lengths ([total, H, E], lengths in cumulative tensors) is not
     * something the shapes alone can cost */
    int seq = e->blhe ? 1 : -2;
    int need = e->blhe ? 4 : 2;
    if (q->nd < need || k->nd != q->nd || v->nd != q->nd) {
        rt_torch_cost_incomplete(
            out, e->blhe ? "q, k and v are not [B, L, H, E] (a packed batch of "
                           "sequences: their lengths are not recorded)"
                         : "q, k and v are not tensors of the same rank, 2 or more");
        return -1;
    }
    int at = seq < 0 ? q->nd + seq : seq;
    double bh = 1;
    for (int i = 0; i < q->nd - 1; i++)
        if (i != at)
            bh *= q->d[i];
    size[0] = bh;
    size[1] = q->d[at];
    size[2] = k->d[at];
    size[3] = q->d[q->nd - 1];
    size[4] = v->d[v->nd - 1];
    if (k->d[k->nd - 1] != size[3] || v->d[at] != size[2]) {
        rt_torch_cost_incomplete(out,
                                 "k's head size (%g) or v's sequence (%g) does not match q's "
                                 "head size (%g) and k's sequence (%g)",
                                 k->d[k->nd - 1], v->d[at], size[3], size[2]);
        return -1;
    }
    return 0;
}

void rt_torch_cost_attention(const tc_entry *e, const tc_call *c, rt_torch_cost *out)
{
    const tc_arg *t[3] = {NULL, NULL, NULL};
    int at[3] = {e->a, e->b, e->c};
    for (int i = 0; i < 3; i++)
        if (at[i] >= 0 && at[i] < c->n && c->arg[at[i]].is_tensor && c->arg[at[i]].nd > 0)
            t[i] = &c->arg[at[i]];
    if (!t[0] || !t[1] || !t[2]) {
        rt_torch_cost_incomplete(out, "q, k and v (inputs %d, %d and %d) are not recorded tensors",
                                 e->a, e->b, e->c);
        return;
    }
    double size[5];
    if (attention_sizes(e, t[0], t[1], t[2], size, out) != 0)
        return;
    const double *bank[1] = {size};
    double f = rt_formula_eval(&e->flops, bank);
    out->unit = t[0]->unit;
    out->flops = t[0]->unit && isfinite(f) && f > 0 ? f : 0;
    out->flops_known = isfinite(f) || !t[0]->unit;
    /* bytes: what it reads, and the output [..., L, Ev] (backward: the gradients of q, k, v) */
    double reads = rt_torch_cost_reads(e, c);
    double written =
        e->backward
            ? (t[0]->numel * t[0]->esize + t[1]->numel * t[1]->esize + t[2]->numel * t[2]->esize)
            : size[0] * size[1] * size[4] * t[0]->esize;
    if (reads >= 0 && t[0]->esize > 0 && t[1]->esize > 0 && t[2]->esize > 0) {
        out->bytes = reads + written;
        out->bytes_known = 1;
    }
}
