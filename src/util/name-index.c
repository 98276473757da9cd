/* A string -> index hash map (open addressing, FNV-1a) used by the framework importers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t find_slot(char *const *keys, size_t cap, const char *key, size_t len)
{
    size_t i = (size_t)hash_bytes(key, len) & (cap - 1);
    while (keys[i] && !(strncmp(keys[i], key, len) == 0 && keys[i][len] == '\0'))
        i = (i + 1) & (cap - 1);
    return i;
}

size_t rt_name_index_get(const rt_name_index *ix, const char *key, size_t len)
{
    if (ix->cap == 0)
        return (size_t)-1;
    size_t i = find_slot(ix->keys, ix->cap, key, len);
    return ix->keys[i] ? ix->vals[i] : (size_t)-1;
}

static void grow(rt_name_index *ix)
{
    size_t cap = ix->cap ? 2 * ix->cap : 64;
    char **keys = rt_xcalloc(cap, sizeof *keys);
    size_t *vals = rt_xcalloc(cap, sizeof *vals);
    for (size_t i = 0; i < ix->cap; i++) {
        if (!ix->keys[i])
            continue;
        size_t j = find_slot(keys, cap, ix->keys[i], strlen(ix->keys[i]));
        keys[j] = ix->keys[i];
        vals[j] = ix->vals[i];
    }
    free(ix->keys);
    free(ix->vals);
    ix->keys = keys;
    ix->vals = vals;
    ix->cap = cap;
}

void rt_name_index_put(rt_name_index *ix, const char *key, size_t len, size_t val)
{
    /* Keep the load factor under one half so probes stay short. */
    if (2 * (ix->n + 1) > ix->cap)
        grow(ix);
    size_t i = find_slot(ix->keys, ix->cap, key, len);
    if (!ix->keys[i]) {
        ix->keys[i] = rt_strndup(key, len);
        ix->n++;
    }
    ix->vals[i] = val;
}

void rt_name_index_release(rt_name_index *ix)
{
    for (size_t i = 0; i < ix->cap; i++)
        free(ix->keys[i]);
    free(ix->keys);
    free(ix->vals);
    memset(ix, 0, sizeof *ix);
}
