/* Private to formats: JSON text written directly, byte for byte as jansson's json_dumpf writes the
 * same values with JSON_INDENT(2) and JSON_REAL_PRECISION(prec), without building a jansson tree
 * (json-emit.c): the elements of a million-kernel analysis, where building and dumping a tree per
 * element was most of the writing's time. */
#ifndef ROOFTIME_FORMATS_JSON_EMIT_H
#define ROOFTIME_FORMATS_JSON_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum { RT_JW_MAX_DEPTH = 16 };

/* A writer of one value (an object or array and what it holds), buffered and written to fp. */
typedef struct rt_jw {
    FILE *fp;
    int prec;  /* significant digits of reals (jansson's JSON_REAL_PRECISION) */
    int depth; /* containers open */
    int indent[RT_JW_MAX_DEPTH];
    bool array[RT_JW_MAX_DEPTH];
    size_t count[RT_JW_MAX_DEPTH]; /* members or elements written in each */
    bool bad;                      /* nesting too deep, or a write failed */
    size_t len;
    char buf[8192];
} rt_jw;

/* A value written at nesting level `level` (its members are indented 2 x (level + 1) spaces, its
 * closing bracket 2 x level), as json_dumpf writes it there. */
void rt_jw_begin(rt_jw *w, FILE *fp, int level, int prec);
/* Write what is buffered; 0, or -1 when anything went wrong. */
int rt_jw_end(rt_jw *w);

void rt_jw_object(rt_jw *w);
void rt_jw_array(rt_jw *w);
/* Close the innermost object or array. */
void rt_jw_close(rt_jw *w);
/* The next member's key of the innermost object; its value follows. */
void rt_jw_key(rt_jw *w, const char *key);

/* Values: a member's after rt_jw_key, or the innermost array's next element. */
void rt_jw_string(rt_jw *w, const char *s); /* NULL: null */
void rt_jw_real(rt_jw *w, double v);        /* json_real's text; not finite: null */
void rt_jw_integer(rt_jw *w, long long v);
void rt_jw_bool(rt_jw *w, bool v);
void rt_jw_null(rt_jw *w);
/* A number that stays exact: a whole one below 9e15 as an integer, anything else as a real
 * (rt_json_num's rule, rt_jw_whole). */
void rt_jw_num(rt_jw *w, double v);
bool rt_jw_whole(double v);
/* A member of the innermost object: rt_jw_key, then the value. */
void rt_jw_member_string(rt_jw *w, const char *key, const char *s);
void rt_jw_member_real(rt_jw *w, const char *key, double v);
void rt_jw_member_integer(rt_jw *w, const char *key, long long v);
void rt_jw_member_bool(rt_jw *w, const char *key, bool v);
/* A value built as a jansson tree, dumped by jansson in place (v is released; NULL: an error). */
struct json_t;
void rt_jw_json(rt_jw *w, struct json_t *v);

#endif
