/* What `diff` lends `plot --diff` (cmd-diff.c). */
#ifndef ROOFTIME_CLI_DIFF_H
#define ROOFTIME_CLI_DIFF_H

#include <stddef.h>

#include "rooftime/core/profile.h"

/* `plot --diff`: two profiles into two whose kernels are the top kernels by change in time,
 * matched by `by` as `diff --by` matches them, each tagged kernel=KEY and run=1-before or 2-after,
 * so that a family by run joins each kernel's two points. *notes (heap strings, *n_notes of them;
 * the caller frees them with rt_free_list) say what the chart cannot show: kernels in one run
 * only, and kernels with no FLOPs, which no view can place. 0, or -1 when there are not two
 * profiles. */
int cli_diff_for_plot(rt_profile *const *ps, size_t n, size_t top, const char *by, rt_profile **out,
                      char ***notes, size_t *n_notes);

#endif
