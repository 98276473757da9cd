/* The study's finding on kernels that ran faster than their bound (study-consistency.c). */
#ifndef ROOFTIME_STUDY_CONSISTENCY_H
#define ROOFTIME_STUDY_CONSISTENCY_H

#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"

/* A findings section on kernels with efficiency above 1, grouped by the reason the data points to.
 */
void rt_study_findings_consistency(rt_findings *o, const rt_analysis *a);

#endif
