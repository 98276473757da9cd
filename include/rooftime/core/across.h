/* Analysis across ranks (across.c): the profiles of many ranks of one job folded one at a time into
 * per-kernel and per-config distributions, in memory that grows with the distinct kernels and
 * configs, not with the ranks (docs/across-ranks.md states the memory model). */
#ifndef ROOFTIME_CORE_ACROSS_H
#define ROOFTIME_CORE_ACROSS_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/core/profile.h"
#include "rooftime/core/quantile-sketch.h"
#include "rooftime/core/tag-map.h"
#include "rooftime/core/value-map.h"
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"

typedef struct rt_across_opts {
    double straggler; /* a rank is a straggler when its time > (1 + straggler) x the median */
    size_t slowest;   /* slowest ranks kept per kernel and config (exactly) */
    double accuracy;  /* relative accuracy of the median and quartiles (the sketch's alpha) */
} rt_across_opts;

#define RT_ACROSS_DEFAULTS ((rt_across_opts){.straggler = 0.2, .slowest = 3, .accuracy = 0.005})

typedef struct rt_rank_time {
    long rank;
    double time;
} rt_rank_time;

/* One kernel (name and tags) or one config (tag set) over the ranks that ran it. */
typedef struct rt_across_entry {
    char *name;      /* the kernel's name, or the config's label */
    rt_tags tags;    /* the kernel's own tags, or the config's */
    size_t config;   /* kernels: their config */
    size_t n_ranks;  /* ranks that ran it */
    double sum;      /* time over those ranks, seconds */
    double min, max; /* exact */
    long min_rank, max_rank;
    rt_sketch times;    /* per-rank times */
    rt_rank_time *slow; /* the slowest ranks, slowest first (at most opts.slowest) */
    size_t n_slow;
    double invocations;     /* over ranks */
    rt_values flops, bytes; /* over ranks */
    /* Set by rt_across_finish: */
    double median, q1, q3; /* within opts.accuracy */
    size_t n_above;        /* ranks above the straggler threshold (to within opts.accuracy) */
    /* While a profile is folded: */
    size_t last_profile;
    double pending;
} rt_across_entry;

/* A rank whose time on a kernel or config (or in all) is above the straggler threshold. */
typedef struct rt_straggler {
    int kind;     /* 0 kernel, 1 config, 2 the rank's whole time */
    size_t entry; /* index in kernels or configs (kind 0, 1) */
    long rank;
    double time, median;
} rt_straggler;

typedef struct rt_across {
    rt_across_opts opts;
    rt_across_entry *kernels, *configs;
    size_t n_kernels, n_configs, cap_kernels, cap_configs;
    rt_name_index kernel_ix, config_ix;
    size_t *touched; /* entries of the profile being folded: kernel i as i, config c as ~c */
    size_t n_touched, cap_touched;
    double *rank_total; /* seconds per rank, indexed by rank (NaN: not seen) */
    size_t rank_cap;
    size_t n_profiles;
    /* Set by rt_across_finish: */
    double total_median, total_min, total_max;
    long total_min_rank, total_max_rank;
    rt_straggler *stragglers; /* largest excess (time - median) first */
    size_t n_stragglers;
} rt_across;

rt_across *rt_across_new(const rt_across_opts *opts);
void rt_across_free(rt_across *a);
/* The profile tag that names a profile's rank (beside identity.rank); it is not part of any
 * config's tags across ranks. */
#define RT_ACROSS_RANK_TAG "rank"

/* The rank of a profile read from path: identity.rank, else its `rank` tag (both: they must
 * agree), else the one number in the file name ("run.617.json" is 617), never its place among
 * the inputs. -1 with the file named when none of them gives one. */
int rt_across_rank_of(const rt_profile *p, const char *path, long *rank, rt_error *err);
/* Fold one rank's profile (read-only, may be freed after). -1 when the rank was already folded or
 * is out of range (origin names the input in the message). */
int rt_across_add(rt_across *a, const rt_profile *p, long rank, const char *origin, rt_error *err);
/* Fold b (another set of ranks, disjoint) into a; -1 when they share a rank. */
int rt_across_merge(rt_across *a, const rt_across *b, rt_error *err);
/* For readers of a saved fold (formats/across-state.c): the kernel (config false) or config with
 * this key, added empty when new (its index in *index); and a rank's whole time, -1 when the rank
 * is already there or out of range. */
rt_across_entry *rt_across_entry_at(rt_across *a, bool config, const char *key, size_t len,
                                    const char *name, const rt_tags *tags, size_t *index);
int rt_across_set_rank(rt_across *a, long rank, double total, const char *origin, rt_error *err);
/* Medians, quartiles and stragglers; call once after the last add or merge. */
void rt_across_finish(rt_across *a);
/* Bytes held (for the benchmark and the docs' memory model). */
size_t rt_across_bytes(const rt_across *a);
/* Indices of kernels or configs by median time, longest first; caller frees. */
size_t *rt_across_by_median(const rt_across *a, bool configs);

#endif
