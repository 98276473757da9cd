/* The findings of the study (study-findings.c): a findings structure computed from the analysis of
 * its profiles. */
#ifndef ROOFTIME_STUDY_STUDY_FINDINGS_H
#define ROOFTIME_STUDY_STUDY_FINDINGS_H

#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/study/study-run.h"

/*
 * The findings computed from the analysis of the study's profiles: the run, the correctness
 * checks, overhead-bound configs, matrix-unit use, zero-AI time share, jumps in AI within
 * families, scaling, recoverable seconds. A structure (core/findings.h) that the text writer
 * (formats) and the report render; rt_findings_free frees it.
 */
rt_findings *rt_study_findings(const rt_analysis *a, const rt_study_result *r);

#endif
