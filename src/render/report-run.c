/* The report of an analysis as `rooftime report` and the C API write it: a generation loop's phases
 * first, with one set of charts per phase unless the caller splits otherwise, the callouts and the
 * summary (with the hints) computed from the analysis, and the hier charts beside a single-mode
 * report drawn from the same analysis (rt_report_write_modes), never from a second one. */
#include "rooftime/core/analysis-findings.h"
#include "rooftime/core/analysis-phases.h"
#include "rooftime/render/report-run.h"

int rt_report_write_run(rt_analysis *a, rt_profile *const *profiles, size_t n_profiles,
                        const rt_verdict_hints *hints, const rt_report_opts *opts, const char *dir,
                        rt_error *err)
{
    static const char *const by_phase[] = {"phase"};
    rt_report_opts ro = *opts;
    rt_findings *phases = rt_analysis_phases(a);
    if (phases && !opts->n_split_by) {
        ro.split_by = by_phase;
        ro.n_split_by = 1;
    }
    ro.findings = phases;
    rt_findings *callouts = rt_analysis_findings(a);
    rt_findings *summary = rt_analysis_summary(a, hints);
    ro.callouts = callouts;
    ro.summary = summary;
    int rc = rt_report_write_modes(a, profiles, n_profiles, &ro, dir, err);
    rt_findings_free(callouts);
    rt_findings_free(summary);
    rt_findings_free(phases);
    return rc;
}
