/* The cost model of fbgemm's table-batched embeddings (split TBE: the forward
 * split_embedding_codegen_lookup_*_function, T tables pooled in one call, and its autograd
 * backward, which applies the optimizer to the rows it touches in place): the bytes its records
 * tell, and whether they are all of its work or a lower bound. */
#include <math.h>

#include "torch-cost-args.h"

static const tc_arg *tensor(const tc_call *c, int i)
{
    return i >= 0 && i < c->n && c->arg[i].is_tensor ? &c->arg[i] : NULL;
}

/* The elements of the tensors at the inputs of bits (one element type); -1 when one is not a
 * recorded tensor or their types differ. */
static double sum_numel(const tc_call *c, uint32_t bits, double *esize)
{
    double n = 0;
    *esize = 0;
    for (int i = 0; i < TC_MAX_ARGS; i++) {
        if (!(bits >> i & 1))
            continue;
        const tc_arg *a = tensor(c, i);
        if (!a || a->nd < 0 || (a->numel > 0 && *esize > 0 && a->esize != *esize))
            return -1;
        if (a->numel > 0)
            *esize = a->esize;
        n += a->numel;
    }
    return n;
}

/* The backward: grad_output [B, total_D] read once. The rows it reads and writes back (the
 * optimizer's update in place), its indices and the optimizer's state are not in its records. */
static void tbe_backward(const tc_entry *e, const tc_call *c, rt_torch_cost *out)
{
    const tc_arg *g = tensor(c, e->a);
    if (!g || g->nd != 2 || !(g->esize > 0)) {
        rt_torch_cost_incomplete(
            out, "grad_output (input %d) is not a recorded [B, total_D] tensor", e->a);
        return;
    }
    out->bytes = g->numel * g->esize;
    out->bytes_known = 1;
}

void rt_torch_cost_tbe(const tc_entry *e, const tc_call *c, rt_torch_cost *out)
{
    out->flops = 0; /* the pooled sum's adds are not counted: a lower bound, as the bytes */
    out->flops_known = 1;
    out->lower_bound = 1;
    if (e->backward) {
        tbe_backward(e, c, out);
        return;
    }
    const tc_arg *dof = tensor(c, e->a), *ix = tensor(c, e->b), *off = tensor(c, e->c);
    if (!dof || !ix || !off || dof->nd != 1 || ix->nd != 1 || off->nd != 1 || !(ix->esize > 0) ||
        !(off->esize > 0)) {
        rt_torch_cost_incomplete(out,
                                 "D_offsets, indices and offsets (inputs %d, %d, %d) are not "
                                 "recorded tensors of one dimension",
                                 e->a, e->b, e->c);
        return;
    }
    double T = dof->numel - 1, L = ix->numel, BT = off->numel - 1;
    if (T < 1 || BT < 0 || fmod(BT, T) != 0) {
        rt_torch_cost_incomplete(out,
                                 "%g offsets are not T B + 1 for the T = %g tables of %g "
                                 "D_offsets",
                                 off->numel, T, dof->numel);
        return;
    }
    double B = BT / T, wes, res;
    double W = sum_numel(c, e->tbe_weights, &wes), R = sum_numel(c, e->tbe_rows, &res);
    const tc_arg *iw = tensor(c, e->tbe_indice_weights);
    if (W < 0 || (iw && iw->numel > 0 && !(iw->esize > 0))) {
        rt_torch_cost_incomplete(out, "the weights or the per-sample weights are not recorded "
                                      "tensors of one type");
        return;
    }
    /* read: the indices, the offsets, the per-sample weights */
    double bytes = L * ix->esize + off->numel * off->esize + (iw ? iw->numel * iw->esize : 0);
    /* The rows' width D: one table whose W elements are R rows (a per-row state counts them) */
    int64_t td = 0;
    int n_td = rt_torch_cost_concrete_ints(c, e->pos[TCP_TOTAL_D], &td, 1);
    double total_D = n_td == 1 && td > 0 ? (double)td : -1, D = -1;
    if (T == 1 && R > 0 && W > 0 && fmod(W, R) == 0)
        D = W / R;
    if (T == 1 && total_D > 0)
        D = total_D;
    if (total_D < 0 && T == 1)
        total_D = D;
    /* one row of D per index gathered (each index reads its row, as aten::embedding counts) */
    if (D > 0 && wes > 0)
        bytes += L * D * wes;
    /* written: the pooled output [B, total_D], at the smallest type it may have (its
     * output_dtype is a Scalar the trace does not type) */
    if (total_D > 0)
        bytes += B * total_D * e->out_esize;
    out->bytes = bytes;
    out->bytes_known = 1;
}
