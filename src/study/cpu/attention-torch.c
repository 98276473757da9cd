/* The study's credit of torch's fused attention kernels under a causal mask: the exact count of
 * the (query, key) pairs they compute, where the cost model counts every pair. */
#include <string.h>

#include "rooftime/core/profile.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-torch.h"
#include "rooftime/study/xformer-flops.h"

/* torch's fused attention operators: scaled_dot_product_attention and the kernels it dispatches
 * to, never its math path (aten::_scaled_dot_product_attention_math: every pair, masked). */
static bool fused_attention(const char *name)
{
    static const char *const fused[] = {"aten::scaled_dot_product_attention",
                                        "aten::_scaled_dot_product_flash_attention",
                                        "aten::_scaled_dot_product_efficient_attention",
                                        "aten::_scaled_dot_product_cudnn_attention",
                                        "aten::_scaled_dot_product_fused_attention",
                                        "aten::_flash_attention_forward",
                                        "aten::_efficient_attention_forward"};
    size_t len = strcspn(name, " ");
    for (size_t i = 0; i < sizeof fused / sizeof fused[0]; i++)
        if (strncmp(name, fused[i], strlen(fused[i])) == 0 && len >= strlen(fused[i]))
            return true;
    return false;
}

void rt_torch_study_causal_credit(rt_profile *p, const rt_study_point *pt)
{
    if (pt->op != RT_OP_ATTENTION || !pt->attn.causal)
        return;
    double ratio = rt_attn_valid_scores(&pt->attn) / ((double)pt->attn.seq * pt->attn.seq);
    for (size_t i = 0; i < p->n_kernels; i++) {
        rt_kernel *k = &p->kernels[i];
        if (!fused_attention(k->name))
            continue;
        for (size_t u = 0; u < k->flops.n; u++)
            k->flops.v[u].value *= ratio;
    }
}
