/* Small ordered maps from names to strings (tags), names and values kept valid UTF-8. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/tag-map.h"
#include "rooftime/util/strings.h"

static rt_tag *tags_find(const rt_tags *ts, const char *key)
{
    for (size_t i = 0; i < ts->n; i++)
        if (strcmp(ts->v[i].key, key) == 0)
            return &ts->v[i];
    return NULL;
}

void rt_tags_set(rt_tags *ts, const char *key, const char *value)
{
    rt_tag *t = tags_find(ts, key);
    if (t) {
        free(t->value);
        t->value = rt_strdup_utf8(value);
        return;
    }
    if (ts->n == ts->cap) {
        ts->cap = ts->cap ? 2 * ts->cap : 4;
        ts->v = rt_xrealloc(ts->v, ts->cap * sizeof *ts->v);
    }
    t = &ts->v[ts->n++];
    t->key = rt_strdup_utf8(key);
    t->value = rt_strdup_utf8(value);
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
    for (size_t i = 0; i < ts->n; i++) {
        free(ts->v[i].key);
        free(ts->v[i].value);
    }
    free(ts->v);
    memset(ts, 0, sizeof *ts);
}
