/* Allocation, string and number helpers that every module uses. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/strings.h"

static void oom(void)
{
    fputs("rooftime: out of memory\n", stderr);
    abort();
}

void *rt_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom();
    return p;
}

void *rt_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *rt_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom();
    return q;
}

char *rt_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *d = rt_xmalloc(n + 1);
    memcpy(d, s, n + 1);
    return d;
}

char *rt_strndup(const char *s, size_t n)
{
    if (!s)
        return NULL;
    size_t len = strnlen(s, n);
    char *d = rt_xmalloc(len + 1);
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

char *rt_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        oom();
    va_end(ap);
    return s;
}

bool rt_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    /* Overflow is no number; underflow ("1e-400") is the value written, rounded to 0 or a
     * subnormal as strtod gives it. */
    if (end == s || (errno == ERANGE && fabs(v) > 1.0))
        return false;
    while (*end == ' ' || *end == '\t')
        end++;
    if (*end != '\0' || !isfinite(v))
        return false;
    *out = v;
    return true;
}

const char *rt_not_text_kind(const char *s, size_t n)
{
    static const struct {
        const char *magic;
        size_t len;
        const char *kind;
    } kinds[] = {
        /* UTF-32 before UTF-16: FF FE 00 00 starts both */
        {"\xFF\xFE\0\0", 4, "UTF-32 text: convert it to UTF-8 first (iconv -f UTF-32 -t UTF-8)"},
        {"\0\0\xFE\xFF", 4, "UTF-32 text: convert it to UTF-8 first (iconv -f UTF-32 -t UTF-8)"},
        {"\xFF\xFE", 2, "UTF-16 text: convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)"},
        {"\xFE\xFF", 2, "UTF-16 text: convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8)"},
        {"\x1F\x8B", 2, "gzip-compressed: decompress it first (gunzip)"},
        {"\xFD"
         "7zXZ",
         5, "xz-compressed: decompress it first (unxz)"},
        {"\x28\xB5\x2F\xFD", 4, "zstd-compressed: decompress it first (unzstd)"},
        {"PK\x03\x04", 4, "a zip archive: extract it first (unzip)"},
    };
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (n >= kinds[i].len && memcmp(s, kinds[i].magic, kinds[i].len) == 0)
            return kinds[i].kind;
    /* no mark: ASCII as UTF-16, a NUL after (little-endian) or before (big) each character */
    if (n >= 4 && u[0] < 0x80 && u[1] < 0x80 && u[2] < 0x80 && u[3] < 0x80) {
        if (u[0] && !u[1] && u[2] && !u[3])
            return "UTF-16 text: convert it to UTF-8 first (iconv -f UTF-16LE -t UTF-8)";
        if (!u[0] && u[1] && !u[2] && u[3])
            return "UTF-16 text: convert it to UTF-8 first (iconv -f UTF-16BE -t UTF-8)";
    }
    return NULL;
}

size_t rt_utf8_prefix(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    size_t n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--; /* s[n] continues a character that starts before it: cut before that character */
    return n;
}

/* First byte at or after i that starts a character. */
static size_t utf8_start(const char *s, size_t i)
{
    while (s[i] && ((unsigned char)s[i] & 0xC0) == 0x80)
        i++;
    return i;
}

char *rt_utf8_shorten_distinct(const char *s, const char *const *others, size_t n, size_t max,
                               char *out)
{
    size_t len = strlen(s);
    if (len <= max) {
        memcpy(out, s, len + 1);
        return out;
    }
    /* The longest prefix s shares with another string. */
    size_t common = 0;
    for (size_t i = 0; i < n; i++) {
        const char *o = others[i];
        if (!o || o == s || strcmp(o, s) == 0)
            continue;
        size_t k = 0;
        while (s[k] && s[k] == o[k])
            k++;
        if (k > common)
            common = k;
    }
    if (common + 1 <= max - 3) { /* the first difference shows in the head */
        size_t cut = rt_utf8_prefix(s, len, max - 3);
        memcpy(out, s, cut);
        strcpy(out + cut, "...");
        return out;
    }
    /* Head, "...", then a window that starts a little before the difference and runs to the end
     * of s or to a last "...". */
    size_t head = rt_utf8_prefix(s, len, (max - 6) * 2 / 5);
    size_t room = max - head - 3, from = common > 6 ? common - 6 : 0;
    if (from < head)
        from = head;
    if (len - from <= room) {
        from = utf8_start(s, len - room); /* the whole tail fits: show it all */
    } else {
        from = utf8_start(s, from);
        room -= 3;
    }
    size_t take = rt_utf8_prefix(s + from, len - from, room);
    memcpy(out, s, head);
    memcpy(out + head, "...", 3);
    memcpy(out + head + 3, s + from, take);
    out[head + 3 + take] = '\0';
    if (from + take < len)
        strcat(out, "...");
    return out;
}

/* Length of the valid UTF-8 character at p (1 to 4), or 0 when p does not start one. */
static size_t utf8_char(const unsigned char *p)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t n;
    unsigned min;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, min = 0x10000;
    } else {
        return 0;
    }
    unsigned cp = c & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

bool rt_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = utf8_char(p);
        if (n == 0)
            return false;
        p += n;
    }
    return true;
}

char *rt_strdup_utf8(const char *s)
{
    if (!s)
        return NULL;
    if (rt_utf8_valid(s))
        return rt_strdup(s);
    size_t len = strlen(s);
    char *out = rt_xmalloc(3 * len + 1), *o = out; /* each bad byte grows to 3 */
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        size_t n = utf8_char(p);
        if (n == 0) {
            memcpy(o, "\xEF\xBF\xBD", 3);
            o += 3;
            p++;
        } else {
            memcpy(o, p, n);
            o += n;
            p += n;
        }
    }
    *o = '\0';
    return out;
}

char **rt_split_list(const char *s, size_t *n)
{
    *n = 0;
    if (!s)
        return NULL;
    char **out = NULL;
    char *copy = rt_strdup(s), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ')
            t++;
        if (!*t)
            continue;
        out = rt_xrealloc(out, (*n + 1) * sizeof *out);
        out[(*n)++] = rt_strdup(t);
    }
    free(copy);
    return out;
}

void rt_free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

/* rt_intern's set: open addressing on the texts' hashes, at most half full, behind a lock; and
 * each thread's last texts, found again without it. */
static struct {
    pthread_mutex_t lock;
    const char **slot;
    size_t cap, n;
} interned = {.lock = PTHREAD_MUTEX_INITIALIZER};
#define INTERN_RECENT 16

static uint64_t text_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static const char **intern_find(const char **slot, size_t cap, const char *s, uint64_t h)
{
    size_t i = (size_t)h & (cap - 1);
    while (slot[i] && strcmp(slot[i], s) != 0)
        i = (i + 1) & (cap - 1);
    return &slot[i];
}

const char *rt_intern(const char *s)
{
    static _Thread_local const char *recent[INTERN_RECENT];
    uint64_t h = text_hash(s);
    const char **r = &recent[h % INTERN_RECENT];
    if (*r && strcmp(*r, s) == 0)
        return *r;
    pthread_mutex_lock(&interned.lock);
    if (2 * (interned.n + 1) > interned.cap) {
        size_t cap = interned.cap ? 2 * interned.cap : 64;
        const char **slot = rt_xcalloc(cap, sizeof *slot);
        for (size_t i = 0; i < interned.cap; i++)
            if (interned.slot[i])
                *intern_find(slot, cap, interned.slot[i], text_hash(interned.slot[i])) =
                    interned.slot[i];
        free(interned.slot);
        interned.slot = slot;
        interned.cap = cap;
    }
    const char **at = intern_find(interned.slot, interned.cap, s, h);
    if (!*at) {
        *at = rt_strdup(s);
        interned.n++;
    }
    *r = *at;
    pthread_mutex_unlock(&interned.lock);
    return *r;
}
