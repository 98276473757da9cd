/* Private to formats: saving JSON files and keeping unknown members (json-write.c); reading with
 * errors that name the file and the field is util's (rooftime/util/json-read.h). */
#ifndef ROOFTIME_FORMATS_JSON_WRITE_H
#define ROOFTIME_FORMATS_JSON_WRITE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "rooftime/util/error.h"
#include "rooftime/util/json-read.h"

/* Serialize j atomically to path, pretty-printed with sorted keys off (insertion order). */
int rt_json_save_file(const json_t *j, const char *path, rt_error *err);

/* Unknown members kept as opaque JSON text in the core objects: the text of extra (stolen; NULL
 * stays NULL), and that text parsed back (a new reference, or NULL). */
char *rt_json_opaque_text(json_t *extra);
json_t *rt_json_opaque_parse(const char *text);
/* Members of obj not named in known[] (NULL-terminated), copied into a new object (NULL if none).
 */
json_t *rt_json_extra(const json_t *obj, const char *const *known);
/* Copy every member of extra into obj (used when saving). */
void rt_json_merge_extra(json_t *obj, const json_t *extra);

/*
 * A document of one object written as json_dumpf writes it with `flags` (JSON_INDENT(2) among
 * them), byte for byte, but a member at a time, and a list member's elements a block at a time,
 * built and dumped on this machine's processors: a million kernels' document never stands whole
 * in memory. A member's value is dumped and released (NULL: an error, kept for
 * rt_json_stream_end). Write errors and failed dumps are reported by rt_json_stream_end: 0, or -1.
 */
typedef struct rt_json_stream {
    FILE *fp;
    size_t flags;
    int members, rc;
} rt_json_stream;
/* Element i of a list, a new reference (NULL: an error); called on several threads at once, so
 * it may only read what it shares. */
typedef json_t *(*rt_json_make_fn)(void *ctx, size_t i);
void rt_json_stream_begin(rt_json_stream *s, FILE *fp, size_t flags);
void rt_json_stream_member(rt_json_stream *s, const char *key, json_t *v);
/* Every member of obj, in its order (obj is not released). */
void rt_json_stream_members(rt_json_stream *s, const json_t *obj);
/* A member that is a list of the n elements make(ctx, 0 .. n - 1), written in order. */
void rt_json_stream_list(rt_json_stream *s, const char *key, size_t n, rt_json_make_fn make,
                         void *ctx);
/* The same, each element written by emit(ctx, i, w) through the writer w (json-emit.h: nesting
 * level 2, the stream's precision) instead of built as a tree: several times faster for long lists
 * of small objects. */
struct rt_jw;
typedef void (*rt_json_emit_fn)(void *ctx, size_t i, struct rt_jw *w);
void rt_json_stream_list_emit(rt_json_stream *s, const char *key, size_t n, rt_json_emit_fn emit,
                              void *ctx);
int rt_json_stream_end(rt_json_stream *s);

/* JSON number that stays exact for integers and round-trips doubles. */
json_t *rt_json_num(double v);

#endif
