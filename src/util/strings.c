/* Allocation, string and number helpers that every module uses. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
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
    if (end == s || errno == ERANGE)
        return false;
    while (*end == ' ' || *end == '\t')
        end++;
    if (*end != '\0' || !isfinite(v))
        return false;
    *out = v;
    return true;
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
