/* The string map: byte-string keys -> numbers, open addressing over dense, ordered entries. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a, 8 bytes a step for long names */
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 1099511628211ull;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h ^ (h >> 32);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t find_slot(const rt_name_index *ix, const char *key, size_t len, uint64_t h)
{
    size_t j = (size_t)h & (ix->nslot - 1);
    while (ix->slot[j]) {
        size_t id = ix->slot[j] - 1;
        if (ix->hash[id] == h && ix->len[id] == len && memcmp(ix->key[id], key, len) == 0)
            break;
        j = (j + 1) & (ix->nslot - 1);
    }
    return j;
}

static void grow(rt_name_index *ix)
{
    size_t ns = ix->nslot ? 2 * ix->nslot : 64;
    size_t *s = rt_xcalloc(ns, sizeof *s);
    for (size_t i = 0; i < ix->n; i++) {
        size_t j = (size_t)ix->hash[i] & (ns - 1);
        while (s[j])
            j = (j + 1) & (ns - 1);
        s[j] = i + 1;
    }
    free(ix->slot);
    ix->slot = s;
    ix->nslot = ns;
}

size_t rt_name_index_get(const rt_name_index *ix, const char *key, size_t len)
{
    if (ix->nslot == 0)
        return (size_t)-1;
    size_t j = find_slot(ix, key, len, hash_bytes(key, len));
    return ix->slot[j] ? ix->val[ix->slot[j] - 1] : (size_t)-1;
}

/* The id of key, adding it (with value val) when new. */
static size_t lookup_or_add(rt_name_index *ix, const char *key, size_t len, size_t val, int *added)
{
    /* Keep the load factor under one half so probes stay short. */
    if (2 * (ix->n + 1) > ix->nslot)
        grow(ix);
    uint64_t h = hash_bytes(key, len);
    size_t j = find_slot(ix, key, len, h);
    *added = 0;
    if (ix->slot[j])
        return ix->slot[j] - 1;
    if (ix->n == ix->cap) {
        ix->cap = ix->cap ? 2 * ix->cap : 64;
        ix->key = rt_xrealloc(ix->key, ix->cap * sizeof *ix->key);
        ix->len = rt_xrealloc(ix->len, ix->cap * sizeof *ix->len);
        ix->hash = rt_xrealloc(ix->hash, ix->cap * sizeof *ix->hash);
        ix->val = rt_xrealloc(ix->val, ix->cap * sizeof *ix->val);
    }
    size_t id = ix->n++;
    ix->key[id] = rt_xmalloc(len + 1);
    memcpy(ix->key[id], key, len); /* all len bytes, NULs included */
    ix->key[id][len] = '\0';
    ix->len[id] = len;
    ix->hash[id] = h;
    ix->val[id] = val;
    ix->slot[j] = id + 1;
    *added = 1;
    return id;
}

void rt_name_index_put(rt_name_index *ix, const char *key, size_t len, size_t val)
{
    int added;
    size_t id = lookup_or_add(ix, key, len, val, &added);
    ix->val[id] = val;
}

size_t rt_name_index_intern(rt_name_index *ix, const char *key, size_t len)
{
    int added;
    return lookup_or_add(ix, key, len, ix->n, &added);
}

void rt_name_index_release(rt_name_index *ix)
{
    for (size_t i = 0; i < ix->n; i++)
        free(ix->key[i]);
    free(ix->key);
    free(ix->len);
    free(ix->hash);
    free(ix->val);
    free(ix->slot);
    memset(ix, 0, sizeof *ix);
}
