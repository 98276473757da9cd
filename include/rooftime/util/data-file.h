/* The one loader of rooftime's data files (data-file.c): the shipped ones under rt_datadir()
 * (ncu/metrics.json, onednn/cost.json, onednn/verbose-formats.json, onednn/units.json,
 * torch/ops.json, torch/hints.json, verdict-hints.json, comm/kernels.json, gpu/architectures.json,
 * machines/) and a user's file given in their place.
 * Bounded (RT_MAX_DATA_FILE), read like every input (a directory, a FIFO, a NUL byte are named),
 * parsed with duplicate keys refused, the schema checked; every error starts "cannot read 'PATH':"
 * and names the line and column, or the JSON path of the field (rt_jr of json-read.h). */
#ifndef ROOFTIME_UTIL_DATA_FILE_H
#define ROOFTIME_UTIL_DATA_FILE_H

#include <jansson.h>
#include <stddef.h>

#include "rooftime/util/error.h"
#include "rooftime/util/json-read.h"

/* The largest data file rooftime reads: 64 MiB (the shipped ones are under 100 KiB). */
#define RT_MAX_DATA_FILE ((size_t)64 << 20)

/* A data file, loaded. */
typedef struct rt_data_file {
    char *path;   /* the file read: the one given, or the shipped one under rt_datadir() */
    char *label;  /* how a profile names it (rt_data_file_label of datadir.h) */
    json_t *root; /* its document (an object) */
    char *text;   /* its text, kept so that a reader's field errors name their line */
    size_t len;
} rt_data_file;

/*
 * Load path, or when path is NULL the shipped file shipped ("torch/ops.json") under rt_datadir().
 * The root must be an object whose "schema" member equals schema (NULL: not checked). Returns 0,
 * or -1 with err set ("cannot read 'PATH': line L, column C: ..." or "cannot read 'PATH': field
 * 'schema': ..."); f is then released. f owns what it holds: rt_data_file_release.
 */
int rt_data_file_load(rt_data_file *f, const char *path, const char *shipped, const char *schema,
                      rt_error *err);
/* The document as its readers name it: the file's path, with its text for field errors' lines. */
rt_json_src rt_data_file_src(const rt_data_file *f);
/* Free what f holds and zero it; a zeroed f is a no-op. */
void rt_data_file_release(rt_data_file *f);

#endif
