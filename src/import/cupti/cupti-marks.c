/* The collector's marks (marks.PID.csv, rooftime_cupti_mark): read within bounds, every error
 * naming file, line and field; each tag set kept once in canonical form ("k=v;k=v", keys sorted,
 * a repeated key's last value); then each traced launch (by its correlation ID) and each counter
 * range (by its number) gets the set of the last mark of its process before it. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti-internal.h"
#include "rooftime/util/strings.h"

#define STR(x) #x
#define XSTR(x) STR(x)

typedef struct pair {
    const char *k, *v;
    size_t kn, vn;
} pair;

static int by_key(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    size_t n = x->kn < y->kn ? x->kn : y->kn;
    int c = memcmp(x->k, y->k, n);
    return c ? c : (x->kn > y->kn) - (x->kn < y->kn);
}

static int key_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

/* tags (len bytes) into its canonical text (heap, "" for none); NULL with why (static text) when
 * it breaks the rules of rooftime_cupti_mark. */
static char *canonical(const char *tags, size_t len, const char **why)
{
    pair p[RT_CUPTI_MAX_MARK_PAIRS];
    size_t n = 0;
    if (len > RT_CUPTI_MAX_MARK_TAGS) {
        *why = "longer than " XSTR(RT_CUPTI_MAX_MARK_TAGS) " bytes";
        return NULL;
    }
    if (memchr(tags, '\0', len) || memchr(tags, '\n', len) || memchr(tags, '\r', len)) {
        *why = "holds a NUL or a line break";
        return NULL;
    }
    for (const char *s = tags, *end = tags + len; s < end;) {
        const char *semi = memchr(s, ';', (size_t)(end - s));
        size_t seg = semi ? (size_t)(semi - s) : (size_t)(end - s);
        if (seg > 0) {
            const char *eq = memchr(s, '=', seg);
            if (!eq || eq == s) {
                *why = "a pair is not key=value";
                return NULL;
            }
            for (const char *k = s; k < eq; k++)
                if (!key_char(*k)) {
                    *why = "a key holds a character outside [A-Za-z0-9_.-]";
                    return NULL;
                }
            pair q = {s, eq + 1, (size_t)(eq - s), (size_t)(s + seg - eq - 1)};
            size_t j = 0;
            while (j < n && !(p[j].kn == q.kn && memcmp(p[j].k, q.k, q.kn) == 0))
                j++;
            if (j == n && n == RT_CUPTI_MAX_MARK_PAIRS) {
                *why = "more than " XSTR(RT_CUPTI_MAX_MARK_PAIRS) " pairs";
                return NULL;
            }
            p[j] = q; /* a repeated key: its last value */
            n += j == n;
        }
        s += seg + (semi != NULL);
    }
    qsort(p, n, sizeof *p, by_key);
    char *out = rt_xmalloc(len + 1), *o = out;
    for (size_t i = 0; i < n; i++) {
        if (i)
            *o++ = ';';
        memcpy(o, p[i].k, p[i].kn);
        o += p[i].kn;
        *o++ = '=';
        memcpy(o, p[i].v, p[i].vn);
        o += p[i].vn;
    }
    *o = '\0';
    return out;
}

int rt_cupti_read_marks(cupti_import *im, uint32_t pi)
{
    proc *p = &im->p[pi];
    rt_csv_row row;
    int absent;
    char *path;
    if (im->sets.n == 0)
        rt_name_index_intern(&im->sets, "", 0); /* id 0: no tags */
    rt_csv *c =
        rt_cupti_open_csv(im, im->dir, "marks", p->pid, RT_CUPTI_MARK_HEADER, &row, &absent, &path);
    if (!c) {
        free(path);
        return absent ? 0 : -1;
    }
    int r, rc = -1;
    size_t cap = 0;
    static const char *const col[] = {"seq", "correlation", "ranges", "time_ns"};
    static const uint64_t max[] = {UINT64_MAX, UINT32_MAX, UINT64_MAX, UINT64_MAX};
    while ((r = rt_csv_next(c, &row, im->err)) == 1) {
        if (row.n != 5) {
            rt_error_set(im->err, "%s: line %lu: %zu fields, expected 5", path, row.line, row.n);
            goto out;
        }
        uint64_t u[4];
        for (size_t i = 0; i < 4; i++)
            if (rt_cupti_parse_u64(row.field[i], max[i], &u[i]) != 0) {
                rt_error_set(im->err, "%s: line %lu: %s '%.40s' is not a whole number", path,
                             row.line, col[i], row.field[i]);
                goto out;
            }
        if (u[0] != p->n_marks) {
            rt_error_set(im->err, "%s: line %lu: seq %" PRIu64 ", expected %zu (marks in order)",
                         path, row.line, u[0], p->n_marks);
            goto out;
        }
        const cupti_mark *prev = p->n_marks ? &p->marks[p->n_marks - 1] : NULL;
        if (prev && (u[1] < prev->corr || u[2] < prev->ranges)) {
            rt_error_set(im->err, "%s: line %lu: %s %" PRIu64 " is below the previous mark's", path,
                         row.line, u[1] < prev->corr ? "correlation" : "ranges",
                         u[1] < prev->corr ? u[1] : u[2]);
            goto out;
        }
        if (im->n_marks >= RT_CUPTI_MAX_MARKS) {
            rt_error_set(im->err, "%s: line %lu: more than %zu marks in %s", path, row.line,
                         RT_CUPTI_MAX_MARKS, im->dir);
            goto out;
        }
        const char *why = NULL;
        char *text = canonical(row.field[4], row.len[4], &why);
        if (!text) {
            rt_error_set(im->err, "%s: line %lu: tags: %s", path, row.line, why);
            goto out;
        }
        if (p->n_marks == cap) {
            cap = cap ? 2 * cap : 16;
            p->marks = rt_xrealloc(p->marks, cap * sizeof *p->marks);
        }
        p->marks[p->n_marks++] = (cupti_mark){
            (uint32_t)u[1], u[2], (uint32_t)rt_name_index_intern(&im->sets, text, strlen(text))};
        im->n_marks++;
        free(text);
    }
    rc = r < 0 ? -1 : 0;
out:
    rt_csv_free(c);
    free(path);
    return rc;
}

/* The set of the last of the n marks that key passes (trace: corr > mark's; counters: range
 * number >= mark's), or 0. */
static uint32_t set_before(const cupti_mark *m, size_t n, int counters, uint64_t key)
{
    size_t lo = 0, hi = n; /* the first mark that key does not pass */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int passed = counters ? key >= m[mid].ranges : key > m[mid].corr;
        if (passed)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? m[lo - 1].set : 0;
}

void rt_cupti_apply_marks(cupti_import *im)
{
    if (im->n_marks == 0)
        return;
    for (size_t i = 0; i < im->nl; i++) {
        const proc *p = &im->p[im->l[i].proc];
        im->l[i].set = set_before(p->marks, p->n_marks, 0, im->l[i].corr);
    }
    for (size_t i = 0; i < im->nr; i++) {
        const proc *p = &im->p[im->r[i].proc];
        im->r[i].set = set_before(p->marks, p->n_marks, 1, im->r[i].idx);
    }
}

void rt_cupti_set_tags(const cupti_import *im, uint32_t set, rt_tags *tags)
{
    if (set == 0 || set >= im->sets.n)
        return;
    char *text = rt_strdup(im->sets.key[set]);
    for (char *s = text, *pair; (pair = strsep(&s, ";")) != NULL;) {
        char *eq = strchr(pair, '=');
        if (!eq)
            continue;
        *eq = '\0';
        rt_tags_set(tags, pair, eq + 1);
    }
    free(text);
}
