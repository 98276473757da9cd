/* The study's implementations, one table: names, what each runs, and how its cases are made. */
#include <stdio.h>
#include <strings.h>

#include "xformer-internal.h"
#include "rooftime/study/conv-direct.h"
#include "rooftime/study/conv-im2col.h"
#include "rooftime/study/conv-onednn.h"
#include "rooftime/study/lstm-onednn.h"
#include "rooftime/study/lstm-unfused.h"
#include "rooftime/study/study-impls.h"
#include "rooftime/study/study-shapes.h"

static const rt_pass fwd_bwd[] = {RT_PASS_FWD, RT_PASS_BWD};
static const rt_pass conv_passes[] = {RT_PASS_FWD, RT_PASS_BWD_DATA, RT_PASS_BWD_WEIGHTS};
static const rt_pass fwd_only[] = {RT_PASS_FWD};

static const rt_study_impl_info impls[RT_IMPL_COUNT] = {
    [RT_IMPL_DIRECT] = {.name = "direct",
                        .about = "conv2d, attention, mlp, decode: direct loops in C, the "
                                 "correctness reference",
                        .ops = {[RT_OP_CONV2D] = true,
                                [RT_OP_ATTENTION] = true,
                                [RT_OP_MLP] = true,
                                [RT_OP_DECODE] = true},
                        .precisions = {true, true, true},
                        .conv = rt_conv_direct_new,
                        .xformer = rt_xformer_direct_new,
                        .reference = true},
    [RT_IMPL_IM2COL] = {.name = "im2col",
                        .about = "conv2d: im2col/col2im + OpenBLAS sgemm",
                        .ops = {[RT_OP_CONV2D] = true},
                        .precisions = {true, true, true},
                        .conv = rt_conv_im2col_new,
                        .timed_quick = true},
    [RT_IMPL_ONEDNN] = {.name = "onednn",
                        .about = "conv2d, lstm: oneDNN primitives; attention, mlp, decode: "
                                 "oneDNN matmul and softmax, post-ops fused",
                        .ops = {[RT_OP_CONV2D] = true,
                                [RT_OP_LSTM] = true,
                                [RT_OP_ATTENTION] = true,
                                [RT_OP_MLP] = true,
                                [RT_OP_DECODE] = true},
                        .precisions = {true, true, true},
                        .conv = rt_conv_onednn_new,
                        .lstm = rt_lstm_onednn_new,
                        .xformer = rt_xformer_onednn_new,
                        .timed_quick = true},
    [RT_IMPL_UNFUSED] = {.name = "unfused",
                         .about = "lstm, attention, mlp, decode: OpenBLAS GEMMs + C "
                                  "elementwise kernels, one by one",
                         .ops = {[RT_OP_LSTM] = true,
                                 [RT_OP_ATTENTION] = true,
                                 [RT_OP_MLP] = true,
                                 [RT_OP_DECODE] = true},
                         .precisions = {true, true, true},
                         .lstm = rt_lstm_unfused_new,
                         .xformer = rt_xformer_unfused_new,
                         .timed_quick = true},
    /* torch's autograd runs one backward (the gradients of input and weights together): conv2d
     * splits it with aten::convolution_backward's output_mask, as the others split theirs; the
     * LSTM's backward is one. */
    [RT_IMPL_PYTORCH] = {.name = "pytorch",
                         .about = "conv2d, lstm, attention (unfused math), mlp, decode: torch "
                                  "(scripts/torch-client.py), from its traces",
                         .ops = {[RT_OP_CONV2D] = true,
                                 [RT_OP_LSTM] = true,
                                 [RT_OP_ATTENTION] = true,
                                 [RT_OP_MLP] = true,
                                 [RT_OP_DECODE] = true},
                         .passes = {[RT_OP_CONV2D] = conv_passes, [RT_OP_LSTM] = fwd_bwd},
                         .n_passes = {[RT_OP_CONV2D] = 3, [RT_OP_LSTM] = 2},
                         .precisions = {[RT_PREC_FP32] = true, [RT_PREC_BF16] = true},
                         .precision_note = "torch runs fp32 and bf16 on the CPU",
                         .external = true,
                         .timed_quick = true},
    /* torch's fused attention (flash on the CPU) where the pytorch implementation runs the same
     * math unfused (matmul, softmax, matmul): torch 2.0 and later */
    [RT_IMPL_SDPA] = {.name = "sdpa",
                      .about = "attention, decode: torch's scaled_dot_product_attention (torch 2)",
                      .ops = {[RT_OP_ATTENTION] = true, [RT_OP_DECODE] = true},
                      .precisions = {[RT_PREC_FP32] = true, [RT_PREC_BF16] = true},
                      .precision_note = "torch runs fp32 and bf16 on the CPU",
                      .external = true,
                      .timed_quick = true},
};

const rt_study_impl_info *rt_study_impl_get(rt_study_impl i)
{
    return (unsigned)i < RT_IMPL_COUNT ? &impls[i] : NULL;
}

const char *rt_study_impl_name(rt_study_impl i)
{
    return (unsigned)i < RT_IMPL_COUNT ? impls[i].name : "?";
}

int rt_study_impl_parse(const char *s, rt_study_impl *out, rt_error *err)
{
    for (int i = 0; s && i < RT_IMPL_COUNT; i++)
        if (strcasecmp(s, impls[i].name) == 0) {
            *out = (rt_study_impl)i;
            return 0;
        }
    char known[256];
    rt_study_impls_of(RT_OP_COUNT, known, sizeof known);
    rt_error_set(err, "unknown implementation '%s' (known: %s)", s ? s : "", known);
    return -1;
}

bool rt_study_impl_has_op(rt_study_impl i, rt_study_op op)
{
    return (unsigned)i < RT_IMPL_COUNT && (unsigned)op < RT_OP_COUNT && impls[i].ops[op];
}

const rt_pass *rt_study_impl_passes(rt_study_impl i, rt_study_op op, size_t *n)
{
    if ((unsigned)i < RT_IMPL_COUNT && (unsigned)op < RT_OP_COUNT && impls[i].passes[op]) {
        *n = impls[i].n_passes[op];
        return impls[i].passes[op];
    }
    *n = op == RT_OP_CONV2D ? 3 : op == RT_OP_LSTM ? 2 : 1;
    return op == RT_OP_CONV2D ? conv_passes : op == RT_OP_LSTM ? fwd_bwd : fwd_only;
}

bool rt_study_impl_is_torch(rt_study_impl i)
{
    return i == RT_IMPL_PYTORCH || i == RT_IMPL_SDPA;
}

void rt_study_impls_of(rt_study_op op, char *buf, size_t size)
{
    size_t n = 0;
    if (size)
        buf[0] = '\0';
    for (int i = 0; i < RT_IMPL_COUNT; i++)
        if ((op == RT_OP_COUNT || rt_study_impl_has_op((rt_study_impl)i, op)) && n < size)
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", impls[i].name);
}

int rt_study_case_new(rt_study_impl impl, const rt_study_point *pt, rt_precision prec, rt_pass pass,
                      uint64_t seed, rt_study_case **c, rt_error *err)
{
    const rt_study_impl_info *info = rt_study_impl_get(impl);
    if (info && pt->op == RT_OP_CONV2D && info->conv)
        return info->conv(&pt->conv, prec, pass, seed, c, err);
    if (info && pt->op == RT_OP_LSTM && info->lstm)
        return info->lstm(&pt->lstm, prec, pass, seed, c, err);
    if (info && rt_study_op_is_xformer(pt->op) && info->xformer)
        return info->xformer(pt, prec, pass, seed, c, err);
    rt_error_set(err, "%s has no %s", rt_study_impl_name(impl), rt_study_op_name(pt->op));
    return -1;
}
