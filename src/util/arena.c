/* Bump allocation from large blocks, freed all at once, and a cache of recent strings. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/arena.h"
#include "rooftime/util/strings.h"

/* Blocks of 1 MiB (a piece over a quarter of one gets a block of its own); the cache's slots, a
 * power of two. */
enum { BLOCK = 1 << 20, CACHE = 4096, ALIGN = 16 };

typedef struct block {
    struct block *next;
    max_align_t data[]; /* the pieces */
} block;

struct rt_arena {
    block *blocks;  /* the newest first */
    char *at, *end; /* the free part of the newest block */
    struct {
        const char *s; /* in the arena */
        size_t len;
        uint64_t x, y; /* its first and last bytes, as rt_arena_string reads them */
    } cache[CACHE];
};

rt_arena *rt_arena_new(void)
{
    return rt_xcalloc(1, sizeof(rt_arena));
}

void rt_arena_free(rt_arena *a)
{
    if (!a)
        return;
    for (block *b = a->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(a);
}

/* n bytes at the given alignment (a power of two, at most ALIGN). */
static void *bump(rt_arena *a, size_t n, size_t align)
{
    if (n > BLOCK / 4) { /* a block of its own; the open one stays open */
        block *b = rt_xmalloc(sizeof(block) + n);
        b->next = a->blocks;
        a->blocks = b;
        return b->data;
    }
    uintptr_t at = ((uintptr_t)a->at + align - 1) & ~(uintptr_t)(align - 1);
    if (!a->at || (uintptr_t)a->end < at || (uintptr_t)a->end - at < n) {
        block *b = rt_xmalloc(BLOCK);
        b->next = a->blocks;
        a->blocks = b;
        a->at = (char *)b->data;
        a->end = (char *)b + BLOCK;
        at = (uintptr_t)a->at;
    }
    a->at = (char *)at + n;
    return (void *)at;
}

void rt_arena_adopt(rt_arena *a, rt_arena *from)
{
    if (!from->blocks)
        return;
    block *last = from->blocks;
    while (last->next)
        last = last->next;
    /* after a's newest, which stays the one pieces come from */
    if (a->blocks) {
        last->next = a->blocks->next;
        a->blocks->next = from->blocks;
    } else {
        last->next = NULL;
        a->blocks = from->blocks;
        a->at = from->at;
        a->end = from->end;
    }
    from->blocks = NULL;
    from->at = from->end = NULL;
    memset(from->cache, 0, sizeof from->cache);
}

void *rt_arena_alloc(rt_arena *a, size_t n)
{
    return bump(a, n ? n : 1, ALIGN);
}

const char *rt_arena_string(rt_arena *a, const char *s, size_t len)
{
    /* The cache's slot from the length and the first and last eight bytes (or four, or each of
     * fewer): a string that shares them with another only costs a copy of its own. */
    uint64_t x = 0, y = 0;
    if (len >= 8) {
        memcpy(&x, s, 8);
        memcpy(&y, s + len - 8, 8);
    } else if (len >= 4) {
        uint32_t u, v;
        memcpy(&u, s, 4);
        memcpy(&v, s + len - 4, 4);
        x = u;
        y = v;
    } else {
        for (size_t i = 0; i < len; i++)
            x = x << 8 | (unsigned char)s[i];
    }
    uint64_t h = (x * 0x9E3779B97F4A7C15ull) ^ (y + len) * 0xC2B2AE3D27D4EB4Full;
    size_t slot = (size_t)(h ^ (h >> 29)) & (CACHE - 1);
    /* Up to 16 bytes, x and y hold all of a string: equal words, equal strings. */
    if (a->cache[slot].s && a->cache[slot].len == len && a->cache[slot].x == x &&
        a->cache[slot].y == y && (len <= 16 || memcmp(a->cache[slot].s, s, len) == 0))
        return a->cache[slot].s;
    char *c = bump(a, len + 1, 1);
    memcpy(c, s, len);
    c[len] = '\0';
    a->cache[slot].s = c;
    a->cache[slot].len = len;
    a->cache[slot].x = x;
    a->cache[slot].y = y;
    return c;
}
