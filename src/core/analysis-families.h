/* Families of an analysis's configs (analysis-families.c). */
#ifndef ROOFTIME_CORE_ANALYSIS_FAMILIES_H
#define ROOFTIME_CORE_ANALYSIS_FAMILIES_H

#include "rooftime/core/analysis.h"

/* a->families from a->configs: for each candidate parameter (the tags configs carry that read as
 * numbers, or o->params), the configs that carry it grouped by their other tags, a group with
 * two distinct values of it a family, ordered by the value. */
void rt_analysis_build_families(rt_analysis *a, const rt_group_opts *o);

#endif
