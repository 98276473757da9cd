/* Small shared helpers: strings, numbers, atomic file output. */
#ifndef ROOFTIME_UTIL_H
#define ROOFTIME_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rooftime/error.h"

/* strdup that aborts on out-of-memory (the only allocation policy of the library). */
char *rt_strdup(const char *s);
char *rt_strndup(const char *s, size_t n);
/* malloc/calloc/realloc that abort on out-of-memory. */
void *rt_xmalloc(size_t n);
void *rt_xcalloc(size_t n, size_t size);
void *rt_xrealloc(void *p, size_t n);
/* Heap string from a printf format. */
char *rt_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parse a whole string as a finite double; returns false on junk or overflow. */
bool rt_parse_double(const char *s, double *out);

/*
 * Atomic output: rt_atomic_open creates "<path>.tmp.XXXXXX" beside path and
 * returns it open for writing; rt_atomic_commit closes it and renames it over
 * path (fails if any write failed); rt_atomic_abort closes and removes it.
 * So a failed run never leaves a partial file under the final name.
 */
typedef struct rt_atomic_file {
    FILE *fp;
    char *path;
    char *tmp;
} rt_atomic_file;

int rt_atomic_open(rt_atomic_file *af, const char *path, rt_error *err);
int rt_atomic_commit(rt_atomic_file *af, rt_error *err);
void rt_atomic_abort(rt_atomic_file *af);
/* Write a whole buffer atomically. */
int rt_write_file_atomic(const char *path, const void *data, size_t n, rt_error *err);

/* Make a directory and its parents (like mkdir -p). */
int rt_mkdir_p(const char *path, rt_error *err);

/* Directory holding the shipped data files (machines/, ncu/ ...): $ROOFTIME_DATADIR, else the
 * source tree's data/ when run from a build tree, else the installed share directory. */
const char *rt_datadir(void);

/* Write s escaped for HTML and XML text and attributes (&, <, >, quotes; control characters
 * become spaces): kernel names carry <, > and &. */
void rt_html_escape(FILE *fp, const char *s);

/* Monotonic clock in seconds. */
double rt_now(void);

#endif
