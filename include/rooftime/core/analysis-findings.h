/* The findings any analysis gives (analysis-findings.c), as a findings structure: zero-AI
 * kernels and overhead-bound configs. The report shows them as callouts; a text writer prints
 * them. */
#ifndef ROOFTIME_CORE_ANALYSIS_FINDINGS_H
#define ROOFTIME_CORE_ANALYSIS_FINDINGS_H

#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/hints.h"

/* Rows a callout's table lists before "and N more". */
#define RT_CALLOUT_ROWS 25

/* One section, "Zero-AI kernels and overhead-bound configs", with two callouts (the longest
 * kernels and configs of each kind in a table). Caller frees with rt_findings_free. */
rt_findings *rt_analysis_findings(const rt_analysis *a);

/* The overhead-bound configs of an analysis, counted. */
size_t rt_analysis_n_overhead_bound(const rt_analysis *a);

/* How rt_analysis_overhead_series groups configs into rows. */
typedef struct rt_overhead_series {
    /* a config's series from its tags ("onednn bf16 conv2d forward"): one row per series */
    void (*series)(const rt_tags *tags, char *buf, size_t n);
    /* with a fourth column, the share of a series' kernel time in overhead-bound kernels */
    bool time_share;
    /* NULL, or what follows that share in its cell (" (no byte counts)"); "" for nothing */
    const char *(*share_note)(const rt_analysis *a, const char *series);
} rt_overhead_series;

/* A table of the overhead-bound configs per series, in the order series first appear: the
 * series, "k of n" overhead-bound configs, launches per config ("n", or "min to max") and, with
 * time_share, the share of time. The one place these findings are written; returns the number
 * of overhead-bound configs. */
size_t rt_analysis_overhead_series(rt_findings *f, const rt_analysis *a,
                                   const rt_overhead_series *how);

/* Rows of the summary's table of the most recoverable kernels. */
#define RT_SUMMARY_TOP 5

/* Whether the counts of a kernel can bound it: FLOPs or bytes recorded. The time of the others
 * has no real verdict (their class is a default, not a finding); the one place that decides. */
bool rt_item_has_counts(const rt_item *it);

/* The verdict first: one section "Summary" with the total time, the share of it with a real
 * verdict, the time by bound class and the RT_SUMMARY_TOP kernels with the most recoverable
 * time (ID K<rank by time> as the report's tables number them, verdict, hint from hints; NULL:
 * no hints). Caller frees with rt_findings_free. */
rt_findings *rt_analysis_summary(const rt_analysis *a, const rt_verdict_hints *hints);

#endif
