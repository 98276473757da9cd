/* Small ordered maps from names to strings (tag-map.c): a kernel's or a profile's tags. Setters
 * keep names and values valid UTF-8. Tag maps stay small (RT_MAX_TAGS) and are scanned. */
#ifndef ROOFTIME_CORE_TAG_MAP_H
#define ROOFTIME_CORE_TAG_MAP_H

#include <stddef.h>

/* A small ordered map from names to strings (tags). */
typedef struct rt_tag {
    char *key; /* owned: one block with the value (rt_tags_set makes it, freeing key frees both) */
    char *value; /* inside key's block */
} rt_tag;
typedef struct rt_tags {
    rt_tag *v;
    size_t n, cap;
} rt_tags;

void rt_tags_set(rt_tags *ts, const char *key, const char *value);
const char *rt_tags_get(const rt_tags *ts, const char *key);
void rt_tags_copy(rt_tags *dst, const rt_tags *src);
void rt_tags_release(rt_tags *ts);
/* "k=v k=v" in the tags' order, leaving out the keys of skip (a NULL-terminated list, or NULL);
 * malloc'ed. */
char *rt_tags_text(const rt_tags *ts, const char *const *skip);

#endif
