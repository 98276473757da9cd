/* oneDNN verbose logs (ONEDNN_VERBOSE=1 / DNNL_VERBOSE=1) into a profile (onednn.c). */
#ifndef ROOFTIME_IMPORT_ONEDNN_H
#define ROOFTIME_IMPORT_ONEDNN_H

#include <stddef.h>
#include <sys/types.h>
#include "rooftime/core/profile.h"
#include "rooftime/import/conv-flops.h"
#include "rooftime/util/error.h"

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
/* Convolution and pooling FLOPs: taps inside the input (the default) or the whole window. */
void rt_onednn_reader_set_conv_flops(rt_onednn_reader *r, rt_conv_flops conv);
void rt_onednn_reader_free(rt_onednn_reader *r);
/* Offset of the verbose marker (onednn_verbose, dnnl_verbose, mkldnn_verbose: the markers of
 * data/onednn/verbose-formats.json, followed by a comma) in the line, or -1. Text before the
 * marker is the program's own output that shared the line. */
ssize_t rt_onednn_marker(const rt_onednn_reader *r, const char *line, size_t len);
/* Read one line (without its newline); lines without a marker are other output and ignored. */
void rt_onednn_reader_line(rt_onednn_reader *r, const char *line, size_t len);
/* The input's last line, with no newline after it: a record there was cut short (oneDNN ends each
 * with one), so it is reported by number and not read; other output is ignored as above. */
void rt_onednn_reader_last_line(rt_onednn_reader *r, const char *line, size_t len);
/* Execution records read so far. */
size_t rt_onednn_reader_n_exec(const rt_onednn_reader *r);
/* Build the profile (caller frees it). Unreadable lines become warnings naming their lines.
 * Fails when the input held no execution record. The reader stays owned by the caller. */
int rt_onednn_reader_finish(rt_onednn_reader *r, rt_profile **out, rt_warnings *w, rt_error *err);

/* Whole-file and in-memory forms. */
int rt_import_onednn(const char *path, rt_profile **out, rt_warnings *w, rt_error *err);
int rt_import_onednn_conv(const char *path, rt_conv_flops conv, rt_profile **out, rt_warnings *w,
                          rt_error *err);
int rt_import_onednn_text(const char *text, size_t len, const char *origin, rt_profile **out,
                          rt_warnings *w, rt_error *err);

#endif
