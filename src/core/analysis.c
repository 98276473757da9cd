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
#include "analysis-items.h"
#include "analysis-tagset.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/byte-placement.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/overhead-path.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/arena.h"
#include "rooftime/util/error.h"
#include "rooftime/util/format.h"
#include "rooftime/util/parallel.h"
#include "rooftime/util/prefetch.h"
#include "rooftime/util/strings.h"

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
    const size_t *first;  /* each config's first item */
    const rt_tags *ctags; /* each config's grouping tags */
} config_probe;

static bool config_same(const void *ctx, size_t c)
{
    const config_probe *p = ctx;
    /* Untagged kernels of different profiles stay apart. */
    return rt_tagset_same(p->g, &p->ctags[c], NULL, NULL) &&
           (p->g->n || p->a->items[p->first[c]].profile_index == p->profile_index);
}

/* The items' tag-set hashes, [begin, end) of them, on a worker of rt_parallel_for. */
typedef struct hash_job {
    const rt_analysis *a;
    const rt_group_opts *o;
    uint64_t *hs;
} hash_job;

static void hash_part(void *arg, size_t begin, size_t end, size_t worker)
{
    (void)worker;
    const hash_job *j = arg;
    for (size_t i = begin; i < end; i++) {
        const rt_item *it = &j->a->items[i];
        j->hs[i] = it->tags.n ? rt_tagset_hash(&it->tags, NULL, j->o) : (uint64_t)it->profile_index;
    }
}

/* What the grouping found, for config_part: each config's tags, count of members and where its
 * members start in a->members (NULL where the configs are made: in an analysis like another, its
 * configs are copies; in one whose mode changes, its own). */
typedef struct config_job {
    rt_analysis *a;
    const rt_tags *ctags;
    const size_t *count, *start;
    rt_arena *arena[RT_PARALLEL_MAX]; /* each worker's, for the labels and sums it makes */
} config_job;

/* The n values of sum in arena (borrowed: cap 0), or none. */
static rt_values values_in(rt_arena *arena, const rt_values *sum)
{
    rt_values out = {0};
    if (sum->n) {
        out.v = rt_arena_alloc(arena, sum->n * sizeof *out.v);
        memcpy(out.v, sum->v, sum->n * sizeof *out.v);
        out.n = sum->n;
    }
    return out;
}

/* Config c made from what the grouping found: tags, members, their sums in member order (which
 * is item order: the same sums as adding each item's figures as it is grouped) and its label; the
 * sums are made in flops and bytes (emptied), then copied with the label into the worker's arena,
 * a million configs' pieces in a few blocks. */
static void config_fill(config_job *j, size_t c, size_t worker, rt_values *flops, rt_values *bytes)
{
    rt_analysis *a = j->a;
    rt_config *cf = &a->configs[c];
    cf->tags = j->ctags[c];
    cf->items = a->members + j->start[c];
    cf->n_items = j->count[c];
    flops->n = bytes->n = 0;
    for (size_t i = 0; i < cf->n_items; i++) {
        const rt_kernel *k = a->items[cf->items[i]].kernel;
        cf->sum.invocations += k->invocations;
        cf->sum.time += k->time;
        values_sum(flops, &k->flops);
        values_sum(bytes, &k->bytes);
    }
    if (!j->arena[worker])
        j->arena[worker] = rt_arena_new();
    cf->sum.flops = values_in(j->arena[worker], flops);
    cf->sum.bytes = values_in(j->arena[worker], bytes);
    const rt_item *first = &a->items[cf->items[0]];
    char *label = cf->tags.n ? rt_tags_text(&cf->tags, NULL)
                             : rt_asprintf("profile %zu%s%s", first->profile_index + 1,
                                           first->profile->tool ? " " : "",
                                           first->profile->tool ? first->profile->tool : "");
    cf->label = (char *)rt_arena_string(j->arena[worker], label, strlen(label));
    free(label);
    cf->sum.name = cf->label;
}

/* Configs [begin, end), on a worker of rt_parallel_for: each one made (config_fill, where they
 * are not made yet) and its verdict (the tau its members pay, weighted by their launches). */
static void config_part(void *arg, size_t begin, size_t end, size_t worker)
{
    config_job *j = arg;
    rt_values flops = {0}, bytes = {0}; /* a config's sums as they are made */
    rt_analysis *a = j->a;
    char *what = NULL;
    size_t what_cap = 0;
    size_t levels = rt_verdict_levels(a->machine);
    for (size_t c = begin; c < end; c++) {
        rt_config *cf = &a->configs[c];
        if (j->ctags)
            config_fill(j, c, worker, &flops, &bytes);
        else
            rt_verdict_release(&cf->v); /* a copy's, or the one of the mode it had */
        /* Device time only when every member's is; tau weighted by the members' launches. */
        rt_verdict_ctx ctx = {.mode = a->mode, .time = RT_TIME_DEVICE};
        double n = 0, n_tau = 0, n_paid = 0;
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
            rt_overhead_path_merge(&ctx, &it->ctx, it->kernel->invocations, i == 0, &n_paid);
        }
        ctx.tau = n > 0 ? n_tau / n : a->machine->tau;
        ctx.tau_name = name;
        /* what the members pay on their paths, weighted the same way (n tau where none names
         * its own) */
        ctx.paid = n > 0 ? n_paid / n : 0;
        if (!a->own_paths)
            ctx.paid_path = RT_PAID_TAU;
        /* Per-kernel warnings already name the causes; config warnings would repeat them. */
        /* The config's tags reach the model for the time of the call (class=communication). */
        cf->sum.tags = cf->tags;
        /* Members whose estimated bytes were placed: the config sums them where they were. */
        rt_kernel sum = cf->sum;
        rt_values placed = {0};
        if (rt_placement_config_bytes(a, cf, &placed))
            sum.bytes = placed;
        rt_verdict_compute_at(a->machine, &ctx, &sum,
                              rt_analysis_what(&what, &what_cap, "config", cf->label),
                              a->config_levels + c * levels, &cf->v, NULL);
        rt_values_release(&placed);
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
            char label[RT_BOUND_LABEL_MAX];
            snprintf(label, sizeof label, "%s (partial)", cf->v.bound_label);
            cf->v.bound_label = rt_intern(label);
        }
    }
    free(what);
    free(flops.v); /* the names are the kernels' */
    free(bytes.v);
}

/* Configs are found through a hash of their tag sets; members go into one array. The grouping
 * runs in item order and touches only its small arrays; the configs themselves are made on the
 * workers (config_part). */
static void build_configs(rt_analysis *a, const rt_group_opts *o)
{
    size_t n = a->n_items ? a->n_items : 1;
    rt_tagset_table tt;
    rt_tagset_table_init(&tt, n);
    size_t *first = rt_xcalloc(n, sizeof *first), *count = rt_xcalloc(n, sizeof *count);
    rt_tags *ctags = rt_xmalloc(n * sizeof *ctags);
    /* Grouped by all their tags (no keys asked for), the items' hashes are taken first, in the
     * items' order, so that each lookup can fetch the table's slot of the item AHEAD places on:
     * a million lookups wait on memory together, not one after another. */
    uint64_t *hs = NULL;
    if (!(o && o->n_keys)) {
        hs = rt_xmalloc(n * sizeof *hs);
        hash_job hj = {a, o, hs};
        rt_parallel_for(a->n_items, 4096, hash_part, &hj);
    }
    for (size_t i = 0; i < a->n_items; i++) {
        if (hs && i + 16 < a->n_items)
            RT_PREFETCH(&tt.slot[hs[i + 16] & tt.mask]);
        rt_item *it = &a->items[i];
        rt_tags g;
        group_tags(it, o, &g);
        uint64_t h = hs ? hs[i] : g.n ? rt_tagset_hash(&g, NULL, o) : (uint64_t)it->profile_index;
        config_probe probe = {a, &g, it->profile_index, first, ctags};
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
            ctags[c] = g;
        }
        count[c]++;
        it->config = c;
    }
    free(hs);
    rt_tagset_table_release(&tt);
    size_t nc = a->n_configs ? a->n_configs : 1, levels = rt_verdict_levels(a->machine);
    a->configs = rt_xcalloc(nc, sizeof *a->configs);
    a->config_levels = rt_xmalloc(nc * levels * sizeof *a->config_levels);
    /* Each item is held once: the configs' member lists are slices of one array, in item order
     * (first, no longer needed, counts the members placed). */
    size_t *start = rt_xmalloc(nc * sizeof *start);
    for (size_t c = 0, off = 0; c < a->n_configs; c++) {
        start[c] = off;
        off += count[c];
        first[c] = 0;
    }
    a->members = rt_xcalloc(n, sizeof *a->members);
    for (size_t i = 0; i < a->n_items; i++) {
        size_t c = a->items[i].config;
        a->members[start[c] + first[c]++] = i;
    }
    free(first);
    config_job cj = {a, ctags, count, start, {NULL}};
    rt_parallel_for(a->n_configs, 4096, config_part, &cj);
    a->arena = rt_arena_new();
    for (size_t w = 0; w < RT_PARALLEL_MAX; w++)
        if (cj.arena[w]) {
            rt_arena_adopt(a->arena, cj.arena[w]);
            rt_arena_free(cj.arena[w]);
        }
    free(ctags);
    free(count);
    free(start);
}

/* The last steps of an analysis, two tasks for rt_parallel_for: 0 the families, 1 the items
 * and configs in order of time. */
typedef struct finish_job {
    rt_analysis *a;
    const rt_group_opts *opts;
} finish_job;

static void finish_part(void *arg, size_t begin, size_t end, size_t worker)
{
    (void)worker;
    finish_job *j = arg;
    for (size_t task = begin; task < end; task++) {
        if (task == 0) {
            rt_analysis_build_families(j->a, j->opts);
        } else {
            j->a->items_by_time = rt_analysis_items_by_time(j->a);
            j->a->configs_by_time = rt_analysis_configs_by_time(j->a);
        }
    }
}

rt_analysis *rt_analysis_new(const rt_machine *m, rt_mode mode, rt_profile *const *profiles,
                             size_t n_profiles, const rt_group_opts *opts, rt_error *err)
{
    if (rt_machine_check(m, err) != 0)
        return NULL;
    rt_analysis *a = rt_xcalloc(1, sizeof *a);
    a->machine = m;
    a->mode = mode;
    rt_analysis_build_items(a, profiles, n_profiles, false);
    build_configs(a, opts);
    a->overhead_ceiling = rt_overhead_ceiling(a->total_W, a->total_n, a->tau_mean);
    /* The families, and the orders the tables and every chart walk (sorted once), side by side:
     * neither reads what the other writes. */
    finish_job fj = {a, opts};
    rt_parallel_for(2, 1, finish_part, &fj);
    return a;
}

/* The configs' labels, tags and sums, the members, families, orders and items' tags. */
static void release_grouping(rt_analysis *a)
{
    for (size_t c = 0; c < a->n_configs; c++) {
        rt_config *cf = &a->configs[c];
        /* By default a config's tags are its first member's (see group_tags). */
        if (!(cf->n_items && cf->tags.v == a->items[cf->items[0]].tags.v))
            free(cf->tags.v);
    }
    rt_arena_free(a->arena); /* the labels and sums */
    for (size_t f = 0; f < a->n_families; f++) {
        free(a->families[f].param);
        free(a->families[f].label);
        free(a->families[f].configs);
    }
    free(a->members);
    free(a->families);
    free(a->items_by_time);
    free(a->configs_by_time);
    free(a->item_tags);
}

rt_analysis *rt_analysis_new_like(rt_analysis *base, rt_mode mode, rt_profile *const *profiles,
                                  size_t n_profiles, rt_error *err)
{
    if (rt_machine_check(base->machine, err) != 0)
        return NULL;
    rt_analysis *a = rt_xcalloc(1, sizeof *a);
    a->machine = base->machine;
    a->mode = mode;
    a->base = base;
    base->n_sharing++;
    rt_analysis_build_items(a, profiles, n_profiles, false);
    /* base's configs with their verdicts to come: labels, tags, sums and members stay base's */
    a->n_configs = base->n_configs;
    a->configs = rt_xmalloc((a->n_configs ? a->n_configs : 1) * sizeof *a->configs);
    if (a->n_configs)
        memcpy(a->configs, base->configs, a->n_configs * sizeof *a->configs);
    a->members = base->members;
    a->config_levels = rt_xmalloc((a->n_configs ? a->n_configs : 1) *
                                  rt_verdict_levels(a->machine) * sizeof *a->config_levels);
    config_job cj = {.a = a};
    rt_parallel_for(a->n_configs, 4096, config_part, &cj);
    a->overhead_ceiling = rt_overhead_ceiling(a->total_W, a->total_n, a->tau_mean);
    a->families = base->families;
    a->n_families = base->n_families;
    a->items_by_time = base->items_by_time;
    a->configs_by_time = base->configs_by_time;
    return a;
}

int rt_analysis_set_mode(rt_analysis *a, rt_mode mode, rt_profile *const *profiles,
                         size_t n_profiles, rt_error *err)
{
    size_t i = 0;
    for (size_t p = 0; p < n_profiles; p++)
        for (size_t k = 0; k < profiles[p]->n_kernels; k++, i++)
            if (i >= a->n_items || a->items[i].kernel != &profiles[p]->kernels[k]) {
                rt_error_set(err, "the analysis is not one of these profiles");
                return -1;
            }
    if (i != a->n_items) {
        rt_error_set(err, "the analysis is not one of these profiles");
        return -1;
    }
    if (mode == a->mode)
        return 0;
    /* What the items' and configs' verdicts make: computed again from nothing, in item order. */
    a->mode = mode;
    rt_warnings_release(&a->warnings);
    a->n_items = 0;
    a->total_time = a->total_W = a->total_n = 0;
    a->time_real = a->time_partial = a->time_unknown = a->time_lower = 0;
    a->own_paths = false;
    rt_analysis_build_items(a, profiles, n_profiles, true);
    config_job cj = {.a = a};
    rt_parallel_for(a->n_configs, 4096, config_part, &cj);
    a->overhead_ceiling = rt_overhead_ceiling(a->total_W, a->total_n, a->tau_mean);
    return 0;
}

void rt_analysis_free(rt_analysis *a)
{
    if (!a)
        return;
    if (a->n_sharing) { /* analyses like it still read its grouping: the last of them frees it */
        a->freed = true;
        return;
    }
    rt_analysis *base = a->base;
    /* Tags and value names point into the profiles: only the arrays are the analysis's. */
    for (size_t i = 0; i < a->n_items; i++)
        rt_verdict_release(&a->items[i].v);
    for (size_t c = 0; c < a->n_configs; c++)
        rt_verdict_release(&a->configs[c].v);
    if (!a->base) /* what an analysis like this one shares is this one's */
        release_grouping(a);
    free(a->items);
    free(a->configs);
    rt_warnings_release(&a->warnings);
    free(a->item_levels);
    free(a->config_levels);
    free(a);
    if (base && --base->n_sharing == 0 && base->freed)
        rt_analysis_free(base);
}
