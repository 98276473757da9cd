/* Small ordered maps from names to strings (tags), names and values kept valid UTF-8. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/tag-map.h"
#include "rooftime/util/strings.h"

static rt_tag *tags_find(const rt_tags *ts, const char *key)
{
    for (size_t i = 0; i < ts->n; i++)
        if (rt_str_eq(ts->v[i].key, key))
            return &ts->v[i];
    return NULL;
}

/* key and value (valid UTF-8) in one block: the key first, the value after it; a tag costs one
 * allocation, not two, and its value sits beside its key (a million kernels' tags are looked up
 * key then value). Freeing the key frees both. */
static void tag_put(rt_tag *t, const char *key, const char *value)
{
    char *k = rt_utf8_valid(key) ? NULL : rt_strdup_utf8(key);
    char *v = !value || rt_utf8_valid(value) ? NULL : rt_strdup_utf8(value);
    const char *ks = k ? k : key, *vs = v ? v : value;
    size_t kl = strlen(ks) + 1, vl = vs ? strlen(vs) + 1 : 0;
    char *b = rt_xmalloc(kl + vl);
    memcpy(b, ks, kl);
    if (vs)
        memcpy(b + kl, vs, vl);
    free(k);
    free(v);
    t->key = b;
    t->value = vs ? b + kl : NULL;
}

void rt_tags_borrow(rt_tags *ts, rt_tag *v, size_t n)
{
    ts->v = n ? v : NULL;
    ts->n = n;
    ts->cap = 0;
}

/* A borrowed map (entries, no capacity) becomes its own: its array and strings copied. */
static void tags_own(rt_tags *ts)
{
    if (ts->cap || !ts->n)
        return;
    const rt_tag *lent = ts->v;
    ts->cap = ts->n;
    ts->v = rt_xmalloc(ts->cap * sizeof *ts->v);
    for (size_t i = 0; i < ts->n; i++)
        tag_put(&ts->v[i], lent[i].key, lent[i].value);
}

void rt_tags_set(rt_tags *ts, const char *key, const char *value)
{
    tags_own(ts);
    rt_tag *t = tags_find(ts, key);
    if (t) {
        char *old = t->key;
        tag_put(t, old, value);
        free(old);
        return;
    }
    if (ts->n == ts->cap) {
        ts->cap = ts->cap ? 2 * ts->cap : 4;
        ts->v = rt_xrealloc(ts->v, ts->cap * sizeof *ts->v);
    }
    tag_put(&ts->v[ts->n++], key, value);
}

const char *rt_tags_get(const rt_tags *ts, const char *key)
{
    const rt_tag *t = tags_find(ts, key);
    return t ? t->value : NULL;
}

void rt_tags_copy(rt_tags *dst, const rt_tags *src)
{
    for (size_t i = 0; i < src->n; i++)
        rt_tags_set(dst, src->v[i].key, src->v[i].value);
}

static bool skipped(const char *key, const char *const *skip)
{
    for (; skip && *skip; skip++)
        if (strcmp(key, *skip) == 0)
            return true;
    return false;
}

char *rt_tags_text(const rt_tags *ts, const char *const *skip)
{
    size_t len = 1;
    for (size_t i = 0; i < ts->n; i++)
        len += strlen(ts->v[i].key) + strlen(ts->v[i].value) + 2;
    char *s = rt_xmalloc(len), *e = s;
    *e = '\0';
    for (size_t i = 0; i < ts->n; i++) {
        if (skipped(ts->v[i].key, skip))
            continue;
        size_t k = strlen(ts->v[i].key), v = strlen(ts->v[i].value);
        if (e != s)
            *e++ = ' ';
        memcpy(e, ts->v[i].key, k);
        e += k;
        *e++ = '=';
        memcpy(e, ts->v[i].value, v);
        e += v;
        *e = '\0';
    }
    return s;
}

void rt_tags_release(rt_tags *ts)
{
    if (!ts->cap) { /* empty, or borrowed: nothing is its own */
        memset(ts, 0, sizeof *ts);
        return;
    }
    for (size_t i = 0; i < ts->n; i++)
        free(ts->v[i].key); /* and the value beside it */
    free(ts->v);
    memset(ts, 0, sizeof *ts);
}
