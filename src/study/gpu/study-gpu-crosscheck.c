/* The GPU study's cross-check: the five longest kernels of a config, the collector's FLOPs and
 * bytes per invocation against Nsight Compute's for the same kernel. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/kernel-name-key.h"
#include "rooftime/core/profile.h"
#include "rooftime/study/study-gpu-crosscheck.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/util/error.h"

/* Whether kernel k ran at point pt (its swept parameters' tags). */
static bool at_point(const rt_kernel *k, const rt_study_point *pt)
{
    size_t np;
    const char *const *params = rt_study_params(pt->op, &np);
    for (size_t i = 0; i < np; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%ld", rt_study_point_param(pt, params[i]));
        const char *v = rt_tags_get(&k->tags, params[i]);
        if (!v || strcmp(v, buf) != 0)
            return false;
    }
    return true;
}

/* The kernel of that name in theirs: the whole name (ncu's mangled names, demangled on import as
 * the collector demangles them), else the one whose name has the same key (ncu's own shortened
 * printing: rooftime/core/kernel-name-key.h). */
static const rt_kernel *same_kernel(const rt_profile *theirs, const char *name)
{
    for (size_t i = 0; i < theirs->n_kernels; i++)
        if (strcmp(theirs->kernels[i].name, name) == 0)
            return &theirs->kernels[i];
    char *key = rt_kernel_name_key(name);
    const rt_kernel *found = NULL;
    for (size_t i = 0; i < theirs->n_kernels && !found; i++) {
        char *k = rt_kernel_name_key(theirs->kernels[i].name);
        if (strcmp(k, key) == 0)
            found = &theirs->kernels[i];
        free(k);
    }
    free(key);
    return found;
}

static double rel(double a, double b)
{
    return b > 0 ? a / b - 1 : (a > 0 ? INFINITY : 0);
}

/* "FLOPs +1.2%, HBM -7.0%": per invocation, a against b; false when one is out of tolerance. */
static bool compare(const rt_kernel *a, const rt_kernel *b, double tol, char *buf, size_t n)
{
    double d =
        rel(rt_values_sum(&a->flops) / a->invocations, rt_values_sum(&b->flops) / b->invocations);
    bool ok = fabs(d) <= tol;
    snprintf(buf, n, "FLOPs %+.1f%%", 100 * d);
    for (size_t l = 0; l < b->bytes.n; l++) {
        double qa = rt_values_get(&a->bytes, b->bytes.v[l].key, NAN);
        if (isnan(qa))
            continue; /* a level only ncu has */
        double e = rel(qa / a->invocations, b->bytes.v[l].value / b->invocations);
        ok &= fabs(e) <= tol;
        snprintf(buf + strlen(buf), n - strlen(buf), ", %s %+.1f%%", b->bytes.v[l].key, 100 * e);
    }
    return ok;
}

size_t rt_study_gpu_crosscheck(const rt_profile *ours, const rt_study_point *pt,
                               const rt_profile *theirs, double tolerance, const char *what,
                               rt_warnings *out)
{
    const rt_kernel *top[5] = {0};
    for (size_t i = 0; i < ours->n_kernels; i++) {
        const rt_kernel *k = &ours->kernels[i];
        if (!at_point(k, pt) || !(k->invocations > 0))
            continue;
        for (int j = 0; j < 5; j++)
            if (!top[j] || k->time > top[j]->time) {
                for (int m = 4; m > j; m--)
                    top[m] = top[m - 1];
                top[j] = k;
                break;
            }
    }
    size_t agree = 0, n = 0;
    for (int j = 0; j < 5 && top[j]; j++) {
        n++;
        const rt_kernel *b = same_kernel(theirs, top[j]->name);
        if (!b || !(b->invocations > 0)) {
            rt_warnings_add(out, "%s: %.120s: not in ncu's output", what, top[j]->name);
            continue;
        }
        char buf[512];
        if (compare(top[j], b, tolerance, buf, sizeof buf))
            agree++;
        else
            rt_warnings_add(out, "%s: %.120s: DIFFERS from ncu by more than %.0f%%: %s", what,
                            top[j]->name, 100 * tolerance, buf);
    }
    rt_warnings_add(out,
                    "%s: %zu of the %zu longest kernels agree with ncu within %.0f%% in FLOPs and "
                    "bytes",
                    what, agree, n, 100 * tolerance);
    return agree;
}
