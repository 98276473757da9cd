/* A whole analysis: kernels of one or more profiles, grouped into configs and families, with
 * verdicts. */
#ifndef ROOFTIME_CORE_ANALYSIS_H
#define ROOFTIME_CORE_ANALYSIS_H

#include <stdio.h>

#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

/* How kernels group into configs and configs into families. */
typedef struct rt_group_opts {
    /* Tags whose values make a config; NULL/0: every tag a kernel carries (profile tags included).
     */
    const char *const *keys;
    size_t n_keys;
    /* Tags that never make or split a family (derived shapes that co-vary with a parameter). */
    const char *const *ignore;
    size_t n_ignore;
    /* Only these tags may be a family's parameter; NULL/0: any tag. */
    const char *const *params;
    size_t n_params;
} rt_group_opts;

/* One kernel of one profile, with its tags merged with the profile's. */
typedef struct rt_item {
    const rt_profile *profile;
    const rt_kernel *kernel;
    size_t profile_index;
    rt_tags tags; /* profile tags, then kernel tags: the profiles' strings, read-only */
    size_t config;
    rt_verdict_ctx ctx; /* the profile's time kind and tau, and what the kernel's calls pay */
    rt_verdict v;
} rt_item;

typedef struct rt_config {
    char *label;   /* "framework=pt pass=fw batch=16", or the profile name when untagged; in the
                    * analysis's arena, read-only */
    rt_tags tags;  /* the grouping tags and their values (the profiles' strings, read-only) */
    rt_kernel sum; /* invocations, time, FLOPs and bytes over the members; read-only, its name
                    * is the label and its value names the profiles' strings */
    size_t *items; /* member item indices, ascending: a slice of the analysis's members */
    size_t n_items;
    rt_verdict v;
} rt_config;

/* Configs that differ only in one parameter, ordered by it. */
typedef struct rt_family {
    char *param; /* the varying tag */
    char *label; /* the fixed tags */
    size_t *configs;
    size_t n;
} rt_family;

typedef struct rt_analysis {
    const rt_machine *machine; /* not owned */
    rt_mode mode;
    rt_item *items;
    size_t n_items;
    rt_config *configs;
    size_t n_configs;
    size_t *members; /* every item index once, grouped by config; configs[c].items point here */
    rt_family *families;
    size_t n_families;
    double total_time, total_W, total_n;
    double overhead_ceiling; /* W_total / (n_total tau) */
    /* Kernel time by what its verdict rests on: FLOPs and bytes (a real verdict), FLOPs alone
     * (partial: a compute bound only), no counts (unknown). */
    double time_real, time_partial, time_unknown;
    double time_lower; /* of time_partial: counts that are lower bounds (counts=lower_bound) */
    double tau_mean;   /* sum of n tau over the kernels / sum of n: the tau the profiles pay */
    /* Whether a kernel names the overhead its own calls pay (rt_kernel.overhead): the tables then
     * say, per row, which overhead the floor under its time is (core/overhead-path.h). */
    bool own_paths;
    rt_warnings warnings;
    /* Items and configs by time, sorted once (rt_analysis_items_by_time and
     * rt_analysis_configs_by_time hand out copies); owned. */
    size_t *items_by_time, *configs_by_time;
    /* The blocks the items' merged tags and the items' and configs' verdicts' per-level arrays lie
     * in, one each instead of one per item (a million kernels, millions of allocations); owned. */
    rt_tag *item_tags;
    double *item_levels, *config_levels;
    /* Where the configs' labels and their sums' values lie, the pieces of a million configs in a
     * few blocks; owned (with the grouping: see base). */
    struct rt_arena *arena;
    /* The analysis of the same profiles in another mode whose grouping this one shares
     * (rt_analysis_new_like): its configs' labels, tags and sums, members, families, orders and
     * the items' tags are base's. NULL: all of it is this one's. */
    struct rt_analysis *base;
    /* How many analyses share this one's grouping, and whether rt_analysis_free was called on it
     * while some did: it is freed with the last of them. */
    size_t n_sharing;
    bool freed;
} rt_analysis;

/* Analyze profiles on m; the profiles and m must outlive the analysis. NULL opts: defaults. */
rt_analysis *rt_analysis_new(const rt_machine *m, rt_mode mode, rt_profile *const *profiles,
                             size_t n_profiles, const rt_group_opts *opts, rt_error *err);
/* The profiles base analyzed (the same, in order), analyzed in another mode with base's grouping:
 * configs and families depend on the tags alone, so only the verdicts (and their warnings and
 * totals) are computed again, and everything else is shared with base (see rt_analysis.base),
 * which must outlive the result. The same analysis as rt_analysis_new(..., mode, ...) with
 * base's options, at the cost of its verdicts. The two are freed in any order (base's memory
 * goes with the last of them), from one thread at a time. */
rt_analysis *rt_analysis_new_like(rt_analysis *base, rt_mode mode, rt_profile *const *profiles,
                                  size_t n_profiles, rt_error *err);
/* rt_analysis_new in each of n modes (out[i] in modes[i]): the first made whole, the others like
 * it (rt_analysis_new_like), so the report's hier analysis beside its single one costs its
 * verdicts only (freed in any order). 0, or -1 with
 * every out[i] NULL and the first failure's message. */
int rt_analysis_new_modes(const rt_machine *m, const rt_mode *modes, size_t n_modes,
                          rt_profile *const *profiles, size_t n_profiles, const rt_group_opts *opts,
                          rt_analysis **out, rt_error *err);
/* a, of these profiles (the same, in order), in another mode, in place: its items' and configs'
 * verdicts, their warnings and totals computed again, its grouping as it is. The same analysis as
 * rt_analysis_new(..., mode, ...) with a's options, at the cost of its verdicts and in the memory
 * a holds: the report draws its hier charts so, with no second analysis beside the first. Not
 * while another thread reads a. 0, or -1 when a is not of these profiles (a unchanged). */
int rt_analysis_set_mode(rt_analysis *a, rt_mode mode, rt_profile *const *profiles,
                         size_t n_profiles, rt_error *err);
void rt_analysis_free(rt_analysis *a);

/* The launch overhead profile p pays on m: its named overhead when m has it, else the one the
 * run measured itself (notes.overhead_seconds, import torch of a GPU trace), else m's tau (*name
 * gets the overhead's name, or NULL for m's tau). */
double rt_analysis_profile_tau(const rt_machine *m, const rt_profile *p, const char **name);

/* Indices of items (or configs) sorted by time, longest first; caller frees. */
size_t *rt_analysis_items_by_time(const rt_analysis *a);
size_t *rt_analysis_configs_by_time(const rt_analysis *a);

#endif
