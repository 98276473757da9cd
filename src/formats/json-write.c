/* The formats wing's side of JSON: saving a document atomically, writing a long one a member and
 * a list element at a time, the members rooftime does not know kept as opaque text, and numbers
 * that round-trip. Reading is util's (json-read.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json-emit.h"
#include "json-write.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/error.h"
#include "rooftime/util/parallel.h"
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

static int stream_prec(const rt_json_stream *s)
{
    int prec = (int)((s->flags >> 11) & 0x1F); /* JSON_REAL_PRECISION's bits */
    return prec ? prec : 17;
}

/* The next member's key, escaped as jansson escapes it. */
static void member_key(rt_json_stream *s, const char *key)
{
    fputs(s->members++ ? ",\n  " : "\n  ", s->fp);
    rt_jw w;
    rt_jw_begin(&w, s->fp, 1, stream_prec(s));
    rt_jw_string(&w, key);
    s->rc |= rt_jw_end(&w);
    fputs(": ", s->fp);
}

void rt_json_stream_begin(rt_json_stream *s, FILE *fp, size_t flags)
{
    *s = (rt_json_stream){.fp = fp, .flags = flags};
    fputc('{', fp);
}

void rt_json_stream_member(rt_json_stream *s, const char *key, json_t *v)
{
    member_key(s, key);
    rt_jw w;
    rt_jw_begin(&w, s->fp, 1, stream_prec(s));
    rt_jw_json(&w, v);
    s->rc |= rt_jw_end(&w);
}

void rt_json_stream_members(rt_json_stream *s, const json_t *obj)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v)
    {
        rt_json_stream_member(s, key, json_incref(v));
    }
}

/* Elements per worker and round: a round's text (about 2 KB an analysis's kernel) is held. */
enum { ITEMS_BLOCK = 2048 };

typedef struct emit_job {
    rt_json_emit_fn emit;
    void *ctx;
    int prec;
} emit_job;

/* Elements [begin, end) through the writer, each after its separator (rt_parallel_write_fn). */
static int emit_part(void *arg, size_t begin, size_t end, FILE *out)
{
    const emit_job *j = arg;
    int rc = 0;
    rt_jw *w = rt_xmalloc(sizeof *w);
    for (size_t i = begin; i < end; i++) {
        fputs(i ? ",\n    " : "\n    ", out);
        rt_jw_begin(w, out, 2, j->prec);
        j->emit(j->ctx, i, w);
        rc |= rt_jw_end(w);
    }
    free(w);
    return rc;
}

void rt_json_stream_list_emit(rt_json_stream *s, const char *key, size_t n, rt_json_emit_fn emit,
                              void *ctx)
{
    member_key(s, key);
    fputc('[', s->fp);
    emit_job j = {emit, ctx, stream_prec(s)};
    s->rc |= rt_parallel_write(s->fp, n, ITEMS_BLOCK, emit_part, &j);
    fputs(n ? "\n  ]" : "]", s->fp);
}

/* A list built a tree per element: each dumped by jansson where it stands (rt_json_emit_fn). */
typedef struct made_list {
    rt_json_make_fn make;
    void *ctx;
} made_list;

static void emit_made(void *arg, size_t i, rt_jw *w)
{
    const made_list *m = arg;
    rt_jw_json(w, m->make(m->ctx, i));
}

void rt_json_stream_list(rt_json_stream *s, const char *key, size_t n, rt_json_make_fn make,
                         void *ctx)
{
    made_list m = {make, ctx};
    rt_json_stream_list_emit(s, key, n, emit_made, &m);
}

int rt_json_stream_end(rt_json_stream *s)
{
    fputs(s->members ? "\n}\n" : "}\n", s->fp);
    return s->rc == 0 && !ferror(s->fp) ? 0 : -1;
}

json_t *rt_json_num(double v)
{
    if (rt_jw_whole(v))
        return json_integer((json_int_t)v);
    return json_real(v);
}
