/* The GPU study's cross-check against Nsight Compute (study-gpu-crosscheck.c): FLOPs and bytes per
 * invocation of the longest kernels of a config, the collector's against ncu's. */
#ifndef ROOFTIME_STUDY_STUDY_GPU_CROSSCHECK_H
#define ROOFTIME_STUDY_STUDY_GPU_CROSSCHECK_H

#include <stddef.h>

#include "rooftime/core/profile.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/util/error.h"

/* How far apart the two may be: 5%. */
#define RT_STUDY_GPU_CROSSCHECK_TOLERANCE 0.05

/*
 * Compare the five longest kernels of `ours` at sweep point pt (kernels whose swept-parameter tags
 * are pt's) with the kernel of the same name in `theirs` (an `import ncu` profile; a name matched
 * whole, else up to its argument list): FLOPs over all units and the bytes of every level both
 * have, per invocation, each within tolerance. Adds to out one line per kernel that differs or is
 * missing from theirs, then "WHAT: N of the M longest kernels agree ..." Returns N.
 */
size_t rt_study_gpu_crosscheck(const rt_profile *ours, const rt_study_point *pt,
                               const rt_profile *theirs, double tolerance, const char *what,
                               rt_warnings *out);

#endif
