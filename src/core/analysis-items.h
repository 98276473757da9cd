/* An analysis's items (analysis-items.c): each kernel with its merged tags and its verdict. */
#ifndef ROOFTIME_CORE_ANALYSIS_ITEMS_H
#define ROOFTIME_CORE_ANALYSIS_ITEMS_H

#include <stdbool.h>

#include "rooftime/core/analysis.h"

/* a->items, one per kernel of the profiles in order: tags (the profile's, then the kernel's; with
 * a->base, base's items'), the profile's time kind and tau, the verdict (its warnings in item
 * order); then the totals and the warnings on units and levels the machine lacks. The verdicts
 * are computed on several threads; nothing depends on how many. again: a->items are those of
 * these profiles already (a->n_items 0, the totals and warnings cleared): their verdicts are
 * computed again in a->mode, in place, tags and configs untouched. */
void rt_analysis_build_items(rt_analysis *a, rt_profile *const *profiles, size_t n_profiles,
                             bool again);
/* "KIND 'NAME'" in *buf (reallocated as needed, *cap its size), reused from call to call: what a
 * verdict's warnings call the kernel or config. */
const char *rt_analysis_what(char **buf, size_t *cap, const char *kind, const char *name);

#endif
