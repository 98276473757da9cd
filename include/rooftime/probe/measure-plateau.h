/* Plateau detection on a bandwidth-versus-working-set curve, and the cache sizes that name the
 * plateaus. */
#ifndef ROOFTIME_PROBE_MEASURE_PLATEAU_H
#define ROOFTIME_PROBE_MEASURE_PLATEAU_H

#include <stddef.h>

#include "rooftime/util/error.h"

/* One data or unified cache level as the OS reports it for the first CPU. */
typedef struct rt_cache_info {
    int level;     /* 1, 2, 3 ... */
    double size;   /* bytes */
    int shared_by; /* logical CPUs sharing one instance */
    int instances; /* instances in the machine (sysfs: the online CPUs over shared_by) */
} rt_cache_info;

/*
 * Data/unified caches, lowest level first, at most `max`; returns how many
 * (0 when unknown). source gets "hwloc" or "sysfs" (may be NULL).
 */
int rt_cache_detect(rt_cache_info *caches, int max, const char **source);

/* One named memory level found on a curve. */
typedef struct rt_plateau {
    char name[8];        /* L1, L2, L3, DRAM */
    int found;           /* 0: no plateau for this level on the curve */
    double bw, min, max; /* median of the plateau's points in the level's range, their range */
    double from_bytes, to_bytes; /* working sets of those points */
    double size_bytes;           /* capacity per thread (0 for DRAM) */
    int n_points;
    char note[200]; /* how it was found, or why not */
} rt_plateau;

/* Points that differ by at most this ratio (after a 3-point median) form one plateau. */
#define RT_PLATEAU_TOLERANCE 1.3

/*
 * Name the plateaus of a curve: x = working set per thread (ascending),
 * y = bytes/s. limits[0..k) are the cache capacities per thread of the
 * levels names[0..k) (ascending); out gets k + 1 entries, the caches then
 * DRAM. Each level takes the run of near-equal points with the most points
 * inside its range. With k = 0 (sizes unknown) only DRAM is named: the last
 * run of the curve. A level with no run of at least two points in its range
 * is left with found = 0 and a warning. -1 on bad input.
 */
int rt_plateau_detect(const double *x, const double *y, size_t n, const double *limits,
                      const char *const *names, size_t k, rt_plateau *out, rt_warnings *warnings,
                      rt_error *err);

#endif
