/* The verdict tables' text rows: formatted on the workers a block at a time and written in the
 * rows' order (rt_parallel_write; a million configs' rows take the time of half). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis-prefetch.h"
#include "analysis-text-rows.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/model.h"
#include "rooftime/core/overhead-path.h"
#include "rooftime/util/format.h"
#include "rooftime/util/parallel.h"
#include "rooftime/util/strings.h"
#include "text-numbers.h"

/* The most bytes a row takes (numbers, label, the overhead paid, a name cut to 83 bytes); rows a
 * worker formats in a round. */
enum { MAX_ROW = 576, BLOCK = 8192 };

/* s padded with spaces to width bytes (left-justified or right), as printf's %*s; the end. s
 * is shorter than 64 bytes. */
static char *pad(char *o, const char *s, int width, bool left)
{
    size_t len = strlen(s), w = width > 0 ? (size_t)width : 0, fill = w > len ? w - len : 0;
    if (!left) {
        memset(o, ' ', fill);
        o += fill;
    }
    memcpy(o, s, len);
    o += len;
    if (left) {
        memset(o, ' ', fill);
        o += fill;
    }
    return o;
}

/* One row into o (at most MAX_ROW bytes); the end. */
static char *format_row(char *o, size_t rank, const rt_analysis *a, const rt_verdict *v,
                        double time, const char *name, rt_text_widths w)
{
    char t[32], rec[32], gf[32], ai[32], eff[32], n[32];
    rt_text_seconds(t, sizeof t, time);
    rt_text_seconds(rec, sizeof rec, v->recoverable);
    rt_text_value(gf, sizeof gf, v->W / 1e9);
    rt_text_value(ai, sizeof ai, v->ai_ref);
    rt_text_value(eff, sizeof eff, v->efficiency);
    rt_text_launches(n, sizeof n, v->n);
    double share = a->total_time > 0 ? 100.0 * time / a->total_time : 0;
    /* Long C++ names go last so the columns stay aligned; cut very long ones. */
    char cut[84];
    const char *shown = name;
    size_t len = strlen(name);
    if (len > 80) {
        snprintf(cut, sizeof cut, "%.*s...", (int)rt_utf8_prefix(name, len, 77), name);
        shown = cut;
    }
    /* As fprintf("%4zu  %*s %6.1f%% %9s %10s %9s  %-*s %*s %*s  %s\n", ...) would write it; put
     * together by hand, which at a million rows is several times faster. */
    o = rt_text_count(o, rank, 4);
    *o++ = ' ';
    *o++ = ' ';
    o = pad(o, t, rt_fmt_field(t, 10), false);
    *o++ = ' ';
    o = rt_text_fixed1(o, share, 6);
    *o++ = '%';
    *o++ = ' ';
    o = pad(o, n, 9, false);
    *o++ = ' ';
    o = pad(o, gf, 10, false);
    *o++ = ' ';
    o = pad(o, ai, 9, false);
    *o++ = ' ';
    *o++ = ' ';
    o = pad(o, v->bound_label, w.bound, true);
    *o++ = ' ';
    o = pad(o, eff, w.eff, false);
    *o++ = ' ';
    o = pad(o, rec, rt_fmt_field(rec, 10), false);
    *o++ = ' ';
    *o++ = ' ';
    if (a->own_paths) { /* the overhead its calls pay, where kernels name their own */
        char paid[64];
        o = pad(o, rt_verdict_paid_label(v, paid, sizeof paid), RT_TEXT_PAID_WIDTH, true);
        *o++ = ' ';
        *o++ = ' ';
    }
    /* The name too (at most 83 bytes, after at most about 380). */
    size_t sl = shown == name ? len : strlen(shown);
    memcpy(o, shown, sl);
    o += sl;
    *o++ = '\n';
    return o;
}

typedef struct rows_job {
    const rt_analysis *a;
    const size_t *order;
    size_t n; /* all the rows */
    bool items;
    rt_text_widths w; /* the widths of the columns that vary (rt_text_widths_of) */
} rows_job;

/* Rows [begin, end), formatted a block at a time into a buffer (rt_parallel_write_fn). */
static int rows_part(void *arg, size_t begin, size_t end, FILE *out)
{
    const rows_job *j = arg;
    const rt_analysis *a = j->a;
    enum { ROWS = 256 };
    char *buf = rt_xmalloc((size_t)ROWS * MAX_ROW), *o = buf;
    for (size_t r = begin; r < end; r++) {
        if (j->items) {
            rt_rows_prefetch_items(a, j->order, r, j->n);
            const rt_item *it = &a->items[j->order[r]];
            o = format_row(o, r + 1, a, &it->v, it->kernel->time, it->kernel->name, j->w);
        } else {
            rt_rows_prefetch_configs(a, j->order, r, j->n);
            const rt_config *c = &a->configs[j->order[r]];
            o = format_row(o, r + 1, a, &c->v, c->sum.time, c->label, j->w);
        }
        if ((size_t)(o - buf) > (size_t)(ROWS - 1) * MAX_ROW || r + 1 == end) {
            fwrite(buf, 1, (size_t)(o - buf), out);
            o = buf;
        }
    }
    free(buf);
    return 0;
}

rt_text_widths rt_text_widths_of(const rt_analysis *a, const size_t *order, size_t n, bool items)
{
    rt_text_widths w = {RT_TEXT_BOUND_WIDTH, RT_TEXT_EFF_WIDTH};
    for (size_t r = 0; r < n; r++) {
        const rt_verdict *v = items ? &a->items[order[r]].v : &a->configs[order[r]].v;
        int l = (int)strlen(v->bound_label);
        if (l > w.bound)
            w.bound = l < 63 ? l : 63;
        char eff[32];
        rt_text_value(eff, sizeof eff, v->efficiency);
        l = (int)strlen(eff);
        if (l > w.eff)
            w.eff = l;
    }
    return w;
}

void rt_text_rows(FILE *fp, const rt_analysis *a, const size_t *order, size_t n, bool items,
                  rt_text_widths w)
{
    rows_job j = {a, order, n, items, w};
    rt_parallel_write(fp, n, BLOCK, rows_part, &j);
}
