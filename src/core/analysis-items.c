/* An analysis's items: each kernel of the profiles with its merged tags and its verdict, the
 * verdicts computed on several threads, everything that sums or warns done in item order. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis-items.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/coverage.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/overhead-path.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"
#include "rooftime/util/format.h"
#include "rooftime/util/parallel.h"
#include "rooftime/util/strings.h"

/* " and 3 more kernels" in a static buffer (one use per expression). */
static const char *more_kernels(double more)
{
    static _Thread_local char buf[64];
    snprintf(buf, sizeof buf, " and %.0f more kernel%s", more, more > 1 ? "s" : "");
    return buf;
}

/* Main memory is HBM on GPUs and DRAM on CPUs: either name finds the other (as in the model). */
static int level_known(const rt_machine *m, const char *name)
{
    if (rt_machine_level_index(m, name) >= 0 || strcmp(name, "link") == 0)
        return 1; /* "link": the bytes a communication kernel sent, against the machine's link */
    if (strcasecmp(name, "HBM") == 0)
        return rt_machine_level_index(m, "DRAM") >= 0;
    if (strcasecmp(name, "DRAM") == 0)
        return rt_machine_level_index(m, "HBM") >= 0;
    return 0;
}

/* Count kernels that name a unit or level the machine lacks; warn once per name. */
static void note_unknown(rt_values *seen, rt_tags *first, const char *name, const char *kernel)
{
    if (!rt_values_has(seen, name))
        rt_tags_set(first, name, kernel);
    rt_values_add(seen, name, 1);
}

static void warn_unknown(rt_analysis *a, const rt_values *seen, const rt_tags *first,
                         const char *what, const char *consequence)
{
    for (size_t i = 0; i < seen->n; i++) {
        double n = seen->v[i].value;
        rt_warnings_add(&a->warnings, "kernel '%s'%s: %s '%s' is not one of machine '%s': %s",
                        rt_tags_get(first, seen->v[i].key), n > 1 ? more_kernels(n - 1) : "", what,
                        seen->v[i].key, a->machine->name, consequence);
    }
}

/* dst = a's tags, then b's (a key in both keeps a's place and b's value) in store, room for a->n
 * + b->n tags; the strings are the profiles', not copies. */
static void merge_tags(rt_tags *dst, rt_tag *store, const rt_tags *a, const rt_tags *b)
{
    dst->cap = a->n + b->n;
    dst->v = store;
    if (a->n)
        memcpy(dst->v, a->v, a->n * sizeof *a->v);
    dst->n = a->n;
    for (size_t i = 0; i < b->n; i++) {
        size_t j = 0;
        while (j < a->n && !rt_str_eq(dst->v[j].key, b->v[i].key))
            j++;
        if (j < a->n)
            dst->v[j].value = b->v[i].value;
        else
            dst->v[dst->n++] = b->v[i];
    }
}

double rt_analysis_profile_tau(const rt_machine *m, const rt_profile *p, const char **name)
{
    const rt_overhead *o = rt_machine_overhead(m, p->overhead);
    if (name)
        *name = o ? o->name : NULL;
    if (o)
        return o->seconds.median;
    /* an overhead the run measured itself (import torch of a GPU trace: its launch latency) */
    double own = p->overhead ? rt_profile_note_seconds(p, "overhead_seconds") : -1;
    if (own >= 0 && name)
        *name = p->overhead;
    return own >= 0 ? own : m->tau;
}

/* Each profile's time kind and tau; a named overhead the machine lacks is warned once. */
static rt_verdict_ctx profile_ctx(rt_analysis *a, const rt_profile *p, rt_tags *missing)
{
    rt_verdict_ctx ctx = {.mode = a->mode,
                          .time = p->time_kind,
                          .place_bytes = p->bytes_kind == RT_BYTES_ESTIMATED,
                          .threads = p->threads};
    ctx.tau = rt_analysis_profile_tau(a->machine, p, &ctx.tau_name);
    ctx.paid_oh = rt_machine_overhead(a->machine, p->overhead); /* its spread, for the trust */
    if (p->overhead && !ctx.tau_name && !rt_tags_get(missing, p->overhead)) {
        rt_tags_set(missing, p->overhead, "");
        char t[32];
        rt_fmt_seconds(t, sizeof t, a->machine->tau);
        rt_warnings_add(&a->warnings,
                        "a profile's kernels pay the launch overhead '%s', which machine '%s' has "
                        "not measured: its tau (%s) stands in (measure it, or choose with --tau)",
                        p->overhead, a->machine->name, t);
    }
    return ctx;
}

const char *rt_analysis_what(char **buf, size_t *cap, const char *kind, const char *name)
{
    size_t k = strlen(kind), n = strlen(name);
    if (*cap < k + n + 4) {
        *cap = 2 * (k + n + 4);
        *buf = rt_xrealloc(*buf, *cap);
    }
    char *o = *buf;
    memcpy(o, kind, k);
    o += k;
    *o++ = ' ';
    *o++ = '\'';
    memcpy(o, name, n);
    o += n;
    *o++ = '\'';
    *o = '\0';
    return *buf;
}

/* Whether a kernel names a unit or level that the analysis warns about (absent, a stand-in, a
 * Tensor Core unit without a ceiling); which, note_kernel says again in item order. */
static bool names_unknown(const rt_analysis *a, const rt_kernel *k)
{
    for (size_t i = 0; i < k->flops.n; i++) {
        rt_unit_match how;
        if (!(k->flops.v[i].value > 0))
            continue;
        rt_machine_resolve_unit(a->machine, k->flops.v[i].key, &how);
        if (how == RT_UNIT_ABSENT ||
            (a->mode == RT_MODE_HIER && (how == RT_UNIT_STANDIN || how == RT_UNIT_NO_CEILING)))
            return true;
    }
    for (size_t i = 0; i < k->bytes.n; i++)
        if (!level_known(a->machine, k->bytes.v[i].key))
            return true;
    return false;
}

/* The units and levels a kernel names that the machine lacks, by kind; the first kernel naming
 * each is what its warning names. */
typedef struct unknowns {
    rt_values bad_units, bad_levels, standin_units, no_ceiling;
    rt_tags first_unit, first_level, first_standin, first_no_ceiling;
} unknowns;

static void note_kernel(const rt_analysis *a, const rt_kernel *k, unknowns *u)
{
    for (size_t i = 0; i < k->flops.n; i++) {
        const rt_value *f = &k->flops.v[i];
        rt_unit_match how;
        if (!(f->value > 0))
            continue;
        rt_machine_resolve_unit(a->machine, f->key, &how);
        if (how == RT_UNIT_ABSENT)
            note_unknown(&u->bad_units, &u->first_unit, f->key, k->name);
        else if (how == RT_UNIT_STANDIN && a->mode == RT_MODE_HIER)
            note_unknown(&u->standin_units, &u->first_standin, f->key, k->name);
        else if (how == RT_UNIT_NO_CEILING && a->mode == RT_MODE_HIER)
            note_unknown(&u->no_ceiling, &u->first_no_ceiling, f->key, k->name);
    }
    for (size_t i = 0; i < k->bytes.n; i++)
        if (!level_known(a->machine, k->bytes.v[i].key))
            note_unknown(&u->bad_levels, &u->first_level, k->bytes.v[i].key, k->name);
}

static void warn_unknowns(rt_analysis *a, unknowns *u)
{
    char *cons = rt_asprintf("its FLOPs count at the reference peak (%s) in hier mode",
                             a->machine->ref_unit);
    warn_unknown(a, &u->bad_units, &u->first_unit, "compute unit", cons);
    free(cons);
    warn_unknown(a, &u->bad_levels, &u->first_level, "memory level", "its bytes are ignored");
    for (size_t i = 0; i < u->standin_units.n; i++) {
        const char *unit = u->standin_units.v[i].key;
        int ui = rt_machine_resolve_unit(a->machine, unit, NULL);
        char *cons =
            rt_asprintf("its FLOPs are judged against the machine's '%s' ceiling (%s)",
                        a->machine->units[ui].name,
                        strcasecmp(unit, "tensor_bf16") == 0
                            ? "dense BF16 and FP16 Tensor Core rates are the same since Ampere"
                            : "'tensor' is the dense FP16 Tensor Core ceiling of presets and older "
                              "measurements");
        rt_values one = {0};
        rt_values_add(&one, unit, u->standin_units.v[i].value);
        warn_unknown(a, &one, &u->first_standin, "compute unit", cons);
        rt_values_release(&one);
        free(cons);
    }
    warn_unknown(a, &u->no_ceiling, &u->first_no_ceiling, "Tensor Core unit",
                 "no ceiling of that precision and no stand-in, so their hier verdict is unknown "
                 "(measure the machine's Tensor Cores, or --mode single)");
    rt_values_release(&u->standin_units);
    rt_values_release(&u->no_ceiling);
    rt_tags_release(&u->first_standin);
    rt_tags_release(&u->first_no_ceiling);
    rt_values_release(&u->bad_units);
    rt_values_release(&u->bad_levels);
    rt_tags_release(&u->first_unit);
    rt_tags_release(&u->first_level);
}

/* One profile's kernels on the workers: items from `first` on, their tags from tag_at on. */
typedef struct items_job {
    rt_analysis *a;
    const rt_profile *p;
    size_t profile_index, first;
    const size_t *tag_at;           /* each item's place in a->item_tags */
    rt_verdict_ctx ctx;             /* the profile's */
    bool again;                     /* the items are made: their verdicts only, in a->mode */
    bool *unknown;                  /* per item: names_unknown */
    rt_warnings w[RT_PARALLEL_MAX]; /* each worker's verdict warnings, in item order */
} items_job;

static void items_part(void *arg, size_t begin, size_t end, size_t worker)
{
    items_job *j = arg;
    rt_analysis *a = j->a;
    size_t levels = rt_verdict_levels(a->machine);
    char *what = NULL;
    size_t what_cap = 0;
    for (size_t k = begin; k < end; k++) {
        size_t i = j->first + k;
        rt_item *it = &a->items[i];
        it->profile = j->p;
        it->kernel = &j->p->kernels[k];
        it->profile_index = j->profile_index;
        if (j->again) { /* tags and config as they are */
            rt_verdict_release(&it->v);
        } else if (a->base) { /* its config too: the grouping is base's */
            it->tags = a->base->items[i].tags;
            it->config = a->base->items[i].config;
        } else
            merge_tags(&it->tags, a->item_tags + j->tag_at[i], &j->p->tags, &it->kernel->tags);
        it->ctx = j->ctx;
        rt_overhead_path_resolve(a->machine, it->kernel, &it->ctx);
        j->unknown[i] = names_unknown(a, it->kernel);
        rt_verdict_compute_at(a->machine, &it->ctx, it->kernel,
                              rt_analysis_what(&what, &what_cap, "kernel", it->kernel->name),
                              a->item_levels + i * levels, &it->v, &j->w[worker]);
    }
    free(what);
}

void rt_analysis_build_items(rt_analysis *a, rt_profile *const *profiles, size_t n_profiles,
                             bool again)
{
    size_t total = 0, n_tags = 0, levels = rt_verdict_levels(a->machine);
    for (size_t p = 0; p < n_profiles; p++)
        total += profiles[p]->n_kernels;
    if (!again)
        a->items = rt_xcalloc(total ? total : 1, sizeof *a->items);
    size_t *tag_at = NULL;
    if (!a->base && !again) { /* an analysis like base has base's items' tags */
        tag_at = rt_xmalloc((total ? total : 1) * sizeof *tag_at);
        for (size_t p = 0, i = 0; p < n_profiles; p++)
            for (size_t k = 0; k < profiles[p]->n_kernels; k++, i++) {
                tag_at[i] = n_tags;
                n_tags += profiles[p]->tags.n + profiles[p]->kernels[k].tags.n;
            }
        a->item_tags = rt_xmalloc((n_tags ? n_tags : 1) * sizeof *a->item_tags);
    }
    if (!again)
        a->item_levels = rt_xmalloc((total ? total : 1) * levels * sizeof *a->item_levels);
    bool *unknown = rt_xcalloc(total ? total : 1, sizeof *unknown);
    rt_tags missing_oh = {0};
    /* Profile by profile, so that a profile's warning on its overhead comes before its kernels'
     * (as one loop over them would give); a profile's kernels in parts on the workers, whose
     * warnings follow in worker order, which is item order. */
    items_job *j = rt_xcalloc(1, sizeof *j);
    for (size_t p = 0; p < n_profiles; p++) {
        *j = (items_job){.a = a,
                         .p = profiles[p],
                         .profile_index = p,
                         .first = a->n_items,
                         .tag_at = tag_at,
                         .again = again,
                         .unknown = unknown};
        j->ctx = profile_ctx(a, profiles[p], &missing_oh);
        rt_parallel_for(profiles[p]->n_kernels, 4096, items_part, j);
        for (size_t w = 0; w < RT_PARALLEL_MAX; w++)
            rt_warnings_move(&a->warnings, &j->w[w]);
        a->n_items += profiles[p]->n_kernels;
    }
    free(j);
    free(tag_at);
    /* The sums in item order, as one loop would add them (the same totals to the last bit). */
    unknowns u = {0};
    double n_tau = 0;
    for (size_t i = 0; i < a->n_items; i++) {
        const rt_item *it = &a->items[i];
        if (unknown[i])
            note_kernel(a, it->kernel, &u);
        double t = it->kernel->time;
        if (it->v.bound == RT_BOUND_UNKNOWN)
            a->time_unknown += t;
        else if (it->v.evidence == RT_EVIDENCE_PARTIAL) {
            a->time_partial += t;
            a->time_lower += it->v.lower_bound ? t : 0;
        } else
            a->time_real += t;
        n_tau += it->kernel->invocations * it->ctx.tau;
        a->total_time += it->kernel->time;
        a->total_W += it->v.W;
        a->total_n += it->kernel->invocations;
    }
    free(unknown);
    warn_unknowns(a, &u);
    rt_overhead_path_note(a);
    rt_tags_release(&missing_oh);
    a->tau_mean = a->total_n > 0 ? n_tau / a->total_n : a->machine->tau;
}
