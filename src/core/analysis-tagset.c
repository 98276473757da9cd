/* Tag sets as keys: hashing, equality with the family parameter left out, and the open-addressed
 * table that groups an analysis's items into configs and its configs into families. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis-tagset.h"
#include "rooftime/util/strings.h"

int rt_tagset_in_list(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (rt_str_eq(list[i], s))
            return 1;
    return 0;
}

int rt_tagset_family_tag(const char *k, const char *param, const rt_group_opts *o)
{
    return !rt_str_eq(k, param) && !(o && rt_tagset_in_list(o->ignore, o->n_ignore, k));
}

/* A tag set hashes as its keys and values in order, except the one tag skip names (or none) and
 * the ignored ones; FNV-1a over the bytes with the NULs as separators. */
uint64_t rt_tagset_hash(const rt_tags *t, const char *skip, const rt_group_opts *o)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < t->n; i++) {
        if (skip && !rt_tagset_family_tag(t->v[i].key, skip, o))
            continue;
        for (int part = 0; part < 2; part++) {
            const unsigned char *c = (const unsigned char *)(part ? t->v[i].value : t->v[i].key);
            for (;; c++) {
                h = (h ^ *c) * 1099511628211ull;
                if (!*c)
                    break;
            }
        }
    }
    return h ^ (h >> 32);
}

bool rt_tagset_same(const rt_tags *a, const rt_tags *b, const char *skip, const rt_group_opts *o)
{
    size_t i = 0, j = 0;
    for (;;) {
        while (skip && i < a->n && !rt_tagset_family_tag(a->v[i].key, skip, o))
            i++;
        while (skip && j < b->n && !rt_tagset_family_tag(b->v[j].key, skip, o))
            j++;
        if (i == a->n || j == b->n)
            return i == a->n && j == b->n;
        if (!rt_str_eq(a->v[i].key, b->v[j].key) || !rt_str_eq(a->v[i].value, b->v[j].value))
            return false;
        i++, j++;
    }
}

void rt_tagset_table_init(rt_tagset_table *tt, size_t n)
{
    size_t ns = 64;
    while (ns < 2 * n)
        ns *= 2;
    tt->slot = rt_xcalloc(ns, sizeof *tt->slot);
    tt->hash = rt_xcalloc(n ? n : 1, sizeof *tt->hash);
    tt->mask = ns - 1;
}

void rt_tagset_table_release(rt_tagset_table *tt)
{
    free(tt->slot);
    free(tt->hash);
}

/* The slot of the record with hash h that same() accepts, or the empty slot where it goes. */
size_t rt_tagset_table_find(const rt_tagset_table *tt, uint64_t h, rt_tagset_same_fn same,
                            const void *ctx)
{
    size_t j = (size_t)h & tt->mask;
    while (tt->slot[j] && !(tt->hash[tt->slot[j] - 1] == h && same(ctx, tt->slot[j] - 1)))
        j = (j + 1) & tt->mask;
    return j;
}
