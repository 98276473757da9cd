/* Private to the report's files: the pieces of the page each file writes. */
#ifndef ROOFTIME_REPORT_INTERNAL_H
#define ROOFTIME_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"

/* report-findings.c: a findings structure as HTML. titled: an <h2> with the title, sections as
 * <h3> (the study's findings); otherwise each section is an <h2> with its id (the callouts). */
void rt_report_findings(FILE *fp, const rt_findings *f, bool titled);
/* Escaped text (NULL prints nothing). */
void rt_report_esc(FILE *fp, const char *s);

#endif
