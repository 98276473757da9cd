/* PyTorch profiler chrome traces into a profile (torch.c). */
#ifndef ROOFTIME_IMPORT_TORCH_H
#define ROOFTIME_IMPORT_TORCH_H

#include <stddef.h>
#include <sys/types.h>
#include "rooftime/core/comm.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/torch-cost.h"
#include "rooftime/util/error.h"

/* ---- PyTorch profiler chrome traces (torch.profiler ... export_chrome_trace) ---- */

/*
 * Either a bare array of events or {"traceEvents": [...]}. CPU operators (cat "cpu_op" or
 * "Operator") become kernels named by operator (+ input shapes when recorded), timed by self
 * time (duration minus the children on the same thread) so nothing is counted twice; GPU kernels
 * (cat "kernel"/"Kernel") become kernels with their launch counts; FLOPs from args "flops".
 */
/* within: when not NULL, only operators and kernels inside ranges with this name (e.g. a
 * record_function("rooftime:measured") around the measured iterations) on the same thread. */
int rt_import_torch(const char *path, const char *within, rt_profile **out, rt_warnings *w,
                    rt_error *err);
int rt_import_torch_text(const char *text, size_t len, const char *origin, const char *within,
                         rt_profile **out, rt_warnings *w, rt_error *err);

/* What the cost-model import does beyond rt_import_torch. */
typedef struct rt_torch_options {
    const char *within;      /* as rt_import_torch's */
    const rt_torch_ops *ops; /* cost model: FLOPs and bytes from shapes; NULL: args.flops only */
    rt_conv_flops conv;      /* convolution and pooling FLOP convention */
    int by_source;           /* kernels per source line and nn.Module ("Call stack"), as tags */
    const char *origin; /* what messages call the trace (rt_import_torch_opts; NULL: its path) */
    /* A trace with GPU kernels is imported as its device profile (below); host: its host
     * operators by self time instead, as a trace of the CPU alone is. */
    int host;
    /* Communication kernels (data/comm/kernels.json): no operator's work goes to them, and the
     * coverage counts their time apart; NULL: every kernel is computation. */
    const rt_comm_patterns *comm;
} rt_torch_options;

/*
 * With a cost model, each operator call gets FLOPs and bytes (level DRAM) from its recorded
 * shapes, types and concrete arguments; the innermost working operator of a subtree keeps them (a
 * composite such as aten::linear hands them to the aten::addmm it calls). args.flops is not
 * added (it serves only to size a convolution's output under the window convention). The
 * provenance notes say what share of the operators' self time has FLOPs or bytes, what is views,
 * allocations and dispatch, and which operators are uncovered with their share.
 */
int rt_import_torch_opts(const char *path, const rt_torch_options *o, rt_profile **out,
                         rt_warnings *w, rt_error *err);
int rt_import_torch_text_opts(const char *text, size_t len, const char *origin,
                              const rt_torch_options *o, rt_profile **out, rt_warnings *w,
                              rt_error *err);

/* Join the oneDNN profile of the same run (`profile --torch --onednn-output`) to the PyTorch one
 * by shapes: each oneDNN convolution gets the tag 'caller' (the aten operator, its source line and
 * module) and the operator the tag 'onednn' (the implementation); each reorder whose dimensions
 * are a joined convolution's source, destination or weights gets that convolution's caller. A
 * note in both profiles says how much was joined. Shapes alone cannot tell apart two
 * convolutions of equal shapes and different strides: the one with the most time is named. */
void rt_torch_join_onednn(rt_profile *torch, rt_profile *dnn);

#endif
