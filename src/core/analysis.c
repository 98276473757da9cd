/* An analysis: kernels of several profiles with verdicts, grouped into configs and families. */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "analysis-families.h"
#include "analysis-tagset.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"
#include "rooftime/util/format.h"
#include "rooftime/util/prefetch.h"
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
    return o ? o->seconds.median : m->tau;
}

/* Each profile's time kind and tau; a named overhead the machine lacks is warned once. */
static rt_verdict_ctx profile_ctx(rt_analysis *a, const rt_profile *p, rt_tags *missing)
{
    rt_verdict_ctx ctx = {.mode = a->mode, .time = p->time_kind};
    ctx.tau = rt_analysis_profile_tau(a->machine, p, &ctx.tau_name);
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

/* "KIND 'NAME'" in a buffer reused from call to call (what a verdict's warnings call the kernel
 * or config): a million kernels, a million formatted strings fewer. */
static const char *what_text(char **buf, size_t *cap, const char *kind, const char *name)
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

static void build_items(rt_analysis *a, rt_profile *const *profiles, size_t n_profiles)
{
    char *what = NULL;
    size_t what_cap = 0;
    rt_values bad_units = {0}, bad_levels = {0}, standin_units = {0}, no_ceiling = {0};
    rt_tags first_unit = {0}, first_level = {0}, missing_oh = {0}, first_standin = {0},
            first_no_ceiling = {0};
    double n_tau = 0;
    size_t total = 0;
    for (size_t p = 0; p < n_profiles; p++)
        total += profiles[p]->n_kernels;
    a->items = rt_xcalloc(total ? total : 1, sizeof *a->items);
    size_t n_tags = 0, levels = rt_verdict_levels(a->machine);
    for (size_t p = 0; p < n_profiles; p++)
        for (size_t k = 0; k < profiles[p]->n_kernels; k++)
            n_tags += profiles[p]->tags.n + profiles[p]->kernels[k].tags.n;
    a->item_tags = rt_xmalloc((n_tags ? n_tags : 1) * sizeof *a->item_tags);
    a->item_levels = rt_xmalloc((total ? total : 1) * levels * sizeof *a->item_levels);
    rt_tag *store = a->item_tags;
    for (size_t p = 0; p < n_profiles; p++) {
        rt_verdict_ctx ctx = profile_ctx(a, profiles[p], &missing_oh);
        for (size_t k = 0; k < profiles[p]->n_kernels; k++) {
            rt_item *it = &a->items[a->n_items++];
            it->profile = profiles[p];
            it->kernel = &profiles[p]->kernels[k];
            it->profile_index = p;
            merge_tags(&it->tags, store, &profiles[p]->tags, &it->kernel->tags);
            store += it->tags.cap;
            for (size_t i = 0; i < it->kernel->flops.n; i++) {
                const rt_value *f = &it->kernel->flops.v[i];
                rt_unit_match how;
                if (!(f->value > 0))
                    continue;
                rt_machine_resolve_unit(a->machine, f->key, &how);
                if (how == RT_UNIT_ABSENT)
                    note_unknown(&bad_units, &first_unit, f->key, it->kernel->name);
                else if (how == RT_UNIT_STANDIN && a->mode == RT_MODE_HIER)
                    note_unknown(&standin_units, &first_standin, f->key, it->kernel->name);
                else if (how == RT_UNIT_NO_CEILING && a->mode == RT_MODE_HIER)
                    note_unknown(&no_ceiling, &first_no_ceiling, f->key, it->kernel->name);
            }
            for (size_t i = 0; i < it->kernel->bytes.n; i++)
                if (!level_known(a->machine, it->kernel->bytes.v[i].key))
                    note_unknown(&bad_levels, &first_level, it->kernel->bytes.v[i].key,
                                 it->kernel->name);
            it->ctx = ctx;
            rt_verdict_compute_at(a->machine, &ctx, it->kernel,
                                  what_text(&what, &what_cap, "kernel", it->kernel->name),
                                  a->item_levels + (a->n_items - 1) * levels, &it->v, &a->warnings);
            double t = it->kernel->time;
            if (it->v.bound == RT_BOUND_UNKNOWN)
                a->time_unknown += t;
            else if (it->v.evidence == RT_EVIDENCE_PARTIAL)
                a->time_partial += t;
            else
                a->time_real += t;
            n_tau += it->kernel->invocations * ctx.tau;
            a->total_time += it->kernel->time;
            a->total_W += it->v.W;
            a->total_n += it->kernel->invocations;
        }
    }
    free(what);
    char *cons = rt_asprintf("its FLOPs count at the reference peak (%s) in hier mode",
                             a->machine->ref_unit);
    warn_unknown(a, &bad_units, &first_unit, "compute unit", cons);
    free(cons);
    warn_unknown(a, &bad_levels, &first_level, "memory level", "its bytes are ignored");
    for (size_t i = 0; i < standin_units.n; i++) {
        const char *unit = standin_units.v[i].key;
        int u = rt_machine_resolve_unit(a->machine, unit, NULL);
        char *cons =
            rt_asprintf("its FLOPs are judged against the machine's '%s' ceiling (%s)",
                        a->machine->units[u].name,
                        strcasecmp(unit, "tensor_bf16") == 0
                            ? "dense BF16 and FP16 Tensor Core rates are the same since Ampere"
                            : "'tensor' is the dense FP16 Tensor Core ceiling of presets and older "
                              "measurements");
        rt_values one = {0};
        rt_values_add(&one, unit, standin_units.v[i].value);
        warn_unknown(a, &one, &first_standin, "compute unit", cons);
        rt_values_release(&one);
        free(cons);
    }
    warn_unknown(a, &no_ceiling, &first_no_ceiling, "Tensor Core unit",
                 "no ceiling of that precision and no stand-in, so their hier verdict is unknown "
                 "(measure the machine's Tensor Cores, or --mode single)");
    rt_values_release(&standin_units);
    rt_values_release(&no_ceiling);
    rt_tags_release(&first_standin);
    rt_tags_release(&first_no_ceiling);
    rt_values_release(&bad_units);
    rt_values_release(&bad_levels);
    rt_tags_release(&first_unit);
    rt_tags_release(&first_level);
    rt_tags_release(&missing_oh);
    a->tau_mean = a->total_n > 0 ? n_tau / a->total_n : a->machine->tau;
}

/* The grouping tags of an item: the keys asked for (a new array), or all its tags (its own array,
 * shared). The strings are the profiles'. */
static void group_tags(const rt_item *it, const rt_group_opts *o, rt_tags *g)
{
    if (!(o && o->n_keys)) {
        *g = it->tags;
        return;
    }
    g->cap = o->n_keys;
    g->v = rt_xmalloc(g->cap * sizeof *g->v);
    g->n = 0;
    for (size_t k = 0; k < o->n_keys; k++)
        for (size_t i = 0; i < it->tags.n; i++)
            if (strcmp(it->tags.v[i].key, o->keys[k]) == 0) {
                size_t d = 0;
                while (d < g->n && strcmp(g->v[d].key, o->keys[k]) != 0)
                    d++;
                if (d == g->n)
                    g->v[g->n++] = it->tags.v[i];
                break;
            }
}

/* Add a kernel's figures into a config's sum; the value names are the kernel's strings. */
static void values_sum(rt_values *dst, const rt_values *src)
{
    for (size_t i = 0; i < src->n; i++) {
        size_t j = 0;
        while (j < dst->n && !rt_str_eq(dst->v[j].key, src->v[i].key))
            j++;
        if (j == dst->n) {
            if (dst->n == dst->cap) {
                dst->cap = dst->cap ? 2 * dst->cap : src->n;
                dst->v = rt_xrealloc(dst->v, dst->cap * sizeof *dst->v);
            }
            dst->v[dst->n++] = (rt_value){.key = src->v[i].key, .value = 0};
        }
        dst->v[j].value += src->v[i].value;
    }
}

typedef struct config_probe {
    const rt_analysis *a;
    const rt_tags *g;
    size_t profile_index;
    const size_t *first; /* each config's first item */
} config_probe;

static bool config_same(const void *ctx, size_t c)
{
    const config_probe *p = ctx;
    /* Untagged kernels of different profiles stay apart. */
    return rt_tagset_same(p->g, &p->a->configs[c].tags, NULL, NULL) &&
           (p->g->n || p->a->items[p->first[c]].profile_index == p->profile_index);
}

/* Configs are found through a hash of their tag sets; members go into one array. */
static void build_configs(rt_analysis *a, const rt_group_opts *o)
{
    char *what = NULL;
    size_t what_cap = 0;
    size_t n = a->n_items ? a->n_items : 1;
    rt_tagset_table tt;
    rt_tagset_table_init(&tt, n);
    size_t *first = rt_xcalloc(n, sizeof *first);
    a->configs = rt_xcalloc(n, sizeof *a->configs);
    /* Grouped by all their tags (no keys asked for), the items' hashes are taken first, in the
     * items' order, so that each lookup can fetch the table's slot of the item AHEAD places on:
     * a million lookups wait on memory together, not one after another. */
    uint64_t *hs = NULL;
    if (!(o && o->n_keys)) {
        hs = rt_xmalloc(n * sizeof *hs);
        for (size_t i = 0; i < a->n_items; i++) {
            const rt_item *it = &a->items[i];
            hs[i] = it->tags.n ? rt_tagset_hash(&it->tags, NULL, o) : (uint64_t)it->profile_index;
        }
    }
    for (size_t i = 0; i < a->n_items; i++) {
        if (hs && i + 16 < a->n_items)
            RT_PREFETCH(&tt.slot[hs[i + 16] & tt.mask]);
        rt_item *it = &a->items[i];
        rt_tags g;
        group_tags(it, o, &g);
        uint64_t h = hs ? hs[i] : g.n ? rt_tagset_hash(&g, NULL, o) : (uint64_t)it->profile_index;
        config_probe probe = {a, &g, it->profile_index, first};
        size_t j = rt_tagset_table_find(&tt, h, config_same, &probe), c;
        if (tt.slot[j]) {
            c = tt.slot[j] - 1;
            if (g.v != it->tags.v)
                free(g.v);
        } else {
            c = a->n_configs++;
            tt.slot[j] = c + 1;
            tt.hash[c] = h;
            first[c] = i;
            rt_config *cf = &a->configs[c];
            cf->label = g.n ? rt_tags_text(&g, NULL)
                            : rt_asprintf("profile %zu%s%s", it->profile_index + 1,
                                          it->profile->tool ? " " : "",
                                          it->profile->tool ? it->profile->tool : "");
            cf->tags = g;
            cf->sum.name = cf->label;
        }
        rt_config *cf = &a->configs[c];
        cf->n_items++;
        cf->sum.invocations += it->kernel->invocations;
        cf->sum.time += it->kernel->time;
        values_sum(&cf->sum.flops, &it->kernel->flops);
        values_sum(&cf->sum.bytes, &it->kernel->bytes);
        it->config = c;
    }
    free(first);
    free(hs);
    rt_tagset_table_release(&tt);
    a->configs = rt_xrealloc(a->configs, (a->n_configs ? a->n_configs : 1) * sizeof *a->configs);
    size_t levels = rt_verdict_levels(a->machine);
    a->config_levels =
        rt_xmalloc((a->n_configs ? a->n_configs : 1) * levels * sizeof *a->config_levels);
    /* Each item is held once: the configs' member lists are slices of one array. */
    a->members = rt_xcalloc(n, sizeof *a->members);
    size_t off = 0;
    for (size_t c = 0; c < a->n_configs; c++) {
        a->configs[c].items = a->members + off;
        off += a->configs[c].n_items;
        a->configs[c].n_items = 0;
    }
    for (size_t i = 0; i < a->n_items; i++) {
        rt_config *cf = &a->configs[a->items[i].config];
        cf->items[cf->n_items++] = i;
    }
    for (size_t c = 0; c < a->n_configs; c++) {
        rt_config *cf = &a->configs[c];
        /* Device time only when every member's is; tau weighted by the members' launches. */
        rt_verdict_ctx ctx = {.mode = a->mode, .time = RT_TIME_DEVICE};
        double n = 0, n_tau = 0;
        const char *name = NULL;
        for (size_t i = 0; i < cf->n_items; i++) {
            const rt_item *it = &a->items[cf->items[i]];
            if (it->ctx.time != RT_TIME_DEVICE)
                ctx.time = it->ctx.time == RT_TIME_WALL ? RT_TIME_WALL : RT_TIME_UNKNOWN;
            n += it->kernel->invocations;
            n_tau += it->kernel->invocations * it->ctx.tau;
            name = i == 0 || (name && it->ctx.tau_name && strcmp(name, it->ctx.tau_name) == 0)
                       ? it->ctx.tau_name
                       : NULL;
        }
        ctx.tau = n > 0 ? n_tau / n : a->machine->tau;
        ctx.tau_name = name;
        /* Per-kernel warnings already name the causes; config warnings would repeat them. */
        /* The config's tags reach the model for the time of the call (class=communication). */
        cf->sum.tags = cf->tags;
        rt_verdict_compute_at(a->machine, &ctx, &cf->sum,
                              what_text(&what, &what_cap, "config", cf->label),
                              a->config_levels + c * levels, &cf->v, NULL);
        cf->sum.tags = (rt_tags){0};
        /* A member whose counts bound nothing leaves the sum's bounds true but its class open. */
        bool open = false;
        double t_none = 0; /* members with no counts: no part of their time is known recoverable */
        for (size_t i = 0; i < cf->n_items; i++) {
            const rt_item *it = &a->items[cf->items[i]];
            open |= it->kernel->time > 0 && !rt_verdict_is_real(&it->v);
            if (it->v.evidence == RT_EVIDENCE_NONE)
                t_none += it->kernel->time;
        }
        if (t_none > 0 && isfinite(cf->v.recoverable))
            cf->v.recoverable = fmax(0, cf->v.recoverable - t_none);
        if (open && cf->v.evidence == RT_EVIDENCE_FULL) {
            cf->v.evidence = RT_EVIDENCE_PARTIAL;
            cf->v.overhead_bound = false;
            size_t len = strlen(cf->v.bound_label);
            snprintf(cf->v.bound_label + len, sizeof cf->v.bound_label - len, " (partial)");
        }
    }
    free(what);
}

rt_analysis *rt_analysis_new(const rt_machine *m, rt_mode mode, rt_profile *const *profiles,
                             size_t n_profiles, const rt_group_opts *opts, rt_error *err)
{
    if (rt_machine_check(m, err) != 0)
        return NULL;
    rt_analysis *a = rt_xcalloc(1, sizeof *a);
    a->machine = m;
    a->mode = mode;
    build_items(a, profiles, n_profiles);
    build_configs(a, opts);
    rt_analysis_build_families(a, opts);
    a->overhead_ceiling = rt_overhead_ceiling(a->total_W, a->total_n, a->tau_mean);
    /* The tables and every chart walk them in this order: sort once. */
    a->items_by_time = rt_analysis_items_by_time(a);
    a->configs_by_time = rt_analysis_configs_by_time(a);
    return a;
}

void rt_analysis_free(rt_analysis *a)
{
    if (!a)
        return;
    /* Tags and value names point into the profiles: only the arrays are the analysis's. */
    for (size_t i = 0; i < a->n_items; i++)
        rt_verdict_release(&a->items[i].v);
    for (size_t c = 0; c < a->n_configs; c++) {
        rt_config *cf = &a->configs[c];
        free(cf->label);
        /* By default a config's tags are its first member's (see group_tags). */
        if (!(cf->n_items && cf->tags.v == a->items[cf->items[0]].tags.v))
            free(cf->tags.v);
        free(cf->sum.flops.v);
        free(cf->sum.bytes.v);
        rt_verdict_release(&cf->v);
    }
    for (size_t f = 0; f < a->n_families; f++) {
        free(a->families[f].param);
        free(a->families[f].label);
        free(a->families[f].configs);
    }
    free(a->items);
    free(a->members);
    free(a->configs);
    free(a->families);
    rt_warnings_release(&a->warnings);
    free(a->items_by_time);
    free(a->configs_by_time);
    free(a->item_tags);
    free(a->item_levels);
    free(a->config_levels);
    free(a);
}
