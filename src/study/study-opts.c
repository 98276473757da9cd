/* The study's options: their defaults, how its profiles are grouped, their validation, and the
 * iterations each op runs. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study-opts.h"
#include "rooftime/study/study-impls.h"
#include "rooftime/study/study-run.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/util/error.h"

void rt_study_opts_init(rt_study_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < RT_OP_COUNT; i++)
        o->ops[i] = true;
    for (int i = 0; i < RT_PREC_COUNT; i++)
        o->precisions[i] = true;
    for (int i = 0; i < RT_IMPL_COUNT; i++)
        o->impls[i] = true;
    o->warmup = o->iters = -1;
    o->scale = 1;
    o->pytorch_optional = true;
    o->emulated_optional = true;
}

/* The swept parameters of every op: conv2d, lstm, then the transformer study's. */
static const char *const group_keys[] = {
    "implementation", "precision", "operation", "pass",     "batch",  "filters",
    "kernel",         "stride",    "seq",       "features", "hidden", "heads",
    "head_dim",       "causal",    "tokens",    "gated",    "cache"};
static const char *const group_params[] = {"batch",    "filters", "kernel", "stride",   "seq",
                                           "features", "hidden",  "heads",  "head_dim", "causal",
                                           "tokens",   "gated",   "cache"};
static const rt_group_opts group_opts = {.keys = group_keys,
                                         .n_keys = sizeof group_keys / sizeof group_keys[0],
                                         .params = group_params,
                                         .n_params = sizeof group_params / sizeof group_params[0]};

const rt_group_opts *rt_study_group_opts(void)
{
    return &group_opts;
}

int rt_study_warmup(const rt_study_opts *o)
{
    return o->warmup >= 0 ? o->warmup : o->quick ? 1 : 5;
}

int rt_study_iters(const rt_study_opts *o)
{
    return o->iters >= 0 ? o->iters : o->quick ? 3 : 20;
}

/* The iterations of op's configs: the transformer ops' full sweep runs 2 warm-up and 5 measured
 * iterations (its sequence 4096 and batch 256 must fit a minute of the full study on two cores);
 * --warmup and --iters set them as for the other ops. */
int rt_study_op_warmup(const rt_study_opts *o, rt_study_op op)
{
    return o->warmup < 0 && !o->quick && rt_study_op_is_xformer(op) ? RT_STUDY_XF_WARMUP
                                                                    : rt_study_warmup(o);
}

int rt_study_op_iters(const rt_study_opts *o, rt_study_op op)
{
    return o->iters < 0 && !o->quick && rt_study_op_is_xformer(op) ? RT_STUDY_XF_ITERS
                                                                   : rt_study_iters(o);
}

int rt_study_validate(const rt_study_opts *o, rt_error *err)
{
    if (!(o->scale > 0 && o->scale <= 1)) {
        rt_error_set(err, "scale must be in (0, 1], got %g", o->scale);
        return -1;
    }
    if (o->warmup > 1000 || o->iters > 100000 || o->iters == 0) {
        rt_error_set(err,
                     "iterations must be between 1 and 100000 and warm-up at most 1000 "
                     "(got %d and %d)",
                     o->iters, o->warmup);
        return -1;
    }
    bool any_prec = false;
    for (int p = 0; p < RT_PREC_COUNT; p++)
        any_prec |= o->precisions[p];
    if (!any_prec) {
        rt_error_set(err, "no precision selected");
        return -1;
    }
    bool any = false;
    for (int op = 0; op < RT_OP_COUNT; op++) {
        if (!o->ops[op])
            continue;
        bool runs = false;
        for (int i = 0; i < RT_IMPL_COUNT; i++)
            runs |= o->impls[i] && rt_study_impl_has_op((rt_study_impl)i, (rt_study_op)op) &&
                    (!o->quick || rt_study_impl_get((rt_study_impl)i)->timed_quick);
        if (!runs) {
            char has[256], untimed[256] = "";
            rt_study_impls_of((rt_study_op)op, has, sizeof has);
            for (int i = 0; o->quick && i < RT_IMPL_COUNT; i++)
                if (rt_study_impl_has_op((rt_study_impl)i, (rt_study_op)op) &&
                    !rt_study_impl_get((rt_study_impl)i)->timed_quick)
                    snprintf(untimed, sizeof untimed, "; %s is not timed with --quick",
                             rt_study_impl_name((rt_study_impl)i));
            rt_error_set(err, "no selected implementation runs %s (it has: %s%s)",
                         rt_study_op_name((rt_study_op)op), has, untimed);
            return -1;
        }
        size_t n;
        rt_study_point *pts = rt_study_points((rt_study_op)op, o->quick, o->scale, &n);
        for (size_t i = 0; i < n; i++) {
            if (rt_study_point_check(&pts[i], err) < 0) {
                rt_error_prefix(err, "sweep point %zu (%s)", i, pts[i].varied);
                free(pts);
                return -1;
            }
        }
        free(pts);
        any = true;
    }
    if (!any) {
        rt_error_set(err, "no operation selected");
        return -1;
    }
    return 0;
}
