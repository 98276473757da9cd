/* The Nsight Compute metric-to-quantity mapping (data/ncu/metrics.json) and its formulas
 * (ncu-metrics.c). */
#ifndef ROOFTIME_IMPORT_NCU_METRICS_H
#define ROOFTIME_IMPORT_NCU_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "rooftime/util/error.h"
#include "rooftime/util/formula.h"

/* At most this many distinct metrics per mapping: launch state keeps a 64-bit presence mask. */
#define NCU_MAX_METRICS 64
/* At most this many quantity entries: the chosen formulas of a launch are a 64-bit mask. */
#define NCU_MAX_QUANTITIES 64

/* A compiled formula (util/formula.c) and what it reads. */
typedef struct rt_ncu_formula {
    rt_formula e;
    uint64_t metrics; /* slots it reads */
    int uses_time;    /* reads launch_time */
    uint64_t consts;  /* constants it reads (bit i: the mapping's constant i, i < 64) */
} rt_ncu_formula;

typedef struct rt_ncu_quantity {
    char *quantity; /* "flops.fp32", "bytes.HBM" */
    char *set;
    int from_sm, to_sm; /* the compute capabilities it applies to, inclusive (0, INT_MAX: all) */
    rt_ncu_formula f;
} rt_ncu_quantity;

typedef struct rt_ncu_arch {
    int sm;        /* 70 for sm_70 */
    double *value; /* one per constant name; NAN when the entry lacks it */
} rt_ncu_arch;

typedef struct rt_ncu_map {
    char *path;
    char *label; /* how a profile names it (rt_data_file_label): never a local path of data/ */
    char *metric[NCU_MAX_METRICS]; /* slot -> metric name */
    size_t n_metric;
    rt_ncu_formula cycles, rate;
    rt_ncu_formula duration; /* a launch's time where cycles or rate are absent */
    int has_duration;
    char *recipe; /* the recipe loaded ("nsight", "paper"); NULL: the mapping has none */
    rt_ncu_quantity *q;
    size_t n_q;
    char **const_name;
    size_t n_const;
    rt_ncu_arch *arch; /* sorted by sm */
    size_t n_arch;
    int default_sm;
    int tensor_factor_const; /* index of "tensor_factor" among the constants, or -1 */
} rt_ncu_map;

/* Load with the mapping's default recipe. */
int rt_ncu_map_load(const char *path, rt_ncu_map *m, rt_error *err);
/* Load with the entries of one recipe (NULL: the default; an entry without "recipe" applies under
 * every one); a recipe the mapping lacks is an error naming those it has. */
int rt_ncu_map_load_recipe(const char *path, const char *recipe, rt_ncu_map *m, rt_error *err);
void rt_ncu_map_release(rt_ncu_map *m);
/* Slot of a metric name, or -1. */
int rt_ncu_map_slot(const rt_ncu_map *m, const char *name);
/* The constants of the nearest arch at or below sm (or the lowest one). */
const double *rt_ncu_map_constants(const rt_ncu_map *m, int sm);
/* Parse "sm_70" (sm_ and 2 or 3 digits) or "7.0" into 70; major 1 to 99; -1 if neither. */
int rt_ncu_parse_arch(const char *s);
/* Whether entry q applies to a launch of compute capability sm (its from_arch/to_arch); lift_tf:
 * --tensor-factor was given, which lifts the scope of formulas that read tensor_factor. */
int rt_ncu_quantity_applies(const rt_ncu_map *m, const rt_ncu_quantity *q, int sm, int lift_tf);
/* Choose the formulas for inputs of the compute capabilities sms[0..n_sms) holding the metrics in
 * avail: per quantity and architecture the first entry in scope whose metrics are all there.
 * chosen (n_q entries) gets their indexes in mapping order; lacking (n_q entries) the first entry
 * in scope of each quantity that had none, in mapping order. Returns the number chosen. */
size_t rt_ncu_map_choose(const rt_ncu_map *m, uint64_t avail, const int *sms, size_t n_sms,
                         int lift_tf, int *chosen, int *lacking, size_t *n_lacking);
/* Every architecture the mapping distinguishes (its constants' and its entries' bounds) and the
 * extra ones, each once, into out (room for n_arch + 2 n_q + n_extra); their number. Choosing for
 * all of them lets a launch of any architecture find its formula, also in a file whose first launch
 * ran on another. */
size_t rt_ncu_map_archs(const rt_ncu_map *m, const int *extra, size_t n_extra, int *out);
/* Which chosen formulas a launch on sm evaluates (bit i: chosen[i]): per quantity the first in
 * scope. */
uint64_t rt_ncu_map_applying(const rt_ncu_map *m, const int *chosen, size_t n, int sm, int lift_tf);
double rt_ncu_formula_eval(const rt_ncu_formula *f, const double *metric, const double *constants,
                           double launch_time);

#endif
