/* The report's stragglers section from an analysis across ranks (across-html.c). */
#ifndef ROOFTIME_RENDER_ACROSS_HTML_H
#define ROOFTIME_RENDER_ACROSS_HTML_H

#include <stddef.h>

#include "rooftime/core/across.h"
#include "rooftime/core/machine.h"
#include "rooftime/util/error.h"

/* A heap string of trusted HTML (every name escaped): the time per rank, the `top` largest
 * stragglers (0: all) and the box chart inline; NULL with err set when drawing failed. Goes into
 * rt_report_opts.sections. */
char *rt_across_section_html(const rt_across *a, const rt_machine *m, size_t top, rt_error *err);

#endif
