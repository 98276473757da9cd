/* The report of an analysis as `rooftime report` and the C API write it (report-run.c). */
#ifndef ROOFTIME_RENDER_REPORT_RUN_H
#define ROOFTIME_RENDER_REPORT_RUN_H

#include "rooftime/core/hints.h"
#include "rooftime/render/report.h"

/* rt_report_write_modes(a, ...) with, in place of opts' findings, callouts and summary: a
 * generation loop's phases (rt_analysis_phases; its charts split by phase unless opts splits
 * them), rt_analysis_findings(a) and rt_analysis_summary(a, hints). a is as it was on return. */
int rt_report_write_run(rt_analysis *a, rt_profile *const *profiles, size_t n_profiles,
                        const rt_verdict_hints *hints, const rt_report_opts *opts, const char *dir,
                        rt_error *err);

#endif
