/* Two runs of a generation loop phase by phase (diff-phases.c), for `diff`. */
#ifndef ROOFTIME_FORMATS_DIFF_PHASES_H
#define ROOFTIME_FORMATS_DIFF_PHASES_H

#include <stdio.h>

#include "rooftime/core/profile.h"

/* "phases (time before -> after)" and a line per phase tag value (in order of first appearance,
 * the kernels without one last): time and launches before and after and their ratio. Nothing
 * when neither profile has a kernel with a phase tag. */
void rt_diff_phases_write(FILE *fp, const rt_profile *before, const rt_profile *after);

#endif
