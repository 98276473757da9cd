/* Small ordered maps from names to numbers, names kept valid UTF-8. */
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/value-map.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"

/* Maps up to this size are scanned; a larger one gets its index. */
enum { VALUES_SCAN = 16 };

static rt_value *values_find(const rt_values *vs, const char *key)
{
    if (vs->ix) {
        size_t i = rt_name_index_get(vs->ix, key, strlen(key));
        return i == (size_t)-1 ? NULL : &vs->v[i];
    }
    for (size_t i = 0; i < vs->n; i++)
        if (rt_str_eq(vs->v[i].key, key))
            return &vs->v[i];
    return NULL;
}

/* Index entries up to i (all of them when the index is new); the first of equal keys wins, as
 * with the scan. */
static void values_index(rt_values *vs, size_t i)
{
    size_t from = i;
    if (!vs->ix) {
        if (vs->n <= VALUES_SCAN)
            return;
        vs->ix = rt_xcalloc(1, sizeof *vs->ix);
        from = 0;
    }
    for (size_t j = from; j <= i; j++) {
        size_t len = strlen(vs->v[j].key);
        if (rt_name_index_get(vs->ix, vs->v[j].key, len) == (size_t)-1)
            rt_name_index_put(vs->ix, vs->v[j].key, len, j);
    }
}

void rt_values_borrow(rt_values *vs, rt_value *v, size_t n)
{
    vs->v = n ? v : NULL;
    vs->n = n;
    vs->cap = 0;
    vs->ix = NULL;
    values_index(vs, n ? n - 1 : 0);
}

/* A borrowed map (entries, no capacity) becomes its own: its array and names copied. */
static void values_own(rt_values *vs)
{
    if (vs->cap || !vs->n)
        return;
    const rt_value *lent = vs->v;
    vs->cap = vs->n;
    vs->v = rt_xmalloc(vs->cap * sizeof *vs->v);
    for (size_t i = 0; i < vs->n; i++)
        vs->v[i] = (rt_value){.key = rt_strdup(lent[i].key), .value = lent[i].value};
    /* The index, if any, holds copies of the names and their places: it stays. */
}

static rt_value *values_slot(rt_values *vs, const char *key)
{
    values_own(vs);
    rt_value *v = values_find(vs, key);
    if (v)
        return v;
    if (vs->n == vs->cap) {
        vs->cap = vs->cap ? 2 * vs->cap : 4;
        vs->v = rt_xrealloc(vs->v, vs->cap * sizeof *vs->v);
    }
    v = &vs->v[vs->n++];
    v->key = rt_strdup_utf8(key);
    v->value = 0;
    values_index(vs, vs->n - 1);
    return v;
}

void rt_values_set(rt_values *vs, const char *key, double value)
{
    values_slot(vs, key)->value = value;
}

void rt_values_add(rt_values *vs, const char *key, double value)
{
    values_slot(vs, key)->value += value;
}

int rt_values_has(const rt_values *vs, const char *key)
{
    return values_find(vs, key) != NULL;
}

double rt_values_get(const rt_values *vs, const char *key, double dflt)
{
    const rt_value *v = values_find(vs, key);
    return v ? v->value : dflt;
}

double rt_values_sum(const rt_values *vs)
{
    double s = 0;
    for (size_t i = 0; i < vs->n; i++)
        s += vs->v[i].value;
    return s;
}

void rt_values_copy(rt_values *dst, const rt_values *src)
{
    for (size_t i = 0; i < src->n; i++)
        rt_values_set(dst, src->v[i].key, src->v[i].value);
}

void rt_values_release(rt_values *vs)
{
    for (size_t i = 0; vs->cap && i < vs->n; i++) /* a borrowed map's are the owner's */
        free(vs->v[i].key);
    if (vs->cap)
        free(vs->v);
    if (vs->ix) {
        rt_name_index_release(vs->ix);
        free(vs->ix);
    }
    memset(vs, 0, sizeof *vs);
}
