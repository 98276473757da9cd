/* A direct reader of profile JSON text for the common case: no DOM, no per-value allocation. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile-json-fast.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/arena.h"
#include "rooftime/util/strings.h"

/*
 * The reader takes the profiles rooftime writes: the known members, strings, numbers, objects
 * and arrays where profile-json.c expects them. Anything else (a null, an unknown member that must
 * be kept, a duplicate key, an escape it would have to judge, a number jansson would
 * refuse, a value out of range, a syntax error) makes it give up, and the jansson reader reads the
 * text again: it gives the same profile, or the error a user should see. So the result never
 * differs from rt_profile_from_json's; only its cost does.
 */

typedef struct fr {
    const char *s, *e;
    char *str[2]; /* decoded strings: [0] keys, [1] values */
    size_t cap[2], len[2];
    rt_arena *arena; /* the profile's: the maps read are borrowed from it */
    rt_tag *tag;     /* the tags of the map being read */
    size_t tag_cap;
} fr;

/* A values map of up to this many entries is gathered and borrowed; a larger one is built. */
enum { SMALL_VALUES = 16 };

#define GIVE_UP (-1)

static void ws(fr *f)
{
    while (f->s < f->e && (*f->s == ' ' || *f->s == '\n' || *f->s == '\r' || *f->s == '\t'))
        f->s++;
}

/* The next non-blank character is c: consume it. */
static int eat(fr *f, char c)
{
    ws(f);
    if (f->s < f->e && *f->s == c) {
        f->s++;
        return 1;
    }
    return 0;
}

static int peek(fr *f)
{
    ws(f);
    return f->s < f->e ? (unsigned char)*f->s : -1;
}

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static void reserve(fr *f, int which, size_t need)
{
    if (need > f->cap[which]) {
        f->cap[which] = need < 256 ? 256 : 2 * need;
        f->str[which] = rt_xrealloc(f->str[which], f->cap[which]);
    }
}

static char *utf8_put(char *o, unsigned u)
{
    if (u < 0x80) {
        *o++ = (char)u;
    } else if (u < 0x800) {
        *o++ = (char)(0xC0 | (u >> 6));
        *o++ = (char)(0x80 | (u & 0x3F));
    } else if (u < 0x10000) {
        *o++ = (char)(0xE0 | (u >> 12));
        *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
        *o++ = (char)(0x80 | (u & 0x3F));
    } else {
        *o++ = (char)(0xF0 | (u >> 18));
        *o++ = (char)(0x80 | ((u >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
        *o++ = (char)(0x80 | (u & 0x3F));
    }
    return o;
}

/* A string into f->str[which], NUL-terminated (a NUL inside: give up). */
static int string(fr *f, int which)
{
    if (!eat(f, '"'))
        return GIVE_UP;
    const char *p = f->s, *q = p;
    int high = 0, esc = 0;
    while (q < f->e && *q != '"') {
        unsigned char c = (unsigned char)*q;
        if (c < 0x20)
            return GIVE_UP; /* a control character */
        high |= c >= 0x80;
        if (c == '\\') {
            esc = 1;
            q++;
        }
        q++;
    }
    if (q >= f->e)
        return GIVE_UP;
    reserve(f, which, (size_t)(q - p) + 1); /* the decoded text is never longer */
    char *o = f->str[which];
    if (!esc) {
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
    } else {
        for (const char *r = p; r < q;) {
            if (*r != '\\') {
                *o++ = *r++;
                continue;
            }
            char c = r[1];
            r += 2;
            if (c == 'u') {
                unsigned u, lo;
                if (q - r < 4 || hex4(r, &u) != 0)
                    return GIVE_UP;
                r += 4;
                if (u == 0 || (u >= 0xDC00 && u <= 0xDFFF))
                    return GIVE_UP;
                if (u >= 0xD800 && u <= 0xDBFF) {
                    if (q - r < 6 || r[0] != '\\' || r[1] != 'u' || hex4(r + 2, &lo) != 0 ||
                        lo < 0xDC00 || lo > 0xDFFF)
                        return GIVE_UP;
                    r += 6;
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                }
                o = utf8_put(o, u);
            } else {
                static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
                const char *w = c ? memchr(from, c, 8) : NULL;
                if (!w)
                    return GIVE_UP;
                *o++ = to[w - from];
            }
        }
    }
    *o = '\0';
    f->len[which] = (size_t)(o - f->str[which]);
    f->s = q + 1;
    if (high && !rt_utf8_valid(f->str[which]))
        return GIVE_UP;
    return 0;
}

#if defined(__x86_64__) && LDBL_MANT_DIG == 64
/* m x 10^e by one rounding in x87 extended precision (64-bit significand), which holds every
 * m < 2^64 and 10^|e| up to 10^27 exactly: the result r is the exact value rounded once. Its
 * rounding to double is then the exact value's correct rounding unless r fell exactly halfway
 * between two doubles (its 11 bits below a double's significand 10000000000): a decimal there
 * goes to strtod. A profile's 17-digit times thus cost a multiply or a divide, not strtod's
 * multi-precision work (a million per profile of a million kernels). 0: done. */
static int decimal(uint64_t m, long e, double *out)
{
    static const long double p10[28] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
                                        1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
                                        1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
                                        1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
    if (e < -27 || e > 27)
        return -1;
    long double r = e < 0 ? (long double)m / p10[-e] : (long double)m * p10[e];
    uint64_t sig;
    memcpy(&sig, &r, sizeof sig); /* the x87 format's low 8 bytes: the significand */
    if ((sig & 0x7FF) == 0x400)
        return -1;
    *out = (double)r;
    return 0;
}
#else
static int decimal(uint64_t m, long e, double *out)
{
    (void)m, (void)e, (void)out;
    return -1;
}
#endif

/* A number as jansson reads it: integers exactly (up to 18 digits here), reals correctly rounded
 * (decimal(), else strtod). */
static int number(fr *f, double *out)
{
    ws(f);
    const char *p = f->s, *q = p;
    int neg = q < f->e && *q == '-';
    q += neg;
    const char *d0 = q;
    uint64_t v = 0; /* the digits, integer and fraction, while at most 19 count */
    while (q < f->e && *q >= '0' && *q <= '9')
        v = v * 10 + (uint64_t)(*q++ - '0');
    size_t nd = (size_t)(q - d0), nf = 0, lead = v ? 0 : nd; /* leading zeros: none count */
    if (nd == 0 || (nd > 1 && *d0 == '0'))
        return GIVE_UP;
    int real = 0;
    if (q < f->e && *q == '.') {
        real = 1;
        const char *s = ++q;
        while (q < f->e && *q >= '0' && *q <= '9') {
            lead += !v && *q == '0';
            v = v * 10 + (uint64_t)(*q++ - '0');
        }
        nf = (size_t)(q - s);
        if (nf == 0)
            return GIVE_UP;
    }
    long ex = 0;
    if (q < f->e && (*q == 'e' || *q == 'E')) {
        real = 1;
        q++;
        int eneg = q < f->e && *q == '-';
        if (q < f->e && (*q == '+' || *q == '-'))
            q++;
        const char *s = q;
        while (q < f->e && *q >= '0' && *q <= '9') {
            if (ex < 100000)
                ex = ex * 10 + (*q - '0');
            q++;
        }
        if (q == s)
            return GIVE_UP;
        if (eneg)
            ex = -ex;
    }
    if (!real) {
        if (nd > 18)
            return GIVE_UP;
        long long ll = neg ? -(long long)v : (long long)v;
        *out = (double)ll;
    } else {
        char buf[64];
        if ((size_t)(q - p) >= sizeof buf)
            return GIVE_UP;
        if (nd + nf - lead <= 19 && decimal(v, ex - (long)nf, out) == 0) {
            if (neg)
                *out = -*out;
        } else {
            memcpy(buf, p, (size_t)(q - p));
            buf[q - p] = '\0';
            *out = strtod(buf, NULL);
        }
        if (!isfinite(*out))
            return GIVE_UP;
    }
    f->s = q;
    return 0;
}

static int number_min0(fr *f, double *out)
{
    return number(f, out) != 0 || *out < 0 ? GIVE_UP : 0;
}

/* Iterate an object's members: call with *first = 1 after '{'; returns 1 with the key in
 * f->str[0], 0 at '}', GIVE_UP on bad syntax. */
static int member(fr *f, int *first)
{
    if (*first) {
        *first = 0;
        if (eat(f, '}'))
            return 0;
    } else {
        if (eat(f, '}'))
            return 0;
        if (!eat(f, ','))
            return GIVE_UP;
    }
    if (string(f, 0) != 0 || !eat(f, ':'))
        return GIVE_UP;
    return 1;
}

/* The decoded string f->str[which] in the arena (valid UTF-8: string() gives up on anything
 * else). */
static char *kept(fr *f, int which)
{
    return (char *)rt_arena_string(f->arena, f->str[which], f->len[which]);
}

/* {"name": number >= 0, ...}, no key twice, into an empty map: up to SMALL_VALUES entries are
 * borrowed from the arena; a larger map is built its own, through its index. */
static int values(fr *f, rt_values *out)
{
    if (!eat(f, '{') || out->n)
        return GIVE_UP;
    rt_value got[SMALL_VALUES];
    size_t n = 0;
    int first = 1, m, small = 1;
    while ((m = member(f, &first)) == 1) {
        double d;
        if (number_min0(f, &d) != 0)
            return GIVE_UP;
        if (small && n < SMALL_VALUES) {
            for (size_t i = 0; i < n; i++)
                if (rt_str_eq(got[i].key, f->str[0]))
                    return GIVE_UP;
            got[n++] = (rt_value){.key = kept(f, 0), .value = d};
            continue;
        }
        if (small)
            for (size_t i = 0; i < n; i++)
                rt_values_set(out, got[i].key, got[i].value);
        small = 0;
        size_t before = out->n;
        rt_values_set(out, f->str[0], d);
        if (out->n == before)
            return GIVE_UP;
    }
    if (m == 0 && small && n) {
        rt_value *v = rt_arena_alloc(f->arena, n * sizeof *v);
        memcpy(v, got, n * sizeof *v);
        rt_values_borrow(out, v, n);
    }
    return m;
}

/* {"name": "string" | number, ...} into an empty map, borrowed from the arena: numbers become
 * their shortest text; no key twice, at most RT_MAX_TAGS. */
static int tags(fr *f, rt_tags *out)
{
    if (!eat(f, '{') || out->n)
        return GIVE_UP;
    size_t n = 0;
    int first = 1, m;
    while ((m = member(f, &first)) == 1) {
        if (peek(f) == '"') {
            if (string(f, 1) != 0)
                return GIVE_UP;
        } else {
            double d;
            if (number(f, &d) != 0)
                return GIVE_UP;
            reserve(f, 1, 64);
            f->len[1] = (size_t)snprintf(f->str[1], f->cap[1], "%.17g", d);
        }
        if (n == RT_MAX_TAGS)
            return GIVE_UP;
        for (size_t i = 0; i < n; i++)
            if (rt_str_eq(f->tag[i].key, f->str[0]))
                return GIVE_UP;
        if (n == f->tag_cap) {
            f->tag_cap = f->tag_cap ? 2 * f->tag_cap : 16;
            f->tag = rt_xrealloc(f->tag, f->tag_cap * sizeof *f->tag);
        }
        f->tag[n++] = (rt_tag){.key = kept(f, 0), .value = kept(f, 1)};
    }
    if (m == 0 && n) {
        rt_tag *v = rt_arena_alloc(f->arena, n * sizeof *v);
        memcpy(v, f->tag, n * sizeof *v);
        rt_tags_borrow(out, v, n);
    }
    return m;
}

/* A string member's copy into *out (NULL before: no key twice). */
static int string_to(fr *f, char **out)
{
    if (*out || string(f, 1) != 0)
        return GIVE_UP;
    *out = rt_strdup(f->str[1]);
    return 0;
}

static int spread(fr *f, rt_kernel *k)
{
    static const char *const key[4] = {"n", "median", "q1", "q3"};
    if (!eat(f, '{'))
        return GIVE_UP;
    double v[4];
    int seen = 0, first = 1, m;
    while ((m = member(f, &first)) == 1) {
        int i = 0;
        while (i < 4 && !rt_str_eq(f->str[0], key[i]))
            i++;
        if (i == 4 || (seen & (1 << i)) || number_min0(f, &v[i]) != 0)
            return GIVE_UP;
        seen |= 1 << i;
    }
    if (m != 0 || seen != 15)
        return GIVE_UP;
    rt_time_spread s = {.n = v[0], .median = v[1], .q1 = v[2], .q3 = v[3]};
    const char *field, *why;
    if (rt_time_spread_check(&s, &field, &why) != 0)
        return GIVE_UP;
    k->spread = s;
    return 0;
}

static int kernel(fr *f, rt_profile *p)
{
    static const char *const key[] = {"name",  "invocations", "time",        "flops",
                                      "bytes", "tags",        "time_spread", NULL};
    if (!eat(f, '{'))
        return GIVE_UP;
    rt_kernel *k = rt_profile_add_kernel(p, "");
    int seen = 0, first = 1, m;
    while ((m = member(f, &first)) == 1) {
        int i = 0;
        while (key[i] && !rt_str_eq(f->str[0], key[i]))
            i++;
        if (!key[i] || (seen & (1 << i)))
            return GIVE_UP;
        seen |= 1 << i;
        int rc = i == 0   ? string(f, 1)
                 : i == 1 ? number_min0(f, &k->invocations)
                 : i == 2 ? number_min0(f, &k->time)
                 : i == 3 ? values(f, &k->flops)
                 : i == 4 ? values(f, &k->bytes)
                 : i == 5 ? tags(f, &k->tags)
                          : spread(f, k);
        if (rc != 0)
            return GIVE_UP;
        if (i == 0) { /* valid UTF-8 (see string()): copied as it is */
            if (f->len[1] > RT_MAX_NAME)
                return GIVE_UP;
            /* the "" of rt_profile_add_kernel grown: a short name stays in its block */
            k->name = rt_xrealloc(k->name, f->len[1] + 1);
            memcpy(k->name, f->str[1], f->len[1] + 1);
        }
    }
    return m == 0 && (seen & 7) == 7 ? 0 : GIVE_UP;
}

static int source(fr *f, rt_profile *p)
{
    static const char *const key[] = {"tool",   "version",  "command", "machine",
                                      "method", "overhead", "time",    NULL};
    char **field[6] = {&p->tool, &p->version, &p->command, &p->machine, &p->method, &p->overhead};
    if (!eat(f, '{'))
        return GIVE_UP;
    int first = 1, m, time_seen = 0;
    while ((m = member(f, &first)) == 1) {
        int i = 0;
        while (key[i] && !rt_str_eq(f->str[0], key[i]))
            i++;
        if (!key[i])
            return GIVE_UP;
        if (i < 6) {
            if (string_to(f, field[i]) != 0)
                return GIVE_UP;
            continue;
        }
        rt_error terr;
        if (time_seen++ || string(f, 1) != 0 ||
            rt_time_kind_parse(f->str[1], &p->time_kind, &terr) != 0)
            return GIVE_UP;
    }
    return m;
}

static int provenance(fr *f, rt_provenance *pv)
{
    if (!eat(f, '{'))
        return GIVE_UP;
    int seen = 0, first = 1, m;
    while ((m = member(f, &first)) == 1) {
        static const char *const key[] = {"inputs", "launches",        "formulas",
                                          "notes",  "kernel_time_sum", NULL};
        int i = 0;
        while (key[i] && !rt_str_eq(f->str[0], key[i]))
            i++;
        if (!key[i] || (seen & (1 << i)))
            return GIVE_UP;
        seen |= 1 << i;
        int rc = 0;
        if (i == 0) {
            if (!eat(f, '['))
                return GIVE_UP;
            if (!eat(f, ']')) {
                do {
                    if (string(f, 1) != 0)
                        return GIVE_UP;
                    rt_provenance_add_input(pv, f->str[1]);
                } while (eat(f, ','));
                if (!eat(f, ']'))
                    return GIVE_UP;
            }
        } else {
            rc = i == 1   ? number_min0(f, &pv->launches)
                 : i == 2 ? tags(f, &pv->formulas)
                 : i == 3 ? tags(f, &pv->notes)
                          : values(f, &pv->kernel_time_sum);
        }
        if (rc != 0)
            return GIVE_UP;
    }
    return m;
}

/* "identity": {"launcher", "rank", "local_rank", "size", "host", "device"}, as identity-json.c. */
static int identity(fr *f, rt_profile *p)
{
    static const char *const key[] = {"launcher",   "host", "device", "rank",
                                      "local_rank", "size", NULL};
    if (!eat(f, '{'))
        return GIVE_UP;
    rt_rank_identity *id = p->identity = rt_xmalloc(sizeof *id);
    rt_rank_identity_init(id);
    char **field[3] = {&id->launcher, &id->host, &id->device};
    long *count[3] = {&id->rank, &id->local_rank, &id->size};
    int seen = 0, first = 1, m;
    while ((m = member(f, &first)) == 1) {
        int i = 0;
        while (key[i] && !rt_str_eq(f->str[0], key[i]))
            i++;
        if (!key[i] || (seen & (1 << i)))
            return GIVE_UP;
        seen |= 1 << i;
        double v;
        if (i < 3 ? string_to(f, field[i]) != 0
                  : number(f, &v) != 0 || v < (i == 5 ? 1 : 0) || v != floor(v) ||
                        v > (double)RT_MAX_RANKS)
            return GIVE_UP;
        if (i >= 3)
            *count[i - 3] = (long)v;
    }
    return m != 0 || (id->size > 0 && id->rank >= id->size) ? GIVE_UP : 0;
}

static int top(fr *f, rt_profile *p)
{
    static const char *const key[] = {"schema",     "source",   "tags", "kernels",
                                      "provenance", "identity", NULL};
    if (!eat(f, '{'))
        return GIVE_UP;
    int seen = 0, first = 1, m;
    while ((m = member(f, &first)) == 1) {
        int i = 0;
        while (key[i] && !rt_str_eq(f->str[0], key[i]))
            i++;
        if (!key[i] || (seen & (1 << i)))
            return GIVE_UP; /* unknown members: the general reader keeps them */
        seen |= 1 << i;
        int rc = 0;
        if (i == 0)
            rc = string(f, 1) != 0 || strcmp(f->str[1], RT_PROFILE_SCHEMA) != 0 ? GIVE_UP : 0;
        else if (i == 1)
            rc = source(f, p);
        else if (i == 2)
            rc = tags(f, &p->tags);
        else if (i == 4)
            rc = provenance(f, &p->provenance);
        else if (i == 5)
            rc = identity(f, p);
        else if (!eat(f, '['))
            rc = GIVE_UP;
        else if (!eat(f, ']')) {
            do
                if (kernel(f, p) != 0)
                    return GIVE_UP;
            while (eat(f, ','));
            rc = eat(f, ']') ? 0 : GIVE_UP;
        }
        if (rc != 0)
            return GIVE_UP;
    }
    ws(f);
    return m == 0 && (seen & 9) == 9 && f->s == f->e ? 0 : GIVE_UP;
}

int rt_profile_json_fast(const char *text, size_t len, rt_profile **out)
{
    rt_profile *p = rt_profile_new();
    p->arena = rt_arena_new();
    fr f = {.s = text, .e = text + len, .arena = p->arena};
    int rc = top(&f, p);
    free(f.str[0]);
    free(f.str[1]);
    free(f.tag);
    if (rc != 0) {
        rt_profile_free(p);
        return -1;
    }
    *out = p;
    return 0;
}
