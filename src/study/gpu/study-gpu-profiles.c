/* The GPU study's profiles: the collector's trace and counter runs of one client joined per kernel
 * name and configuration tags, warm-up dropped, split per implementation x precision x operation x
 * pass x variant. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime-config.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/gpu-measurement.h"
#include "rooftime/core/profile.h"
#include "rooftime/study/study-gpu-profiles.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* The profile's tags (one profile each) and then the kernel's (the swept parameters). */
static const char *const profile_keys[] = {"implementation", "precision", "operation", "pass",
                                           "variant"};
static const char *const param_keys[] = {"batch",    "filters", "kernel", "stride",   "seq",
                                         "features", "hidden",  "heads",  "head_dim", "causal",
                                         "tokens",   "gated",   "cache"};
static const char *const kept[] = {
    "implementation", "precision", "operation", "pass",   "variant",  "batch",
    "filters",        "kernel",    "stride",    "seq",    "features", "hidden",
    "heads",          "head_dim",  "causal",    "tokens", "gated",    "cache"};

const char *const *rt_study_gpu_kept_tags(size_t *n)
{
    *n = sizeof kept / sizeof kept[0];
    return kept;
}

static const char *const group_keys[] = {
    "implementation", "variant",  "precision", "operation", "pass",     "batch",
    "filters",        "kernel",   "stride",    "seq",       "features", "hidden",
    "heads",          "head_dim", "causal",    "tokens",    "gated",    "cache"};
static const rt_group_opts group_opts = {.keys = group_keys,
                                         .n_keys = sizeof group_keys / sizeof group_keys[0],
                                         .params = param_keys,
                                         .n_params = sizeof param_keys / sizeof param_keys[0]};

const rt_group_opts *rt_study_gpu_group_opts(void)
{
    return &group_opts;
}

/* The kept tags of k, in a fixed order; false when k is not measured (no implementation or pass,
 * or a warm-up pass). */
static bool kept_tags(const rt_kernel *k, rt_tags *out)
{
    const char *impl = rt_tags_get(&k->tags, "implementation");
    const char *pass = rt_tags_get(&k->tags, "pass");
    if (!impl || !*impl || !pass || !*pass || strcmp(pass, "warmup") == 0)
        return false;
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        const char *v = rt_tags_get(&k->tags, kept[i]);
        if (v && *v)
            rt_tags_set(out, kept[i], v);
    }
    return true;
}

/* The profile of k's implementation x precision x operation x pass x variant in *profiles
 * (added when new, with the source's header). */
static rt_profile *profile_for(const rt_tags *t, const rt_profile *src, const char *what,
                               rt_profile ***profiles, size_t *n_profiles, size_t first)
{
    for (size_t i = first; i < *n_profiles; i++) {
        bool same = true;
        for (size_t j = 0; j < sizeof profile_keys / sizeof profile_keys[0] && same; j++) {
            const char *a = rt_tags_get(&(*profiles)[i]->tags, profile_keys[j]);
            const char *b = rt_tags_get(t, profile_keys[j]);
            same = strcmp(a ? a : "", b ? b : "") == 0;
        }
        if (same)
            return (*profiles)[i];
    }
    rt_profile *p = rt_profile_new();
    p->tool = rt_strdup("rooftime-study-gpu");
    p->version = rt_strdup(RT_VERSION);
    p->command = rt_asprintf("rooftime study --gpu (%s)", what);
    p->method = rt_asprintf("%s%s", src->method ? src->method : "CUPTI collector",
                            "; FLOPs and bytes per invocation from the counter run's sampled "
                            "iterations, times from the trace run's measured iterations");
    p->time_kind = src->time_kind;
    /* a graph's kernels pay the launch of a graph node, not of a kernel ("graphs", and the
     * transformer clients' captured variants "<variant>_graphs") */
    const char *variant = rt_tags_get(t, "variant");
    size_t vl = variant ? strlen(variant) : 0;
    if (vl >= 6 && strcmp(variant + vl - 6, "graphs") == 0)
        p->overhead = rt_strdup(rt_gpu_tau_overhead_name(RT_GPU_TAU_GRAPH));
    else
        p->overhead = src->overhead ? rt_strdup(src->overhead) : NULL;
    for (size_t i = 0; i < src->provenance.n_inputs; i++)
        rt_provenance_add_input(&p->provenance, src->provenance.inputs[i]);
    rt_tags_copy(&p->provenance.notes, &src->provenance.notes);
    rt_tags_copy(&p->provenance.formulas, &src->provenance.formulas);
    for (size_t j = 0; j < sizeof profile_keys / sizeof profile_keys[0]; j++) {
        const char *v = rt_tags_get(t, profile_keys[j]);
        if (v)
            rt_tags_set(&p->tags, profile_keys[j], v);
    }
    *profiles = rt_xrealloc(*profiles, (*n_profiles + 1) * sizeof **profiles);
    (*profiles)[(*n_profiles)++] = p;
    return p;
}

static bool same_tags(const rt_tags *a, const rt_tags *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        const char *v = rt_tags_get(b, a->v[i].key);
        if (!v || strcmp(v, a->v[i].value) != 0)
            return false;
    }
    return true;
}

/* The counter run's FLOPs and bytes per invocation of the kernel name under tags t: summed over
 * its kernels of that name and tags (the import aggregates per name and tag set, but the dropped
 * tags may split them). false when the counter run has none. */
static bool counters_per_invocation(const rt_profile *c, const char *name, const rt_tags *t,
                                    bool any_variant, rt_kernel *per)
{
    double n = 0;
    rt_tags want = {0}; /* t, without its variant when any will do */
    for (size_t i = 0; i < t->n; i++)
        if (!(any_variant && strcmp(t->v[i].key, "variant") == 0))
            rt_tags_set(&want, t->v[i].key, t->v[i].value);
    for (size_t i = 0; c && i < c->n_kernels; i++) {
        const rt_kernel *k = &c->kernels[i];
        if (strcmp(k->name, name) != 0)
            continue;
        rt_tags kt = {0};
        bool ok = kept_tags(k, &kt);
        if (ok && any_variant) {
            rt_tags kv = {0};
            for (size_t j = 0; j < kt.n; j++)
                if (strcmp(kt.v[j].key, "variant") != 0)
                    rt_tags_set(&kv, kt.v[j].key, kt.v[j].value);
            rt_tags_release(&kt);
            kt = kv;
        }
        ok = ok && same_tags(&kt, &want);
        rt_tags_release(&kt);
        if (!ok)
            continue;
        n += k->invocations;
        for (size_t u = 0; u < k->flops.n; u++)
            rt_values_add(&per->flops, k->flops.v[u].key, k->flops.v[u].value);
        for (size_t l = 0; l < k->bytes.n; l++)
            rt_values_add(&per->bytes, k->bytes.v[l].key, k->bytes.v[l].value);
    }
    rt_tags_release(&want);
    if (!(n > 0))
        return false;
    for (size_t u = 0; u < per->flops.n; u++)
        per->flops.v[u].value /= n;
    for (size_t l = 0; l < per->bytes.n; l++)
        per->bytes.v[l].value /= n;
    return true;
}

int rt_study_gpu_join(const rt_profile *trace, const rt_profile *counters, const rt_profile *eager,
                      const char *what, rt_profile ***profiles, size_t *n_profiles, rt_warnings *w,
                      rt_error *err)
{
    size_t first = *n_profiles, measured = 0, uncounted = 0, borrowed = 0;
    for (size_t i = 0; i < trace->n_kernels; i++) {
        const rt_kernel *k = &trace->kernels[i];
        rt_tags t = {0};
        if (!kept_tags(k, &t)) {
            rt_tags_release(&t);
            continue;
        }
        measured++;
        rt_profile *p = profile_for(&t, trace, what, profiles, n_profiles, first);
        rt_tags kt = {0};
        for (size_t j = 0; j < sizeof param_keys / sizeof param_keys[0]; j++) {
            const char *v = rt_tags_get(&t, param_keys[j]);
            if (v)
                rt_tags_set(&kt, param_keys[j], v);
        }
        rt_kernel one = {0};
        rt_kernel_init(&one, k->name);
        one.invocations = k->invocations;
        one.time = k->time;
        one.spread = k->spread;
        if (k->samples)
            rt_kernel_add_samples(&one, k->samples);
        rt_kernel per = {0};
        rt_kernel_init(&per, k->name);
        bool got = counters_per_invocation(counters, k->name, &t, false, &per);
        if (!got && eager && (got = counters_per_invocation(eager, k->name, &t, true, &per)))
            borrowed++;
        if (got) {
            for (size_t u = 0; u < per.flops.n; u++)
                rt_values_add(&one.flops, per.flops.v[u].key,
                              per.flops.v[u].value * k->invocations);
            for (size_t l = 0; l < per.bytes.n; l++)
                rt_values_add(&one.bytes, per.bytes.v[l].key,
                              per.bytes.v[l].value * k->invocations);
        } else {
            uncounted++;
        }
        rt_kernel *dst = rt_profile_find_or_add(p, k->name, &kt);
        rt_kernel_accumulate(dst, &one);
        rt_kernel_release(&one);
        rt_kernel_release(&per);
        rt_tags_release(&kt);
        rt_tags_release(&t);
    }
    for (size_t i = first; i < *n_profiles; i++)
        rt_profile_finish_spreads((*profiles)[i]);
    if (!measured) {
        rt_error_set(err,
                     "%s: no measured kernel carries the study's marks (implementation and "
                     "pass tags): did the client mark its points?",
                     what);
        return -1;
    }
    if (borrowed && w)
        rt_warnings_add(w,
                        "%s: FLOPs and bytes of %zu of %zu measured kernels from the counter run "
                        "without CUDA Graphs (the same kernels; the Range Profiler sees a graph "
                        "launch as one range, without kernel names)",
                        what, borrowed, measured);
    if (uncounted && w)
        rt_warnings_add(w,
                        "%s: %zu of %zu measured kernels found no counters for the same name and "
                        "configuration (their FLOPs and bytes are unknown)%s",
                        what, uncounted, measured, counters ? "" : ": the counter run did not run");
    return 0;
}
