/* The HTML report: the four views and the hierarchical roofline, with tables, in one file. */
#ifndef ROOFTIME_RENDER_REPORT_H
#define ROOFTIME_RENDER_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

typedef struct rt_report_section {
    const char *title;
    const char *html; /* trusted HTML, already escaped */
} rt_report_section;

typedef struct rt_report_opts {
    const char *title;
    rt_mode mode;
    const rt_group_opts *group; /* how kernels group into configs/families (NULL: defaults) */
    /* One set of four views per distinct value of these tags (e.g. operation, pass). */
    const char *const *split_by;
    size_t n_split_by;
    const char *series_by; /* tag that picks the color (e.g. "framework" or "implementation") */
    const char *marker_by; /* tag that picks the marker shape (e.g. the swept parameter) */
    const char *fill_by;   /* tag whose values map to filled/hollow (e.g. "precision") */
    /* Extra sections (findings) placed before the charts. */
    const rt_report_section *sections;
    size_t n_sections;
} rt_report_opts;

/*
 * Write DIR/report.html (self-contained: inline SVG and CSS, nothing from the network) and the
 * chart SVGs beside it; atomic per file. DIR is created when missing. A styling tag that no
 * kernel carries is ignored (the report is for every profile; `rooftime plot` is strict).
 */
int rt_report_write(const rt_machine *m, rt_profile *const *profiles, size_t n_profiles,
                    const rt_report_opts *opts, const char *dir, rt_error *err);

#endif
