/* The time-based roofline across ranks (chart-across.c): a box per config, time per rank against
 * its work, the slowest rank marked. */
#ifndef ROOFTIME_RENDER_CHART_ACROSS_H
#define ROOFTIME_RENDER_CHART_ACROSS_H

#include <stdio.h>

#include "rooftime/core/across.h"
#include "rooftime/core/machine.h"
#include "rooftime/util/error.h"

/* Draw a finished analysis into path (.svg, .png or .pdf), atomically. m (may be NULL) adds the
 * time-based roofline: the compute ceiling W / P_ref and the launch-overhead floor n tau. */
int rt_chart_across_write(const rt_across *a, const rt_machine *m, const char *path, rt_error *err);
/* The same drawing as SVG on fp. */
int rt_chart_across_svg(const rt_across *a, const rt_machine *m, FILE *fp, rt_error *err);

#endif
