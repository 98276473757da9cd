/* PyTorch profiler chrome traces into a profile (torch.c). */
#ifndef ROOFTIME_IMPORT_TORCH_H
#define ROOFTIME_IMPORT_TORCH_H

#include <stddef.h>
#include <sys/types.h>
#include "rooftime/core/profile.h"
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

#endif
