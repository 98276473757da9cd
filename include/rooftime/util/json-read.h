/* Reading rooftime's JSON files (json-read.c): parse errors with line and column, field errors
 * with their JSON path, so that every wing reading a data file or a document says where it went
 * wrong. util is the one wing every reader may call; the core, which knows no file format, uses
 * none of it (tests/wing-boundaries.sh). */
#ifndef ROOFTIME_UTIL_JSON_READ_H
#define ROOFTIME_UTIL_JSON_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "rooftime/util/error.h"

/* Parse a JSON file; errors carry "cannot read 'PATH': line L, column C: ...". */
int rt_json_load_file(const char *path, json_t **out, rt_error *err);
/* The same for a file's text already read (len bytes; path names it in errors). */
int rt_json_load_text(const char *buf, size_t len, const char *path, json_t **out, rt_error *err);

/* A parsed document's name in errors and, while its reader still holds it, its text (NULL: none,
 * a document built in memory): a field error then names the line and column where the field is
 * (json-locate.h). */
typedef struct rt_json_src {
    const char *name;
    const char *text;
    size_t len;
} rt_json_src;
/* A document known by its name alone. */
#define RT_JSON_NAMED(n) (&(rt_json_src){.name = (n)})

/* A reader bound to one document: every error is "cannot read 'NAME': line L, column C: field
 * 'PATH.KEY': ..." (without the line and column when the text is not at hand). */
typedef struct rt_jr {
    rt_json_src src;
    rt_error *err;
} rt_jr;

/* Each returns 0, or -1 with err set. `path` is the JSON path of obj ("" for the root). */
int rt_jr_object(rt_jr *r, const json_t *j, const char *path);
int rt_jr_string(rt_jr *r, const json_t *obj, const char *path, const char *key, bool required,
                 char **out);
/* A finite number >= min (use -INFINITY for no lower bound). Absent and not required: *out
 * untouched. */
int rt_jr_number(rt_jr *r, const json_t *obj, const char *path, const char *key, bool required,
                 double min, double *out);
/* An array member (absent and not required: *out = NULL). */
int rt_jr_array(rt_jr *r, const json_t *obj, const char *path, const char *key, bool required,
                const json_t **out);
/* An optional object member (NULL when absent). */
int rt_jr_member_object(rt_jr *r, const json_t *obj, const char *path, const char *key,
                        bool required, const json_t **out);
/* Check the "schema" member equals want (major version must match). */
int rt_jr_schema(rt_jr *r, const json_t *obj, const char *want);
/* Set an error about one field. */
void rt_jr_fail(rt_jr *r, const char *path, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
