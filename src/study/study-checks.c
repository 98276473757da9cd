/* The study's correctness checks: every implementation against the reference at a small shape
 * before anything is timed, and the notes of the cases that cannot run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "study-checks.h"
#include "xformer-internal.h"
#include "rooftime/study/conv-direct.h"
#include "rooftime/study/lstm-direct.h"
#include "rooftime/study/study-impls.h"
#include "rooftime/study/study-run.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static const rt_pass *op_passes(rt_study_op op, size_t *n)
{
    return rt_study_impl_passes(RT_IMPL_COUNT, op, n);
}

/* The reference result of a small case: direct loops in fp32 (conv2d, attention, mlp, decode),
 * the plain-C LSTM. */
static float *reference_out(const rt_study_point *pt, rt_pass pass, uint64_t seed, size_t *n,
                            rt_error *err)
{
    rt_study_case *c = NULL;
    int rc = rt_study_op_is_xformer(pt->op)
                 ? rt_xformer_direct_new(pt, RT_PREC_FP32, pass, seed, &c, err)
             : pt->op == RT_OP_CONV2D
                 ? rt_conv_direct_new(&pt->conv, RT_PREC_FP32, pass, seed, &c, err)
                 : rt_lstm_direct_new(&pt->lstm, RT_PREC_FP32, pass, seed, &c, err);
    if (rc < 0)
        return NULL;
    rt_study_timer t;
    rt_timer_init(&t, NULL, NULL);
    float *out = c->run(c, &t, err) == 0 ? c->out(c, n) : NULL;
    rt_study_case_free(c);
    return out;
}

static void add_check(rt_study_result *r, char *what, double d, double bound)
{
    r->checks = rt_xrealloc(r->checks, (r->n_checks + 1) * sizeof *r->checks);
    r->checks[r->n_checks++] =
        (rt_study_check){.what = what, .rel_diff = d, .bound = bound, .ok = d <= bound};
}

void rt_study_skip_add(rt_study_result *r, rt_study_impl i, rt_precision pr, rt_study_op op,
                       rt_pass pass, const char *msg)
{
    char *head =
        rt_asprintf("%s %s %s", rt_study_impl_name(i), rt_precision_name(pr), rt_study_op_name(op));
    size_t hl = strlen(head);
    for (size_t k = 0; k < r->skipped.n; k++) {
        char *m = r->skipped.msg[k];
        const char *colon = strstr(m, ": ");
        if (strncmp(m, head, hl) == 0 && m[hl] == ' ' && colon && strcmp(colon + 2, msg) == 0) {
            char *merged =
                rt_asprintf("%.*s, %s: %s", (int)(colon - m), m, rt_pass_name(pass), msg);
            free(m);
            r->skipped.msg[k] = merged;
            free(head);
            return;
        }
    }
    rt_warnings_add(&r->skipped, "%s %s: %s", head, rt_pass_name(pass), msg);
    free(head);
}

size_t rt_study_checks_run(const rt_study_opts *o, rt_study_result *r, bool *skip)
{
    size_t failed = 0;
    rt_study_point small[RT_OP_COUNT] = {
        {.op = RT_OP_CONV2D,
         .conv = {.n = 2, .c = 8, .h = 15, .w = 13, .k = 8, .r = 3, .s = 3, .stride = 2, .pad = 1}},
        {.op = RT_OP_LSTM, .lstm = {.batch = 4, .seq = 5, .features = 8, .hidden = 6}}};
    for (int op = 0; op < RT_OP_COUNT; op++)
        if (rt_study_op_is_xformer((rt_study_op)op))
            small[op] = rt_xformer_small_point((rt_study_op)op);
    for (int op = 0; op < RT_OP_COUNT; op++) {
        if (!o->ops[op])
            continue;
        size_t np;
        const rt_pass *passes = op_passes((rt_study_op)op, &np);
        for (size_t p = 0; p < np; p++) {
            uint64_t seed = 0x5eed + 31u * (uint64_t)op + p;
            size_t nref = 0;
            rt_error err;
            float *ref = reference_out(&small[op], passes[p], seed, &nref, &err);
            for (int i = 0; i < RT_IMPL_COUNT; i++)
                for (int pr = 0; pr < RT_PREC_COUNT; pr++) {
                    /* an external client draws its own inputs: there is no result to compare */
                    if (!o->impls[i] || !o->precisions[pr] ||
                        rt_study_impl_get((rt_study_impl)i)->external ||
                        !rt_study_impl_has_op((rt_study_impl)i, (rt_study_op)op))
                        continue;
                    size_t idx =
                        ((size_t)(op * RT_IMPL_COUNT + i) * RT_PREC_COUNT + pr) * RT_PASS_COUNT +
                        passes[p];
                    char *what =
                        rt_asprintf("%s %s %s %s", rt_study_impl_name((rt_study_impl)i),
                                    rt_precision_name((rt_precision)pr),
                                    rt_study_op_name((rt_study_op)op), rt_pass_name(passes[p]));
                    if (rt_study_impl_get((rt_study_impl)i)->reference && pr == RT_PREC_FP32) {
                        free(what); /* the reference itself */
                        continue;
                    }
                    rt_study_case *c = NULL;
                    if (rt_study_case_new((rt_study_impl)i, &small[op], (rt_precision)pr, passes[p],
                                          seed, &c, &err) < 0) {
                        rt_study_skip_add(r, (rt_study_impl)i, (rt_precision)pr, (rt_study_op)op,
                                          passes[p], err.msg);
                        skip[idx] = true;
                        free(what);
                        continue;
                    }
                    rt_study_timer t;
                    rt_timer_init(&t, NULL, NULL);
                    size_t n = 0;
                    float *got = NULL;
                    if (ref && c->run(c, &t, &err) == 0)
                        got = c->out(c, &n);
                    double d = got && n == nref ? rt_rel_diff(got, ref, n) : NAN;
                    /* fp32 sums in another order; 16-bit inputs round to 8 (bf16) or 11 bits */
                    double bound = pr == RT_PREC_FP32 ? 1e-4 : 2e-2;
                    add_check(r, what, d, bound);
                    if (!(d <= bound))
                        failed++;
                    free(got);
                    rt_study_case_free(c);
                }
            free(ref);
        }
    }
    return failed;
}
