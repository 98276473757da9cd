/* The re-evaluation's run (re_run) and its messages: the reason it stopped, and the lines the
 * child sends its parent (warnings, the file being read). A leaf that cupti-reevaluate.c (the
 * child and its parent) and cupti-images.c (the images) both call. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti-reevaluate-run.h"

void re_fail(re_run *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, r->errn, fmt, ap);
    va_end(ap);
}

void re_send(int fd, char kind, const char *text)
{
    size_t n = strlen(text);
    char *line = malloc(n + 2);
    if (!line)
        return;
    line[0] = kind;
    for (size_t i = 0; i < n; i++)
        line[i + 1] = text[i] == '\n' || text[i] == '\r' ? ' ' : text[i];
    line[n + 1] = '\n';
    for (size_t off = 0; off < n + 2;) {
        ssize_t w = write(fd, line + off, n + 2 - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    free(line);
}

void re_warn(re_run *r, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    re_send(r->fd, 'W', msg);
}

void re_reading(re_run *r, const char *path)
{
    re_send(r->fd, 'F', path);
}
