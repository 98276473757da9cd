/* Importers for what frameworks print: oneDNN verbose logs and PyTorch profiler traces. */
#ifndef ROOFTIME_IMPORT_FRAMEWORKS_H
#define ROOFTIME_IMPORT_FRAMEWORKS_H

#include <stddef.h>
#include <sys/types.h>

#include "rooftime/error.h"
#include "rooftime/profile.h"

/* ---- oneDNN verbose logs (ONEDNN_VERBOSE=1 / DNNL_VERBOSE=1), oneDNN 2.x and 3.x ---- */

/*
 * A line-at-a-time reader, so a log can be read from a file or from a running command's pipe.
 * One kernel per primitive kind + implementation + propagation + data types + problem shape;
 * invocations and time summed; FLOPs from the problem descriptor; bytes = compulsory traffic
 * of the memory descriptors (level "DRAM"). Lines it cannot read are counted and reported.
 */
typedef struct rt_onednn_reader rt_onednn_reader;

/* origin names the input in messages (a file name, or "the command's output"). */
rt_onednn_reader *rt_onednn_reader_new(const char *origin);
void rt_onednn_reader_free(rt_onednn_reader *r);
/* Offset of the verbose marker (onednn_verbose, dnnl_verbose, mkldnn_verbose) in the line, or -1.
 * Text before the marker is the program's own output that shared the line. */
ssize_t rt_onednn_marker(const char *line, size_t len);
/* Read one line (without its newline); lines without a marker are other output and ignored. */
void rt_onednn_reader_line(rt_onednn_reader *r, const char *line, size_t len);
/* Execution records read so far. */
size_t rt_onednn_reader_n_exec(const rt_onednn_reader *r);
/* Build the profile (caller frees it). Unreadable lines become warnings naming their lines.
 * Fails when the input held no execution record. The reader stays owned by the caller. */
int rt_onednn_reader_finish(rt_onednn_reader *r, rt_profile **out, rt_warnings *w, rt_error *err);

/* Whole-file and in-memory forms. */
int rt_import_onednn(const char *path, rt_profile **out, rt_warnings *w, rt_error *err);
int rt_import_onednn_text(const char *text, size_t len, const char *origin, rt_profile **out,
                          rt_warnings *w, rt_error *err);

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
