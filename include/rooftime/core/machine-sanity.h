/* What makes a machine file's ceilings suspect (machine-sanity.c): `machine check` prints it, and
 * analyze and the report carry it as a banner. */
#ifndef ROOFTIME_CORE_MACHINE_SANITY_H
#define ROOFTIME_CORE_MACHINE_SANITY_H

#include <stddef.h>

#include "rooftime/core/machine.h"
#include "rooftime/util/error.h"

/* Thresholds of the rules (docs/machine-format.md). */
#define RT_SANITY_LEVEL_SLACK 1.05    /* a level faster than the one above it by more than this */
#define RT_SANITY_MIN_THEORETICAL 0.5 /* a unit below this fraction of its theoretical peak */
#define RT_SANITY_MAX_DISTURBED 0.25  /* more than this fraction of timed runs disturbed */
#define RT_SANITY_MAX_SPREAD 0.5      /* (max - min) / value over the attempts above this */

/*
 * Check m against the rules: memory levels ordered from fastest to slowest, each unit at a
 * sensible fraction of its theoretical peak (where known), few measurement runs disturbed by other
 * processes, a narrow spread between attempts. Each problem is one message in w naming the
 * ceiling and the figures; returns how many.
 */
size_t rt_machine_sanity(const rt_machine *m, rt_warnings *w);

#endif
