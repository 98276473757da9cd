/* The metric list of the Nsight Compute mapping (ncu-metric-list.c): what `rooftime ncu-metrics`
 * prints, what the collector asks CUPTI for, the constants of an architecture. */
#ifndef ROOFTIME_IMPORT_NCU_METRIC_LIST_H
#define ROOFTIME_IMPORT_NCU_METRIC_LIST_H

#include <stddef.h>

#include "rooftime/util/error.h"

/* The mapping file's quantities, set names and metric names, for `rooftime ncu-metrics`. */
typedef struct rt_ncu_metric_list {
    char **metric; /* distinct metric names, in the order the mapping names them */
    size_t n;
} rt_ncu_metric_list;

/* Metric names used by set `set` (NULL: every set) on compute capability sm (0: every one), or
 * -1 if the mapping cannot be read. */
int rt_ncu_metric_list_load(const char *metrics_file, const char *set, int sm,
                            rt_ncu_metric_list *out, rt_error *err);
/* The tensor FLOP formulas (flops.tensor*) of set `set` in scope on sm, as "quantity = formula"
 * lines into buf; 0, or -1 with err. */
int rt_ncu_tensor_formulas(const char *metrics_file, const char *set, int sm, char *buf, size_t n,
                           rt_error *err);
void rt_ncu_metric_list_release(rt_ncu_metric_list *l);
/* A per-architecture constant of the mapping (tensor_factor, tensor_peak) for arch ("sm_80";
 * NULL: the mapping's default), from the nearest architecture at or below it. */
int rt_ncu_constant(const char *metrics_file, const char *arch, const char *name, double *value,
                    rt_error *err);

/* The GPU generations of data/gpu/architectures.json as "sm_70<sep>sm_75<sep>..." into buf, for
 * help texts (examples when the table cannot be read). */
void rt_ncu_arch_names(char *buf, size_t n, const char *sep);
/* The usage error of an --arch value arg that is no architecture, naming those generations. */
void rt_ncu_arch_message(char *buf, size_t n, const char *arg);

#endif
