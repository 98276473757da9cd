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
    size_t n, cap; /* n > 0 with cap 0: borrowed (rt_tags_borrow) */
} rt_tags;

/* ts (empty) borrows the n tags at v: the array and the strings stay their owner's (a loaded
 * profile's arena, which outlives ts) and are read in place. The first change through
 * rt_tags_set copies them into ts's own; rt_tags_release frees nothing of a borrowed map. */
void rt_tags_borrow(rt_tags *ts, rt_tag *v, size_t n);

void rt_tags_set(rt_tags *ts, const char *key, const char *value);
const char *rt_tags_get(const rt_tags *ts, const char *key);
void rt_tags_copy(rt_tags *dst, const rt_tags *src);
void rt_tags_release(rt_tags *ts);
/* "k=v k=v" in the tags' order, leaving out the keys of skip (a NULL-terminated list, or NULL);
 * malloc'ed. */
char *rt_tags_text(const rt_tags *ts, const char *const *skip);

#endif
