/* The method text of the study's profiles: how every kernel was timed and its FLOPs and bytes
 * counted, per kind of implementation. */
#include <stdbool.h>
#include <stdio.h>

#include "study-method.h"
#include "rooftime/util/strings.h"

char *rt_study_method_text(int warmup, int iters, bool direct)
{
    return rt_asprintf(
        "rooftime study: every kernel invocation timed with the monotonic clock around the call "
        "(oneDNN: execute + stream wait), %d warm-up and %d measured iterations per config, "
        "times and counts summed over the measured ones. FLOPs: exact formulas for the "
        "algorithm run (direct loops and oneDNN's direct kernels: multiply-adds over the kernel "
        "taps inside the input; im2col GEMM and oneDNN gemm kernels: over the padded columns; "
        "GEMM 2MNK plus MN when accumulating; elementwise kernels counted per element, each libm "
        "call one FLOP). Bytes: DRAM = compulsory traffic of each kernel's tensors, each read or "
        "written once (oneDNN: the sizes of its memory descriptors); L1 = loads and stores "
        "counted per loop iteration, for the C kernels only (OpenBLAS and oneDNN kernels have "
        "none).%s",
        warmup, iters,
        direct ? " The direct loops are the correctness reference: they run at the default "
                 "config only, with at most 1 warm-up and 3 measured iterations."
               : "");
}

char *rt_study_torch_method_text(int warmup, int iters, int threads, const char *python,
                                 const char *script, size_t npts, size_t nall)
{
    char th[64] = "";
    if (threads > 0)
        snprintf(th, sizeof th, " with %d threads", threads);
    else
        snprintf(th, sizeof th, " with OMP_NUM_THREADS threads");
    char pts[96] = "";
    if (npts < nall)
        snprintf(pts, sizeof pts, " (%zu of the %zu sweep points: a quick run)", npts, nall);
    return rt_asprintf(
        "rooftime study, pytorch: '%s %s' runs every sweep point%s in one process%s, %d warm-up "
        "and %d measured iterations of the pass per point, the measured ones recorded by the "
        "PyTorch profiler (record_shapes, with_flops) inside 'rooftime:measured' ranges, "
        "written by the `profile --torch` runner (types, concrete arguments) and imported as "
        "in 'rooftime import torch': operators by self time (duration minus their children's), "
        "invocations per call. FLOPs and bytes: the cost model (data/torch/ops.json) from the "
        "recorded shapes and types, convolutions by the taps inside the input as the study's "
        "own implementations count them; bytes the compulsory traffic at DRAM; views, "
        "allocations and dispatch have none. Each operator that ran a oneDNN primitive computes "
        "on the primitive's unit (data/onednn/units.json, from its implementation) and pays its "
        "execute: after a point's measured iterations the client runs the pass once more, "
        "untimed and unrecorded, with oneDNN verbose output on and sent to a file of its own, "
        "which is joined to the trace by shapes (`profile --torch --onednn-output`'s join); "
        "the other operators keep the cost model's unit (their data type's; fp32 for the "
        "elementwise work of bf16 and fp16 data, which torch computes in fp32: its 'opmath'). "
        "Conv2d backward: "
        "aten::convolution_backward with output_mask [input] (backward-data) or [weight, bias] "
        "(backward-weights); the LSTM's backward is torch's one autograd backward.",
        python, script, pts, th, warmup, iters);
}
