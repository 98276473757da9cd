/* Where a field lies in a JSON document's text: the walk of a JSON path over the raw text. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rooftime/util/json-locate.h"

/* A key longer than this (decoded) is stepped over and never matched. */
enum { KEY_MAX = 1024 };
/* Members and elements a path may walk through; rt_jr's paths have a few. */
enum { STEPS_MAX = 64 };

typedef struct scan {
    const unsigned char *s;
    size_t n, i;
} scan;

static bool at(const scan *c, char ch)
{
    return c->i < c->n && c->s[c->i] == (unsigned char)ch;
}

static void white(scan *c)
{
    while (c->i < c->n &&
           (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n' || c->s[c->i] == '\r'))
        c->i++;
}

static int hex4(const scan *c, size_t from, unsigned *out)
{
    unsigned v = 0;
    if (from + 4 > c->n)
        return -1;
    for (size_t k = from; k < from + 4; k++) {
        unsigned char h = c->s[k];
        unsigned d = h >= '0' && h <= '9'   ? (unsigned)(h - '0')
                     : h >= 'a' && h <= 'f' ? (unsigned)(h - 'a' + 10)
                     : h >= 'A' && h <= 'F' ? (unsigned)(h - 'A' + 10)
                                            : 16u;
        if (d == 16)
            return -1;
        v = v * 16 + d;
    }
    *out = v;
    return 0;
}

/* Append code point cp as UTF-8 to key; false when it does not fit. */
static bool put_utf8(char *key, size_t *k, unsigned cp)
{
    unsigned char b[4];
    size_t m;
    if (cp < 0x80) {
        b[0] = (unsigned char)cp;
        m = 1;
    } else if (cp < 0x800) {
        b[0] = (unsigned char)(0xC0 | cp >> 6);
        b[1] = (unsigned char)(0x80 | (cp & 0x3F));
        m = 2;
    } else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xE0 | cp >> 12);
        b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp & 0x3F));
        m = 3;
    } else {
        b[0] = (unsigned char)(0xF0 | cp >> 18);
        b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        b[3] = (unsigned char)(0x80 | (cp & 0x3F));
        m = 4;
    }
    if (*k + m > KEY_MAX)
        return false;
    memcpy(key + *k, b, m);
    *k += m;
    return true;
}

/* The escape after a backslash at c->i (the backslash already passed) into key; c->i past it.
 * Returns false when the key cannot hold it or the escape is not one JSON has (then the key
 * matches nothing, and the string is still stepped over). */
static bool unescape(scan *c, char *key, size_t *k)
{
    if (c->i >= c->n)
        return false;
    unsigned char e = c->s[c->i++];
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *p = e ? strchr(from, e) : NULL;
    if (p)
        return put_utf8(key, k, (unsigned char)to[p - from]);
    unsigned cp, lo;
    if (e != 'u' || hex4(c, c->i, &cp) != 0)
        return false;
    c->i += 4;
    if (cp >= 0xD800 && cp < 0xDC00 && c->i + 6 <= c->n && c->s[c->i] == '\\' &&
        c->s[c->i + 1] == 'u' && hex4(c, c->i + 2, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        c->i += 6;
    }
    return put_utf8(key, k, cp);
}

/* The string at c->i (at its opening quote), decoded into key when key is not NULL: its length,
 * or SIZE_MAX when it was not kept (too long, a bad escape). c->i goes past the closing quote;
 * -1 through *ok when the string does not end. */
static size_t string(scan *c, char *key, bool *ok)
{
    size_t k = 0;
    bool kept = key != NULL;
    c->i++;
    while (c->i < c->n) {
        unsigned char ch = c->s[c->i++];
        if (ch == '"') {
            *ok = true;
            return kept ? k : SIZE_MAX;
        }
        if (ch == '\\') {
            if (kept)
                kept = unescape(c, key, &k);
            else if (c->i < c->n)
                c->i++;
        } else if (kept) {
            if (k < KEY_MAX)
                key[k++] = (char)ch;
            else
                kept = false;
        }
    }
    *ok = false;
    return SIZE_MAX;
}

/* Step over the value at c->i (after white space): brackets counted, strings stepped over whole.
 * Returns -1 when the text ends inside it or no value starts there. */
static int skip_value(scan *c)
{
    size_t depth = 0;
    bool ok;
    while (c->i < c->n) {
        unsigned char ch = c->s[c->i];
        if (ch == '"') {
            string(c, NULL, &ok);
            if (!ok)
                return -1;
            if (depth == 0)
                return 0;
        } else if (ch == '{' || ch == '[') {
            depth++;
            c->i++;
        } else if (ch == '}' || ch == ']') {
            if (depth == 0)
                return -1;
            c->i++;
            if (--depth == 0)
                return 0;
        } else if (depth == 0) {
            size_t from = c->i;
            while (c->i < c->n && !strchr(",]} \t\r\n", c->s[c->i] ? c->s[c->i] : ' '))
                c->i++;
            return c->i > from ? 0 : -1;
        } else {
            c->i++;
        }
    }
    return -1;
}

/* After a member or element: step over the ',' before the next one; 1 at the closing bracket
 * close, 0 past a ',', -1 on anything else. */
static int next_item(scan *c, char close)
{
    white(c);
    if (at(c, close))
        return 1;
    if (!at(c, ','))
        return -1;
    c->i++;
    white(c);
    return 0;
}

/* Into the object or array at c->i, to its first member or element: false when it is not one,
 * or is empty. */
static bool enter(scan *c, char open, char close)
{
    if (!at(c, open))
        return false;
    c->i++;
    white(c);
    return !at(c, close);
}

/* The element [index] of the array at c->i: c->i at it and 0, or -1 when the array has no such
 * element. */
static int element(scan *c, size_t index)
{
    if (!enter(c, '[', ']'))
        return -1;
    for (size_t k = 0; k < index; k++)
        if (skip_value(c) != 0 || next_item(c, ']') != 0)
            return -1;
    return 0;
}

/* The member of the object at c->i whose key is the longest that *rest starts with, followed by
 * '.', '[' or the end: c->i at its value and *rest past the key, 0; or -1 when there is none. */
static int member(scan *c, const char **rest)
{
    char key[KEY_MAX];
    size_t best_at = SIZE_MAX, best_len = 0;
    bool ok;
    if (!enter(c, '{', '}'))
        return -1;
    for (;;) {
        if (!at(c, '"'))
            return -1;
        size_t klen = string(c, key, &ok);
        if (!ok)
            return -1;
        white(c);
        if (!at(c, ':'))
            return -1;
        c->i++;
        white(c);
        const char *r = *rest;
        if (klen != SIZE_MAX && (best_at == SIZE_MAX || klen > best_len) &&
            strncmp(r, key, klen) == 0 && memchr(key, '\0', klen) == NULL &&
            (r[klen] == '\0' || r[klen] == '.' || r[klen] == '[')) {
            best_at = c->i;
            best_len = klen;
        }
        if (skip_value(c) != 0)
            break;
        if (next_item(c, '}') != 0)
            break;
    }
    if (best_at == SIZE_MAX)
        return -1;
    c->i = best_at;
    *rest += best_len;
    return 0;
}

/* "[N]" at *rest: N, and *rest past it; SIZE_MAX when it is not one. */
static size_t index_of(const char **rest)
{
    const char *p = *rest + 1;
    size_t v = 0;
    if (*p < '0' || *p > '9')
        return SIZE_MAX;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (SIZE_MAX - 10) / 10)
            return SIZE_MAX;
        v = v * 10 + (size_t)(*p - '0');
    }
    if (*p != ']')
        return SIZE_MAX;
    *rest = p + 1;
    return v;
}

int rt_json_locate(const char *text, size_t len, const char *path, size_t *line, size_t *col)
{
    scan c = {(const unsigned char *)text, text ? len : 0, 0};
    const char *rest = path ? path : "";
    size_t found = SIZE_MAX;
    white(&c);
    for (int step = 0; step <= STEPS_MAX && c.i < c.n; step++) {
        found = c.i;
        if (*rest == '\0')
            break;
        if (*rest == '[') {
            size_t index = index_of(&rest);
            if (index == SIZE_MAX || element(&c, index) != 0)
                break;
            continue;
        }
        if (*rest == '.' && step > 0)
            rest++;
        if (member(&c, &rest) != 0)
            break;
    }
    if (found == SIZE_MAX)
        return -1;
    size_t ln = 1, cl = 1;
    for (size_t k = 0; k < found; k++) {
        if (c.s[k] == '\n') {
            ln++;
            cl = 1;
        } else if ((c.s[k] & 0xC0) != 0x80) {
            cl++;
        }
    }
    *line = ln;
    *col = cl;
    return 0;
}
