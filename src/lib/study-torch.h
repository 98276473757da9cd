/* PyTorch as a study implementation: scripts/torch-client.py per point, read from its trace. */
#ifndef ROOFTIME_STUDY_TORCH_H
#define ROOFTIME_STUDY_TORCH_H

#include <stddef.h>

#include "rooftime/error.h"
#include "rooftime/profile.h"
#include "rooftime/study.h"

typedef struct rt_torch_study_opts {
    rt_study_op op;
    const rt_study_point *points; /* the sweep points (rt_study_points) */
    size_t n_points;
    rt_precision precision; /* RT_PREC_FP32 or RT_PREC_BF16 */
    rt_pass pass;           /* RT_PASS_FWD or RT_PASS_BWD (torch runs one backward for both) */
    int warmup, iters;      /* 0: the paper's 5 and 20 */
    const char *tmpdir;     /* where the traces go; NULL: $TMPDIR or /tmp */
    rt_profile *into;       /* add the kernels here; NULL: a new profile */
} rt_torch_study_opts;

/* Whether `python` can import torch (runs `python -c "import torch"`). */
int rt_torch_study_available(const char *python);

/*
 * Run `python script` (scripts/torch-client.py) once per point with --trace and import each
 * trace's measured range (rt_import_torch, within "rooftime:measured"), the way study-run.c
 * records its own implementations: one profile for this op x precision x pass, tagged
 * implementation=pytorch, precision, operation and pass, whose kernels carry those tags plus one
 * per parameter (batch, filters, kernel, stride; batch, seq, features, hidden). With o->into the
 * kernels are added to that profile (call it per point, e.g. for a progress line) and *out is
 * o->into; otherwise *out is a new profile, the caller's. The traces hold time and FLOPs, no bytes.
 */
int rt_torch_study_run(const char *python, const char *script, const rt_torch_study_opts *o,
                       rt_profile **out, rt_error *err);

#endif
