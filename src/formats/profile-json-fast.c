/* A direct reader of profile JSON text for the common case: no DOM, no per-value allocation. */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile-json-fast.h"
#include "profile-json-scan.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/arena.h"
#include "rooftime/util/parallel.h"
#include "rooftime/util/strings.h"

/*
 * The reader takes the profiles rooftime writes: the known members, strings, numbers, objects
 * and arrays where profile-json.c expects them. Anything else (a null, an unknown member that must
 * be kept, a duplicate key, an escape it would have to judge, a number jansson would
 * refuse, a value out of range, a syntax error) makes it give up, and the jansson reader reads the
 * text again: it gives the same profile, or the error a user should see. So the result never
 * differs from rt_profile_from_json's; only its cost does.
 */

/* A values map of up to this many entries is gathered and borrowed; a larger one is built. */
enum { SMALL_VALUES = 16 };

static int number_min0(fr *f, double *out)
{
    return rt_pjs_number(f, out) != 0 || *out < 0 ? GIVE_UP : 0;
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
    if (rt_pjs_string(f, 0) != 0 || !eat(f, ':'))
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
            if (rt_pjs_string(f, 1) != 0)
                return GIVE_UP;
        } else {
            double d;
            if (rt_pjs_number(f, &d) != 0)
                return GIVE_UP;
            rt_pjs_reserve(f, 1, 64);
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
    if (*out || rt_pjs_string(f, 1) != 0)
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

/* "overhead_threads": a whole number of threads, at most RT_OVERHEAD_MAX_THREADS. */
static int threads(fr *f, int *out)
{
    double d;
    if (number_min0(f, &d) != 0 || d != floor(d) || d > RT_OVERHEAD_MAX_THREADS)
        return GIVE_UP;
    *out = (int)d;
    return 0;
}

static int kernel(fr *f, rt_profile *p)
{
    static const char *const key[] = {
        "name",     "invocations",      "time",        "flops", "bytes", "tags", "time_spread",
        "overhead", "overhead_threads", "working_set", NULL};
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
        int rc = i == 0   ? rt_pjs_string(f, 1)
                 : i == 1 ? number_min0(f, &k->invocations)
                 : i == 2 ? number_min0(f, &k->time)
                 : i == 3 ? values(f, &k->flops)
                 : i == 4 ? values(f, &k->bytes)
                 : i == 5 ? tags(f, &k->tags)
                 : i == 6 ? spread(f, k)
                 : i == 7 ? string_to(f, &k->overhead)
                 : i == 8 ? threads(f, &k->overhead_threads)
                          : number_min0(f, &k->working_set);
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
    /* an empty overhead, or threads without one: the full reader names the field */
    bool bad_overhead = (k->overhead && !*k->overhead) || (!k->overhead && k->overhead_threads);
    return m == 0 && (seen & 7) == 7 && !bad_overhead ? 0 : GIVE_UP;
}

static int source(fr *f, rt_profile *p)
{
    static const char *const key[] = {"tool",     "version", "command", "machine", "method",
                                      "overhead", "time",    "bytes",   "threads", NULL};
    char **field[6] = {&p->tool, &p->version, &p->command, &p->machine, &p->method, &p->overhead};
    if (!eat(f, '{'))
        return GIVE_UP;
    int first = 1, m, time_seen = 0, bytes_seen = 0;
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
        if (i == 6 && (time_seen++ || rt_pjs_string(f, 1) != 0 ||
                       rt_time_kind_parse(f->str[1], &p->time_kind, &terr) != 0))
            return GIVE_UP;
        if (i == 7 && (bytes_seen++ || rt_pjs_string(f, 1) != 0 ||
                       rt_bytes_kind_parse(f->str[1], &p->bytes_kind, &terr) != 0))
            return GIVE_UP;
        double t;
        if (i == 8 &&
            (p->threads || number_min0(f, &t) != 0 || t != floor(t) || t < 1 || t > RT_MAX_THREADS))
            return GIVE_UP; /* jansson's reader names what is wrong */
        if (i == 8)
            p->threads = (int)t;
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
                    if (rt_pjs_string(f, 1) != 0)
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
                  : rt_pjs_number(f, &v) != 0 || v < (i == 5 ? 1 : 0) || v != floor(v) ||
                        v > (double)RT_MAX_RANKS)
            return GIVE_UP;
        if (i >= 3)
            *count[i - 3] = (long)v;
    }
    return m != 0 || (id->size > 0 && id->rank >= id->size) ? GIVE_UP : 0;
}

/* The second half of a long kernels array, read on a thread of its own while the caller reads the
 * first: from `at`, the '{' of a kernel found past the middle of the text (after "},\n    {":
 * rooftime's writer puts each kernel on lines of its own, indented by 4), to the ']' that closes
 * the array. A text not written so, or read to other kernels, leaves it unused (half_join). */
typedef struct half {
    const char *at, *e; /* its first kernel; the text's end */
    const char *end;    /* where its kernels end, at the ']'; NULL: they did not read */
    rt_profile *p;      /* its kernels, their maps in an arena of its own */
    size_t split;
    pthread_t th;
} half;

static void *half_read(void *arg)
{
    half *h = arg;
    fr f = {.s = h->at, .e = h->e, .arena = h->p->arena, .split = h->split};
    int rc;
    do
        rc = kernel(&f, h->p);
    while (rc == 0 && eat(&f, ','));
    h->end = rc == 0 && peek(&f) == ']' ? f.s : NULL;
    free(f.str[0]);
    free(f.str[1]);
    free(f.tag);
    return NULL;
}

/* Start reading the second half of the kernels from f->s on, where f->split bytes or more are
 * left and a second processor is; 0 when started. */
static int half_start(half *h, const fr *f)
{
    static const char mark[] = "},\n    {";
    size_t left = (size_t)(f->e - f->s), m = sizeof mark - 1;
    if (left < f->split || left < 2 * m || rt_parallel_workers(2, 1) < 2)
        return -1;
    const char *at = NULL;
    for (const char *q = f->s + left / 2; !at && q + m <= f->e; q++) {
        q = memchr(q, '}', (size_t)(f->e - q));
        if (!q || q + m > f->e)
            break;
        if (memcmp(q, mark, m) == 0)
            at = q + m - 1;
    }
    if (!at)
        return -1;
    *h = (half){.at = at, .e = f->e, .p = rt_profile_new(), .split = f->split};
    h->p->arena = rt_arena_new();
    if (pthread_create(&h->th, NULL, half_read, h) != 0) {
        rt_profile_free(h->p);
        return -1;
    }
    return 0;
}

/* Wait for the second half. With take and read, its kernels follow p's (their maps' arena joins
 * p's) and f goes on at the ']' after them: 0. Otherwise they are dropped: -1. */
static int half_join(half *h, fr *f, rt_profile *p, bool take)
{
    pthread_join(h->th, NULL);
    int rc = -1;
    if (take && h->end) {
        size_t n = p->n_kernels + h->p->n_kernels;
        if (n > p->cap) {
            p->cap = n;
            p->kernels = rt_xrealloc(p->kernels, n * sizeof *p->kernels);
        }
        memcpy(p->kernels + p->n_kernels, h->p->kernels, h->p->n_kernels * sizeof *p->kernels);
        p->n_kernels = n;
        h->p->n_kernels = 0; /* moved: their names and maps are p's now */
        rt_arena_adopt(p->arena, h->p->arena);
        f->s = h->end;
        rc = 0;
    }
    rt_profile_free(h->p);
    return rc;
}

/* [kernel, ...]: a long one in two halves side by side (half_start), the same kernels in the
 * same order as read in one. */
static int kernels(fr *f, rt_profile *p)
{
    if (!eat(f, '['))
        return GIVE_UP;
    if (eat(f, ']'))
        return 0;
    half h;
    bool split = half_start(&h, f) == 0;
    int rc = 0;
    do {
        ws(f);
        if (split && f->s == h.at) { /* the second half's first kernel: the rest is read */
            split = false;
            if (half_join(&h, f, p, true) == 0)
                continue;
        }
        rc = kernel(f, p);
    } while (rc == 0 && eat(f, ','));
    if (split)
        half_join(&h, f, p, false);
    return rc == 0 && eat(f, ']') ? 0 : GIVE_UP;
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
            rc =
                rt_pjs_string(f, 1) != 0 || strcmp(f->str[1], RT_PROFILE_SCHEMA) != 0 ? GIVE_UP : 0;
        else if (i == 1)
            rc = source(f, p);
        else if (i == 2)
            rc = tags(f, &p->tags);
        else if (i == 4)
            rc = provenance(f, &p->provenance);
        else if (i == 5)
            rc = identity(f, p);
        else
            rc = kernels(f, p);
        if (rc != 0)
            return GIVE_UP;
    }
    ws(f);
    return m == 0 && (seen & 9) == 9 && f->s == f->e ? 0 : GIVE_UP;
}

int rt_profile_json_fast(const char *text, size_t len, rt_profile **out)
{
    return rt_profile_json_fast_split(text, len, (size_t)4 << 20, out);
}

int rt_profile_json_fast_split(const char *text, size_t len, size_t split, rt_profile **out)
{
    rt_profile *p = rt_profile_new();
    p->arena = rt_arena_new();
    fr f = {.s = text, .e = text + len, .arena = p->arena, .split = split};
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
