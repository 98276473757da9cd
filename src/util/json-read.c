/* Reading rooftime's JSON files: parse errors with line and column, field errors with their path.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "rooftime/util/json-read.h"
#include "rooftime/util/json-locate.h"
#include "rooftime/util/error.h"
#include "rooftime/util/read-file.h"
#include "rooftime/util/strings.h"

static const char *type_name(const json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "something else";
}

int rt_json_load_file(const char *path, json_t **out, rt_error *err)
{
    *out = NULL;
    char *buf;
    size_t len;
    if (rt_read_text_file(path, RT_MAX_TEXT_INPUT, &buf, &len, err) != 0)
        return -1;
    int rc = rt_json_load_text(buf, len, path, out, err);
    free(buf);
    return rc;
}

int rt_json_load_text(const char *buf, size_t len, const char *path, json_t **out, rt_error *err)
{
    *out = NULL;
    if (len == 0) {
        rt_error_set(err, "cannot read '%s': the file is empty", path);
        return -1;
    }
    json_error_t je;
    json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    if (!j) {
        if (je.line > 0)
            rt_error_set(err, "cannot read '%s': line %d, column %d: %s", path, je.line, je.column,
                         je.text);
        else
            rt_error_set(err, "cannot read '%s': %s", path, je.text);
        return -1;
    }
    *out = j;
    return 0;
}

void rt_jr_fail(rt_jr *r, const char *path, const char *key, const char *fmt, ...)
{
    char msg[1024], field[1024], where[64] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int w = key ? snprintf(field, sizeof field, "%s%s%s", path, *path ? "." : "", key)
                : snprintf(field, sizeof field, "%s", *path ? path : "(top)");
    /* A field too long to hold whole is looked for by its parent's path. */
    const char *find = w >= 0 && (size_t)w < sizeof field && (key || *path) ? field : path;
    size_t line, col;
    if (r->src.text && rt_json_locate(r->src.text, r->src.len, find, &line, &col) == 0)
        snprintf(where, sizeof where, "line %zu, column %zu: ", line, col);
    rt_error_set(r->err, "cannot read '%s': %sfield '%s': %s", r->src.name, where, field, msg);
}

/* The member key of obj, checked against a type: 1 found (*out set), 0 absent and optional (or
 * null, where null_absent), -1 missing or of another type (r's error set). */
static int member(rt_jr *r, const json_t *obj, const char *path, const char *key, bool required,
                  bool null_absent, int (*is)(const json_t *), const char *want, const json_t **out)
{
    const json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v || (null_absent && json_is_null(v))) {
        if (required) {
            rt_jr_fail(r, path, key, "missing");
            return -1;
        }
        return 0;
    }
    if (!is(v)) {
        rt_jr_fail(r, path, key, "expected %s, got %s", want, type_name(v));
        return -1;
    }
    *out = v;
    return 1;
}

static int is_string(const json_t *v)
{
    return json_is_string(v);
}
static int is_number(const json_t *v)
{
    return json_is_number(v);
}
static int is_array(const json_t *v)
{
    return json_is_array(v);
}
static int is_object(const json_t *v)
{
    return json_is_object(v);
}

int rt_jr_object(rt_jr *r, const json_t *j, const char *path)
{
    if (!json_is_object(j)) {
        rt_jr_fail(r, path, NULL, "expected an object, got %s", type_name(j));
        return -1;
    }
    return 0;
}

int rt_jr_string(rt_jr *r, const json_t *obj, const char *path, const char *key, bool required,
                 char **out)
{
    const json_t *v;
    int got = member(r, obj, path, key, required, true, is_string, "a string", &v);
    if (got > 0) {
        free(*out);
        *out = rt_strdup(json_string_value(v));
    }
    return got < 0 ? -1 : 0;
}

int rt_jr_number(rt_jr *r, const json_t *obj, const char *path, const char *key, bool required,
                 double min, double *out)
{
    const json_t *v;
    int got = member(r, obj, path, key, required, false, is_number, "a number", &v);
    if (got <= 0)
        return got;
    double d = json_number_value(v);
    if (!isfinite(d)) {
        rt_jr_fail(r, path, key, "not a finite number");
        return -1;
    }
    if (d < min) {
        rt_jr_fail(r, path, key, "%g is below the minimum %g", d, min);
        return -1;
    }
    *out = d;
    return 0;
}

int rt_jr_array(rt_jr *r, const json_t *obj, const char *path, const char *key, bool required,
                const json_t **out)
{
    return member(r, obj, path, key, required, false, is_array, "an array", out) < 0 ? -1 : 0;
}

int rt_jr_member_object(rt_jr *r, const json_t *obj, const char *path, const char *key,
                        bool required, const json_t **out)
{
    return member(r, obj, path, key, required, false, is_object, "an object", out) < 0 ? -1 : 0;
}

int rt_jr_schema(rt_jr *r, const json_t *obj, const char *want)
{
    char *got = NULL;
    if (rt_jr_string(r, obj, "", "schema", true, &got) != 0)
        return -1;
    /* "rooftime.machine/1": kind and major version must match. */
    int ok = strcmp(got, want) == 0;
    if (!ok)
        rt_jr_fail(r, "", "schema", "expected \"%s\", got \"%s\"", want, got);
    free(got);
    return ok ? 0 : -1;
}
