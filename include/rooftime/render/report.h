/* The HTML report: the four views and the hierarchical roofline, with tables, in one file. */
#ifndef ROOFTIME_RENDER_REPORT_H
#define ROOFTIME_RENDER_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/render/chart.h"
#include "rooftime/util/error.h"

/* A section drawn by render itself (a chart with its table, e.g. the stragglers across ranks):
 * trusted HTML, placed after the charts. Findings (text) go through rt_findings instead. */
typedef struct rt_report_section {
    const char *title;
    const char *html;
} rt_report_section;

typedef struct rt_report_opts {
    const char *title;
    /* One set of four views per distinct value of these tags (e.g. operation, pass). */
    const char *const *split_by;
    size_t n_split_by;
    const char *series_by; /* tag that picks the color (e.g. "framework" or "implementation") */
    const char *marker_by; /* tag that picks the marker shape (e.g. the swept parameter) */
    const char *fill_by;   /* tag whose values map to filled/hollow (e.g. "precision") */
    /* Findings placed before the charts (the study's); NULL: none. */
    const rt_findings *findings;
    /* The callouts (zero-AI kernels, overhead-bound configs); NULL: rt_analysis_findings(a). */
    const rt_findings *callouts;
    const rt_report_section *sections;
    size_t n_sections;
    /* The summary the page opens with; NULL: rt_analysis_summary(a, NULL) (no hints). */
    const rt_findings *summary;
    rt_points points; /* complexity, time and 4D views: configs or kernels */
    bool all_roofs;   /* every roof of the machine, not only those the kernels use */
} rt_report_opts;

/* A split or styling tag as the kernels of a spell it ("framework" finds "Framework"), or NULL
 * when none carries it (report-splits.c). */
const char *rt_report_tag_find(const rt_analysis *a, const char *tag);

/*
 * Write DIR/report.html (self-contained: inline SVG and CSS, nothing from the network) and the
 * chart SVGs beside it; atomic per file. DIR is created when missing. a is the analysis in the
 * report's mode (its machine is the report's); hier, when not NULL, the same profiles in hier
 * mode, drawn as a hierarchical roofline beside a's. The analyses are computed once by the
 * caller and only read here. A split or styling tag is matched as rt_report_tag_find finds it;
 * one that no kernel carries is ignored (the report is for every profile; `rooftime plot` is
 * strict, `rooftime report` warns of the tags its options name).
 */
int rt_report_write(const rt_analysis *a, const rt_analysis *hier, rt_profile *const *profiles,
                    size_t n_profiles, const rt_report_opts *opts, const char *dir, rt_error *err);
/* The same report as rt_report_write(a, hier, ...) with hier the analysis of a's profiles in hier
 * mode (none when a's mode is hier), drawn from a itself: a's verdicts are computed again in hier
 * mode for the hier charts and back after them (rt_analysis_set_mode), so that a second analysis
 * never takes memory beside a (a million kernels: about a gigabyte), at the cost of computing the
 * verdicts twice. profiles are a's, in order; a is as it was on return. */
int rt_report_write_modes(rt_analysis *a, rt_profile *const *profiles, size_t n_profiles,
                          const rt_report_opts *opts, const char *dir, rt_error *err);

#endif
