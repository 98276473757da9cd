/* Error messages with context, and warning lists. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

void rt_error_set(rt_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
}

void rt_error_prefix(rt_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char prefix[1024], old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    snprintf(err->msg, sizeof err->msg, "%s: %s", prefix, old);
}

void rt_warnings_add(rt_warnings *w, const char *fmt, ...)
{
    if (!w)
        return;
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 8;
        w->msg = rt_xrealloc(w->msg, w->cap * sizeof *w->msg);
    }
    w->msg[w->n++] = rt_strdup(buf);
}

void rt_warnings_move(rt_warnings *dst, rt_warnings *src)
{
    if (!src->n)
        return;
    if (dst->n + src->n > dst->cap) {
        dst->cap = dst->n + src->n > 2 * dst->cap ? dst->n + src->n : 2 * dst->cap;
        dst->msg = rt_xrealloc(dst->msg, dst->cap * sizeof *dst->msg);
    }
    memcpy(dst->msg + dst->n, src->msg, src->n * sizeof *src->msg);
    dst->n += src->n;
    free(src->msg);
    src->msg = NULL;
    src->n = src->cap = 0;
}

void rt_warnings_release(rt_warnings *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n; i++)
        free(w->msg[i]);
    free(w->msg);
    w->msg = NULL;
    w->n = w->cap = 0;
}
