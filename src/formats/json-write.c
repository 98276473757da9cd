/* The formats wing's side of JSON: saving a document atomically, the members rooftime does not
 * know kept as opaque text, and numbers that round-trip. Reading is util's (json-read.c). */
#include <math.h>
#include <string.h>

#include "json-write.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

int rt_json_save_file(const json_t *j, const char *path, rt_error *err)
{
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    if (!s) {
        rt_error_set(err, "cannot write '%s': JSON encoding failed", path);
        return -1;
    }
    size_t n = strlen(s);
    char *t = rt_xmalloc(n + 2);
    memcpy(t, s, n);
    t[n] = '\n';
    free(s);
    int rc = rt_write_file_atomic(path, t, n + 1, err);
    free(t);
    return rc;
}

json_t *rt_json_extra(const json_t *obj, const char *const *known)
{
    json_t *extra = NULL;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v)
    {
        int k = 0;
        for (const char *const *p = known; *p; p++)
            if (strcmp(*p, key) == 0)
                k = 1;
        if (k)
            continue;
        if (!extra)
            extra = json_object();
        json_object_set(extra, key, v);
    }
    return extra;
}

char *rt_json_opaque_text(json_t *extra)
{
    if (!extra)
        return NULL;
    char *s = json_dumps(extra, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(extra);
    return s;
}

json_t *rt_json_opaque_parse(const char *text)
{
    return text ? json_loads(text, 0, NULL) : NULL;
}

void rt_json_merge_extra(json_t *obj, const json_t *extra)
{
    if (!extra)
        return;
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)extra, key, v)
    {
        if (!json_object_get(obj, key))
            json_object_set(obj, key, v);
    }
}

json_t *rt_json_num(double v)
{
    if (v == floor(v) && fabs(v) < 9.0e15)
        return json_integer((json_int_t)v);
    return json_real(v);
}
