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

/* A compiled formula (util/formula.c) and what it reads. */
typedef struct ncu_formula {
    rt_formula e;
    uint64_t metrics; /* slots it reads */
    int uses_time;    /* reads launch_time */
} ncu_formula;

typedef struct ncu_quantity {
    char *quantity; /* "flops.fp32", "bytes.HBM" */
    char *set;
    ncu_formula f;
} ncu_quantity;

typedef struct ncu_arch {
    int sm;        /* 70 for sm_70 */
    double *value; /* one per constant name; NAN when the entry lacks it */
} ncu_arch;

typedef struct ncu_map {
    char *path;
    char *label; /* how a profile names it (rt_data_file_label): never a local path of data/ */
    char *metric[NCU_MAX_METRICS]; /* slot -> metric name */
    size_t n_metric;
    ncu_formula cycles, rate;
    ncu_quantity *q;
    size_t n_q;
    char **const_name;
    size_t n_const;
    ncu_arch *arch; /* sorted by sm */
    size_t n_arch;
    int default_sm;
    int tensor_factor_const; /* index of "tensor_factor" among the constants, or -1 */
} ncu_map;

int ncu_map_load(const char *path, ncu_map *m, rt_error *err);
void ncu_map_release(ncu_map *m);
/* Slot of a metric name, or -1. */
int ncu_map_slot(const ncu_map *m, const char *name);
/* The constants of the nearest arch at or below sm (or the lowest one). */
const double *ncu_map_constants(const ncu_map *m, int sm);
/* Parse "sm_70" or "7.0" into 70; -1 if neither. */
int ncu_parse_arch(const char *s);
double ncu_formula_eval(const ncu_formula *f, const double *metric, const double *constants,
                        double launch_time);

/* The mapping file's quantities, set names and metric names, for `rooftime ncu-metrics`. */
typedef struct rt_ncu_metric_list {
    char **metric; /* distinct metric names, in the order the mapping names them */
    size_t n;
} rt_ncu_metric_list;

/* Metric names used by set `set` (NULL: every set), or -1 if the mapping cannot be read. */
int rt_ncu_metric_list_load(const char *metrics_file, const char *set, rt_ncu_metric_list *out,
                            rt_error *err);
void rt_ncu_metric_list_release(rt_ncu_metric_list *l);
/* A per-architecture constant of the mapping (tensor_factor, tensor_peak) for arch ("sm_80";
 * NULL: the mapping's default), from the nearest architecture at or below it. */
int rt_ncu_constant(const char *metrics_file, const char *arch, const char *name, double *value,
                    rt_error *err);

#endif
