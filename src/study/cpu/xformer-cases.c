/* The transformer study's cases, one entry per implementation (the study's table, study-impls.c,
 * names these), dispatching on the point's operation. */
#include "xformer-internal.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/util/error.h"

static int dispatch(const rt_xf_new fns[3], const rt_study_point *pt, rt_precision prec,
                    rt_pass pass, uint64_t seed, rt_study_case **out, rt_error *err)
{
    *out = NULL;
    int i = pt->op == RT_OP_ATTENTION ? 0
            : pt->op == RT_OP_MLP     ? 1
            : pt->op == RT_OP_DECODE  ? 2
                                      : -1;
    if (i < 0) {
        rt_error_set(err, "%s is not a transformer operation", rt_study_op_name(pt->op));
        return -1;
    }
    return fns[i](pt, prec, pass, seed, out, err);
}

int rt_xformer_direct_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                          rt_study_case **out, rt_error *err)
{
    static const rt_xf_new fns[3] = {rt_attn_direct_new, rt_mlp_direct_new, rt_decode_direct_new};
    return dispatch(fns, pt, prec, pass, seed, out, err);
}

int rt_xformer_unfused_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                           rt_study_case **out, rt_error *err)
{
    static const rt_xf_new fns[3] = {rt_attn_unfused_new, rt_mlp_unfused_new,
                                     rt_decode_unfused_new};
    return dispatch(fns, pt, prec, pass, seed, out, err);
}

int rt_xformer_onednn_new(const rt_study_point *pt, rt_precision prec, rt_pass pass, uint64_t seed,
                          rt_study_case **out, rt_error *err)
{
    static const rt_xf_new fns[3] = {rt_attn_onednn_new, rt_mlp_onednn_new, rt_decode_onednn_new};
    return dispatch(fns, pt, prec, pass, seed, out, err);
}

int rt_xformer_require(const char *what, rt_precision prec, rt_pass pass, bool fp32_only,
                       rt_error *err)
{
    if (pass != RT_PASS_FWD) {
        rt_error_set(err, "%s runs the forward pass only", what);
        return -1;
    }
    if (fp32_only && prec != RT_PREC_FP32) {
        rt_error_set(err, "%s runs fp32 only", what);
        return -1;
    }
    return 0;
}
