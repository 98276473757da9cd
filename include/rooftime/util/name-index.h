/* A string -> index hash map (name-index.c), for code that aggregates millions of records. */
#ifndef ROOFTIME_UTIL_NAME_INDEX_H
#define ROOFTIME_UTIL_NAME_INDEX_H

#include <stddef.h>

typedef struct rt_name_index {
    char **keys;
    size_t *vals;
    size_t n, cap; /* cap is a power of two (or 0) */
} rt_name_index;

/* The value stored for key (len bytes, need not be NUL-terminated), or (size_t)-1. */
size_t rt_name_index_get(const rt_name_index *ix, const char *key, size_t len);
/* Store key -> val (the key is copied); replaces an existing value. */
void rt_name_index_put(rt_name_index *ix, const char *key, size_t len, size_t val);
void rt_name_index_release(rt_name_index *ix);

#endif
