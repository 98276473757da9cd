/* The string map of rooftime (name-index.c): string -> number, open addressing, for code that
 * aggregates millions of records. Keys are byte strings (a NUL inside is part of the key). */
#ifndef ROOFTIME_UTIL_NAME_INDEX_H
#define ROOFTIME_UTIL_NAME_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct rt_name_index {
    char **key;  /* key[id]: a copy, NUL-terminated after its len bytes; ids in insertion order */
    size_t *len; /* its length in bytes */
    uint64_t *hash; /* its hash */
    size_t *val;    /* its value */
    size_t n, cap;
    size_t *slot; /* open addressing: id + 1, 0 = empty; nslot is a power of two (or 0) */
    size_t nslot;
} rt_name_index;

/* The value stored for key (len bytes, need not be NUL-terminated), or (size_t)-1. */
size_t rt_name_index_get(const rt_name_index *ix, const char *key, size_t len);
/* Store key -> val (the key is copied); replaces an existing value. */
void rt_name_index_put(rt_name_index *ix, const char *key, size_t len, size_t val);
/* The id of key (0, 1, 2 ... in order of first sight), adding it when new; its value is its id
 * unless rt_name_index_put changes it. */
size_t rt_name_index_intern(rt_name_index *ix, const char *key, size_t len);
/* The key with this id (valid until the map is released). */
static inline const char *rt_name_index_key(const rt_name_index *ix, size_t id)
{
    return ix->key[id];
}
void rt_name_index_release(rt_name_index *ix);

#endif
