/* Many small pieces with one lifetime (arena.c): bump allocation from large blocks, freed all at
 * once, and strings shared among the pieces. */
#ifndef ROOFTIME_UTIL_ARENA_H
#define ROOFTIME_UTIL_ARENA_H

#include <stddef.h>

typedef struct rt_arena rt_arena;

/* An empty arena; rt_arena_free(NULL) is a no-op. */
rt_arena *rt_arena_new(void);
void rt_arena_free(rt_arena *a);
/* from's pieces become a's (freed with a); from is left empty, for more pieces or to be freed. */
void rt_arena_adopt(rt_arena *a, rt_arena *from);
/* n bytes aligned for any scalar, valid until the arena is freed; never freed alone. */
void *rt_arena_alloc(rt_arena *a, size_t n);
/* A copy of the len bytes of s and a NUL, valid until the arena is freed. Equal strings asked for
 * again soon after return the same copy (a fixed-size cache of recent strings, not a set of all
 * of them: memory stays bounded by the arena's, and a miss costs one copy), so a million kernels'
 * repeated tag names and values are held a few times, not a million. */
const char *rt_arena_string(rt_arena *a, const char *s, size_t len);

#endif
