/* What the oneDNN verbose reader says of its input: the lines it cannot read (every one counted
 * by number, the first RT_DN_MAX_BAD_DETAILS with why) and, once each, what the cost model does
 * not cover. The line reader (onednn.c) and the execution records (onednn-exec.c) both report
 * through it; onednn.c turns what it gathered into warnings when the profile is made. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "onednn-internal.h"
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"

void rt_onednn_bad_line(rt_onednn_reader *r, const char *fmt, ...)
{
    if (r->n_bad < RT_DN_MAX_BAD_DETAILS) {
        char buf[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        r->bad_msgs[r->n_bad] = rt_asprintf("'%s': line %zu: %s", r->origin, r->lineno, buf);
    }
    if (r->n_bad < RT_DN_MAX_BAD_LINES)
        r->bad_lines[r->n_bad] = r->lineno;
    r->n_bad++;
}

void rt_onednn_note_once(rt_onednn_reader *r, const char *key, const char *fmt, ...)
{
    if (rt_name_index_get(&r->noted, key, strlen(key)) != (size_t)-1)
        return;
    rt_name_index_put(&r->noted, key, strlen(key), 1);
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    rt_warnings_add(&r->notes, "'%s': %s", r->origin, buf);
}
