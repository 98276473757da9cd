/* JSON text written directly, as jansson's json_dumpf writes the same values with JSON_INDENT(2)
 * and JSON_REAL_PRECISION(prec): brackets, separators and indentation of its dump, strings escaped
 * as its dump_string escapes them, reals as its jsonp_dtostr prints them. tests/test-json-emit.c
 * checks every kind of value against jansson itself. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "json-emit.h"
#include "rooftime/util/strings.h"
#include "text-numbers.h"

static void flush(rt_jw *w)
{
    if (w->len && fwrite(w->buf, 1, w->len, w->fp) != w->len)
        w->bad = true;
    w->len = 0;
}

/* Room for n more bytes (n well under the buffer's size). */
static char *room(rt_jw *w, size_t n)
{
    if (w->len + n > sizeof w->buf)
        flush(w);
    return w->buf + w->len;
}

static void put(rt_jw *w, const char *s, size_t n)
{
    if (n > sizeof w->buf / 2) {
        flush(w);
        if (fwrite(s, 1, n, w->fp) != n)
            w->bad = true;
        return;
    }
    memcpy(room(w, n), s, n);
    w->len += n;
}

static void put_newline(rt_jw *w, int indent)
{
    char *o = room(w, (size_t)indent + 2);
    *o++ = '\n';
    memset(o, ' ', (size_t)indent);
    w->len += (size_t)indent + 1;
}

void rt_jw_begin(rt_jw *w, FILE *fp, int level, int prec)
{
    w->fp = fp;
    w->prec = prec;
    w->depth = 0;
    w->bad = level < 0 || level > 64;
    w->len = 0;
    w->indent[0] = 2 * level; /* the indentation of a closing bracket at the top */
}

int rt_jw_end(rt_jw *w)
{
    flush(w);
    return w->bad || w->depth != 0 ? -1 : 0;
}

/* Before a value: the separator and indentation of the innermost array's next element. */
static void before_value(rt_jw *w)
{
    if (w->depth > 0 && w->array[w->depth - 1]) {
        int d = w->depth - 1;
        if (w->count[d]++)
            put(w, ",", 1);
        put_newline(w, w->indent[d] + 2);
    }
}

static void open_container(rt_jw *w, bool array)
{
    before_value(w);
    if (w->depth >= RT_JW_MAX_DEPTH) {
        w->bad = true;
        return;
    }
    /* A container's closing bracket sits where the line holding its start is indented. */
    int indent = w->depth ? w->indent[w->depth - 1] + 2 : w->indent[0];
    w->indent[w->depth] = indent;
    w->array[w->depth] = array;
    w->count[w->depth] = 0;
    w->depth++;
    put(w, array ? "[" : "{", 1);
}

void rt_jw_object(rt_jw *w)
{
    open_container(w, false);
}

void rt_jw_array(rt_jw *w)
{
    open_container(w, true);
}

void rt_jw_close(rt_jw *w)
{
    if (w->depth == 0) {
        w->bad = true;
        return;
    }
    int d = --w->depth;
    if (w->count[d])
        put_newline(w, w->indent[d]);
    put(w, w->array[d] ? "]" : "}", 1);
}

/* What a byte of a string needs: 0 nothing, 1 an escape, 2 the string checked for UTF-8. */
static inline unsigned char byte_class(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\' ? 1 : c >= 0x80 ? 2 : 0;
}

/* s quoted and escaped as jansson's dump_string escapes it (no flags: UTF-8 passes as it is). */
static void put_string(rt_jw *w, const char *s)
{
    char *fixed = NULL;
    bool checked = false;
    put(w, "\"", 1);
    const char *run = s;
    for (const char *p = s;; p++) {
        unsigned char c = (unsigned char)*p, k = byte_class(c);
        if (k == 0 || (k == 2 && checked))
            continue;
        if (k == 2) { /* jansson holds valid UTF-8 only: bad bytes become U+FFFD */
            checked = true;
            if (!rt_utf8_valid(s)) {
                fixed = rt_strdup_utf8(s);
                p = fixed + (p - s);
                run = fixed + (run - s);
            }
            continue;
        }
        put(w, run, (size_t)(p - run));
        if (!c)
            break;
        char esc[8];
        const char *t = c == '"'    ? "\\\""
                        : c == '\\' ? "\\\\"
                        : c == '\b' ? "\\b"
                        : c == '\f' ? "\\f"
                        : c == '\n' ? "\\n"
                        : c == '\r' ? "\\r"
                        : c == '\t' ? "\\t"
                                    : NULL;
        if (!t) {
            static const char hex[] = "0123456789ABCDEF";
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            esc[6] = '\0';
            t = esc;
        }
        put(w, t, strlen(t));
        run = p + 1;
    }
    put(w, "\"", 1);
    free(fixed);
}

void rt_jw_key(rt_jw *w, const char *key)
{
    if (w->depth == 0 || w->array[w->depth - 1]) {
        w->bad = true;
        return;
    }
    int d = w->depth - 1;
    if (w->count[d]++)
        put(w, ",", 1);
    put_newline(w, w->indent[d] + 2);
    put_string(w, key ? key : "");
    put(w, ": ", 2);
}

void rt_jw_string(rt_jw *w, const char *s)
{
    before_value(w);
    if (s)
        put_string(w, s);
    else
        put(w, "null", 4);
}

void rt_jw_real(rt_jw *w, double v)
{
    before_value(w);
    if (!isfinite(v)) {
        put(w, "null", 4);
        return;
    }
    /* jsonp_dtostr: "%.<prec>g", ".0" when that has neither '.' nor 'e', the exponent without
     * its '+' and leading zeros. */
    char b[48];
    if (!rt_text_fast_g(b, v, w->prec))
        snprintf(b, sizeof b, "%.*g", w->prec, v);
    size_t n = strlen(b);
    char *e = strchr(b, 'e');
    if (!e && !strchr(b, '.')) {
        memcpy(b + n, ".0", 3);
        n += 2;
    } else if (e) {
        char *start = e + 1, *end = start + 1;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start) {
            memmove(start, end, (size_t)(b + n + 1 - end));
            n -= (size_t)(end - start);
        }
    }
    put(w, b, n);
}

void rt_jw_integer(rt_jw *w, long long v)
{
    before_value(w);
    char b[24];
    int n = snprintf(b, sizeof b, "%lld", v);
    put(w, b, (size_t)n);
}

void rt_jw_bool(rt_jw *w, bool v)
{
    before_value(w);
    put(w, v ? "true" : "false", v ? 4 : 5);
}

bool rt_jw_whole(double v)
{
    return v == floor(v) && fabs(v) < 9.0e15;
}

void rt_jw_num(rt_jw *w, double v)
{
    if (rt_jw_whole(v))
        rt_jw_integer(w, (long long)v);
    else
        rt_jw_real(w, v);
}

void rt_jw_null(rt_jw *w)
{
    before_value(w);
    put(w, "null", 4);
}

void rt_jw_member_string(rt_jw *w, const char *key, const char *s)
{
    rt_jw_key(w, key);
    rt_jw_string(w, s);
}

void rt_jw_member_real(rt_jw *w, const char *key, double v)
{
    rt_jw_key(w, key);
    rt_jw_real(w, v);
}

void rt_jw_member_integer(rt_jw *w, const char *key, long long v)
{
    rt_jw_key(w, key);
    rt_jw_integer(w, v);
}

void rt_jw_member_bool(rt_jw *w, const char *key, bool v)
{
    rt_jw_key(w, key);
    rt_jw_bool(w, v);
}

void rt_jw_json(rt_jw *w, json_t *v)
{
    before_value(w);
    /* jansson's text of v, its lines after the first indented where the value stands */
    int indent = w->depth ? w->indent[w->depth - 1] + 2 : w->indent[0];
    char *t =
        v ? json_dumps(v, JSON_INDENT(2) | JSON_REAL_PRECISION(w->prec) | JSON_ENCODE_ANY) : NULL;
    json_decref(v);
    if (!t) {
        w->bad = true;
        return;
    }
    for (const char *p = t, *nl;; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl) {
            put(w, p, strlen(p));
            break;
        }
        put(w, p, (size_t)(nl - p));
        put_newline(w, indent);
    }
    free(t);
}
