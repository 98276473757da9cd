/* What `diff` lends `plot --diff` (cmd-diff.c), and its gate (cmd-diff-gate.c). */
#ifndef ROOFTIME_CLI_DIFF_H
#define ROOFTIME_CLI_DIFF_H

#include <stddef.h>

#include "cli-inputs.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/diff-gate.h"

/* `diff --gate`'s options: the gate's thresholds and permissions, its files, and the table's. */
typedef struct cli_diff_gate_opts {
    rt_gate_opts gate;
    const char *junit, *summary; /* files to write, or NULL */
    rt_mode mode;
    const char *by;
    size_t top;
} cli_diff_gate_opts;

/* Run the gate on BEFORE and AFTER (each a profile or a comma list of runs); the exit code. */
int cli_diff_gate(const cli_diff_gate_opts *go, const cli_analysis_opts *in, const char *before,
                  const char *after);

/* `plot --diff`: two profiles into two whose kernels are the top kernels by change in time,
 * matched by `by` as `diff --by` matches them, each tagged kernel=KEY and run=1-before or 2-after,
 * so that a family by run joins each kernel's two points. *notes (heap strings, *n_notes of them;
 * the caller frees them with rt_free_list) say what the chart cannot show: kernels in one run
 * only, and kernels with no FLOPs, which no view can place. 0, or -1 when there are not two
 * profiles. */
int cli_diff_for_plot(rt_profile *const *ps, size_t n, size_t top, const char *by, rt_profile **out,
                      char ***notes, size_t *n_notes);

#endif
