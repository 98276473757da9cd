/* PyTorch as a study implementation: scripts/torch-client.py over the sweep points, read from its
 * traces. */
#ifndef ROOFTIME_STUDY_TORCH_H
#define ROOFTIME_STUDY_TORCH_H

#include <stddef.h>

#include "rooftime/core/profile.h"
#include "rooftime/study/study-run.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/util/error.h"

typedef struct rt_torch_study_opts {
    rt_study_op op;
    /* the implementation tag of the kernels (NULL: "pytorch"); attention and decode: "math" (the
     * unfused matmul, softmax, matmul) or "sdpa" (scaled_dot_product_attention); NULL: math */
    const char *implementation, *attention;
    const rt_study_point *points; /* the sweep points (rt_study_points) */
    size_t n_points;
    rt_precision precision; /* RT_PREC_FP32 or RT_PREC_BF16 */
    rt_pass pass;           /* RT_PASS_FWD, RT_PASS_BWD; conv2d also RT_PASS_BWD_DATA and
                             * RT_PASS_BWD_WEIGHTS (aten::convolution_backward by output_mask) */
    int warmup;             /* < 0: the paper's 5 (0 is none) */
    int iters;              /* < 1: the paper's 20 */
    int threads;            /* torch's intra-op threads; 0: torch's choice */
    const char *tmpdir;     /* where the traces go; NULL: $TMPDIR or /tmp */
    rt_profile *into;       /* add the kernels here; NULL: a new profile */
    /* Called as point i starts, for i = 0 .. n_points - 1 (the points run in one process, so this
     * is the only sign of progress); NULL: none. */
    void (*progress)(void *ud, size_t i);
    void *progress_ud;
} rt_torch_study_opts;

/* Whether `python` can import torch (runs `python -c "import torch"`). */
int rt_torch_study_available(const char *python);

/* The same, with the reason when it cannot: 0, or -1 with "'python' cannot import torch" (or
 * cannot be run) in err. */
int rt_torch_study_probe(const char *python, rt_error *err);

/* Whether `python`'s torch has torch.nn.functional.scaled_dot_product_attention (torch 2.0 and
 * later): 0, or -1 with the reason in err. */
int rt_torch_study_probe_sdpa(const char *python, rt_error *err);

/* The python the study runs: $ROOFTIME_PYTHON when set, else /usr/bin/python3 (Debian's
 * python3-torch lives there; a python3 earlier in PATH may lack torch). */
const char *rt_torch_study_python(void);

/* scripts/torch-client.py: under $ROOFTIME_SRC, the source tree this was built from, or the
 * installed share directory, the first that exists. Caller frees; NULL with the places looked in
 * when none has it. */
char *rt_torch_study_script(rt_error *err);

/*
 * Run `python script` (scripts/torch-client.py) once for all the points (python and torch take a
 * second or two to start) with --trace-dir, and import each point's measured range
 * (rt_import_torch, within "rooftime:measured") as its trace arrives, the way study-run.c records
 * its own implementations: one profile for this op x precision x pass, tagged
 * implementation=pytorch, precision, operation and pass, whose kernels carry those tags plus one
 * per parameter (batch, filters, kernel, stride; batch, seq, features, hidden). With o->into the
 * kernels are added to that profile and *out is o->into; otherwise *out is a new profile, the
 * caller's. The client writes its traces with the `profile --torch` runner's writer and they are
 * imported with the cost model (data/torch/ops.json): FLOPs and bytes. After each point's measured
 * iterations the client runs the pass once more, untimed, with oneDNN verbose output into a file of
 * its own (--onednn-dir), which is joined to the point's trace (rt_torch_join_onednn): an operator
 * that ran a oneDNN primitive computes on the primitive's unit, is tagged onednn with its
 * implementation and pays its execute; the profile's notes onednn_units and
 * onednn_units_warnings say what was joined, torch_threads what torch ran with (its threads). On
 * failure (-1, naming the point) o->into keeps the points that finished; *out is NULL.
 */
int rt_torch_study_run(const char *python, const char *script, const rt_torch_study_opts *o,
                       rt_profile **out, rt_error *err);

/* Whether the pytorch implementation can run: the python of o imports torch and
 * scripts/torch-client.py is found ($ROOFTIME_SRC/scripts, the source tree, the installed share
 * directory). 0, or -1 with the reason. Starts python: a second or two. */
int rt_study_torch_check(const rt_study_opts *o, rt_error *err);
/* The same, and the torch has scaled_dot_product_attention (the sdpa implementation runs). */
int rt_study_sdpa_check(const rt_study_opts *o, rt_error *err);
/* Under a causal mask torch's fused attention kernels skip the keys a query does not see (the
 * CPU's flash kernel by blocks of keys), where the cost model of profile --torch counts every
 * (query, key) pair as torch's flop counter does: the study credits them with the exact causal
 * count, L (L + 1) / 2 of the L^2 pairs (its FLOPs scaled by that ratio). Kernels of an
 * attention point with causal=1 only; the unfused math computes every pair and keeps its count. */
void rt_torch_study_causal_credit(rt_profile *p, const rt_study_point *pt);

#endif
