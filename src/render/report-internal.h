/* Private to the report's files: the pieces of the page each file writes. */
#ifndef ROOFTIME_REPORT_INTERNAL_H
#define ROOFTIME_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/profile.h"
#include "rooftime/render/chart.h"
#include "rooftime/render/report.h"
#include "rooftime/util/error.h"

/* report-findings.c: a findings structure as HTML. titled: an <h2> with the title, sections as
 * <h3> (the study's findings); otherwise each section is an <h2> with its id (the callouts). */
void rt_report_findings(FILE *fp, const rt_findings *f, bool titled);
/* The report's charts: full width, 1300 x 480 points with text at 1.2 times the plot's, so at a
 * 1400 px page no text is below 12 px (tests/cli-report.sh measures it in Chromium). */
#define RT_REPORT_CHART_W 1300
#define RT_REPORT_CHART_H 480
#define RT_REPORT_TEXT_SCALE 1.2

/* report-warnings.c: the warnings grouped by cause, one expandable line per cause with a
 * count. */
void rt_report_warnings(FILE *fp, const rt_warnings *w);

/* report-profiles.c: "Profiles: " and each distinct tool and command once, with a count (the
 * profiles of a study, one command told apart by a parenthesis, as one). */
void rt_report_profiles(FILE *fp, rt_profile *const *profiles, size_t n);

/* report-coverage.c: for each profile that recorded them, the share of its run's wall time (or
 * of the profiled steps) its kernels explain and what the PyTorch cost model covered, as `analyze`
 * prints them (core/coverage.h). */
void rt_report_coverage(FILE *fp, rt_profile *const *profiles, size_t n);
/* A GPU trace's device coverage and launch side (import torch), profile p of n. */
void rt_report_launch_side(FILE *fp, const rt_profile *prof, size_t p, size_t n);

/* Escaped text (NULL prints nothing). */
void rt_report_esc(FILE *fp, const char *s);

/* report-splits.c: distinct values of the split tags in first-seen order, as filter lists
 * "TAG=VALUE", each with a title and a slug unique among them (*out: heap, freed with
 * rt_report_splits_free). */
typedef struct rt_report_split {
    char **where;
    size_t n_where;
    char *title, *slug;
} rt_report_split;
size_t rt_report_splits_build(const rt_analysis *a, const rt_report_opts *o, rt_report_split **out);
void rt_report_splits_free(rt_report_split *s, size_t n);

/* report-charts.c: the charts of one section (spec without its view: every view, and the hier
 * chart of hier beside a view drawn in hier mode), each into DIR/<slug>-<view>.svg, drawn on
 * several threads; then each inlined into html, or linked when too large for the page. */
int rt_report_charts(FILE *html, const char *dir, const rt_report_split *sp,
                     const rt_chart_spec *spec, const rt_analysis *a, const rt_analysis *hier,
                     rt_error *err);

#endif
