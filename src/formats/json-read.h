/* Private helpers for reading rooftime's JSON files with errors that name the file and the field.
 */
#ifndef ROOFTIME_JSON_READ_H
#define ROOFTIME_JSON_READ_H

#include <jansson.h>
#include <stdbool.h>

#include "rooftime/util/error.h"

/* Parse a JSON file; errors carry "cannot read 'PATH': line L, column C: ...". */
int rt_json_load_file(const char *path, json_t **out, rt_error *err);
/* The same for a file's text already read (len bytes; path names it in errors). */
int rt_json_load_text(const char *buf, size_t len, const char *path, json_t **out, rt_error *err);
/* Serialize j atomically to path, pretty-printed with sorted keys off (insertion order). */
int rt_json_save_file(const json_t *j, const char *path, rt_error *err);

/* A reader bound to one file: every error is "cannot read 'ORIGIN': field 'PATH.KEY': ...". */
typedef struct rt_jr {
    const char *origin;
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

/* Unknown members kept as opaque JSON text in the core objects: the text of extra (stolen; NULL
 * stays NULL), and that text parsed back (a new reference, or NULL). */
char *rt_json_opaque_text(json_t *extra);
json_t *rt_json_opaque_parse(const char *text);
/* Members of obj not named in known[] (NULL-terminated), copied into a new object (NULL if none).
 */
json_t *rt_json_extra(const json_t *obj, const char *const *known);
/* Copy every member of extra into obj (used when saving). */
void rt_json_merge_extra(json_t *obj, const json_t *extra);

/* JSON number that stays exact for integers and round-trips doubles. */
json_t *rt_json_num(double v);

#endif
