/* Nsight Compute raw `ncu --csv` output into a profile (ncu.c). */
#ifndef ROOFTIME_IMPORT_N_H
#define ROOFTIME_IMPORT_N_H

#include <stdbool.h>
#include <stddef.h>
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

typedef struct rt_ncu_options {
    const char *metrics_file; /* metric-to-quantity mapping; NULL: <datadir>/ncu/metrics.json */
    double tensor_factor;     /* FLOPs per tensor instruction; 0: from the mapping, per CC */
    const char *arch; /* "sm_70" ...: for files without a CC column; NULL: the mapping's default */
    const char *recipe; /* the mapping's recipe ("nsight", "paper"); NULL: its default_recipe */
    bool allow_missing; /* a launch lacking a metric: warning (and counted as 0), not error; a
                           metric n/a: the quantities that read it left out of its kernel */
    bool per_launch;    /* one kernel per launch (tags launch, process) instead of per name */
} rt_ncu_options;

/*
 * Read n raw `ncu --csv` outputs (each one metric or many; the program's own
 * output and ==PROF== lines before the header are skipped; ncu 2025's rule rows
 * skipped and counted; mangled kernel names demangled as the CUPTI collector
 * does; units converted through data/ncu/units.json), join launches
 * across files by process and launch ID (checking the kernel name), and
 * aggregate per kernel name. When the files' launch orders differ (a launch ID
 * names different kernels), the files are read again and joined per kernel
 * name (the k-th launch of a name in each file; counts must agree), with one
 * warning; per_launch is then refused. Failed launches (every metric nan, grid
 * (0, 0, 0)) are dropped with a warning. Streams: memory grows with the number of kernel
 * names and with how far the files' launch orders drift apart, not with
 * their size. *out is a new profile owned by the caller.
 */
int rt_import_ncu(const char *const *paths, size_t n, const rt_ncu_options *opt, rt_profile **out,
                  rt_warnings *w, rt_error *err);

#endif
