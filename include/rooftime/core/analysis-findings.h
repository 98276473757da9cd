/* The findings any analysis gives (analysis-findings.c), as a findings structure: zero-AI
 * kernels and overhead-bound configs. The report shows them as callouts; a text writer prints
 * them. */
#ifndef ROOFTIME_CORE_ANALYSIS_FINDINGS_H
#define ROOFTIME_CORE_ANALYSIS_FINDINGS_H

#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"

/* Rows a callout's table lists before "and N more". */
#define RT_CALLOUT_ROWS 25

/* One section, "Zero-AI kernels and overhead-bound configs", with two callouts (the longest
 * kernels and configs of each kind in a table). Caller frees with rt_findings_free. */
rt_findings *rt_analysis_findings(const rt_analysis *a);

#endif
