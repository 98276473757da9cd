/* The profile reader's scanning (profile-json-scan.c): blanks, punctuation, strings and numbers
 * of the JSON text, for profile-json-fast.c. */
#ifndef ROOFTIME_FORMATS_PROFILE_JSON_SCAN_H
#define ROOFTIME_FORMATS_PROFILE_JSON_SCAN_H

#include <stddef.h>

#include "rooftime/core/tag-map.h"
#include "rooftime/util/arena.h"

#define GIVE_UP (-1)

typedef struct fr { /* a reader: where it is, and what it read last */
    const char *s, *e;
    char *str[2]; /* decoded strings: [0] keys, [1] values */
    size_t cap[2], len[2];
    rt_arena *arena; /* the profile's: the maps read are borrowed from it */
    rt_tag *tag;     /* the tags of the map being read */
    size_t tag_cap;
    size_t split; /* kernels arrays of this many bytes or more are read in two halves */
} fr;

static inline void ws(fr *f)
{
    while (f->s < f->e && (*f->s == ' ' || *f->s == '\n' || *f->s == '\r' || *f->s == '\t'))
        f->s++;
}

/* The next non-blank character is c: consume it. */
static inline int eat(fr *f, char c)
{
    ws(f);
    if (f->s < f->e && *f->s == c) {
        f->s++;
        return 1;
    }
    return 0;
}

static inline int peek(fr *f)
{
    ws(f);
    return f->s < f->e ? (unsigned char)*f->s : -1;
}

/* Room for need bytes in f->str[which]. */
void rt_pjs_reserve(fr *f, int which, size_t need);
/* A string into f->str[which] (its length f->len[which]), NUL-terminated; GIVE_UP on a NUL
 * inside, an escape it would have to judge or text that is not UTF-8. */
int rt_pjs_string(fr *f, int which);
/* A number as jansson reads it: integers exactly (up to 18 digits), reals correctly rounded. */
int rt_pjs_number(fr *f, double *out);

#endif
