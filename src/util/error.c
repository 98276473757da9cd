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
