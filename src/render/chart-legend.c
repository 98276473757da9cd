/* The legend column right of the plot: colors, shapes, fills, symbols and lines, then notes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart-internal.h"
#include "rooftime/core/model.h"
#include "rooftime/render/chart.h"
#include "rooftime/render/draw.h"
#include "rooftime/util/strings.h"

typedef enum { E_HEADER, E_MARKER, E_LINE, E_RECT } entry_kind;

typedef struct entry {
    entry_kind kind;
    rt_marker_style m;
    rt_stroke s;
    char text[64];
} entry;

#define MAX_ENTRIES 96
#define MAX_VALUES 12 /* per key; the rest summarised */
#define ROW 15.0
#define TEXT_SIZE 10.0

static void add(entry *e, size_t *n, entry v)
{
    if (*n < MAX_ENTRIES)
        e[(*n)++] = v;
}

static void text_copy(char *dst, const char *src)
{
    size_t len = strlen(src);
    if (len > 30) {
        size_t cut = rt_utf8_prefix(src, len, 27);
        memcpy(dst, src, cut);
        strcpy(dst + cut, "...");
    } else {
        memcpy(dst, src, len + 1);
    }
}

static void key_entries(const rt_chart *ch, const rt_key *k, int what, entry *e, size_t *n)
{
    if (!k->tag || k->n == 0)
        return;
    bool hier_roof = ch->spec->view == RT_VIEW_ROOFLINE && ch->a->mode == RT_MODE_HIER;
    /* The header names the channel: a tag asked for colour may show as shape, and says so. */
    const char *channel = what == 0   ? (hier_roof ? "shape" : "colour")
                          : what == 1 ? "shape"
                                      : (rt_chart_fill_is_shape(ch) ? "shape" : "fill");
    entry h = {.kind = E_HEADER};
    char head[96];
    snprintf(head, sizeof head, "%s: %s", channel, k->tag);
    text_copy(h.text, head);
    add(e, n, h);
    for (size_t i = 0; i < k->n && i < MAX_VALUES; i++) {
        entry v = {.kind = E_MARKER,
                   .m = {.size = 9, .width = 1.4, .color = RT_MUTED, .filled = true}};
        if (what == 0 && !hier_roof)
            v.m.color = rt_palette_color(i);
        else if (what == 0 || what == 1)
            v.m.shape = rt_chart_shape(i);
        else if (rt_chart_fill_is_shape(ch))
            v.m.shape = rt_chart_shape(i); /* fill becomes shape in 4D, see rt_chart_style */
        else
            v.m.filled = i == 0;
        text_copy(v.text, k->values[i]);
        add(e, n, v);
    }
    if (k->n > MAX_VALUES) {
        entry v = {.kind = E_HEADER};
        snprintf(v.text, sizeof v.text, "+%zu more", k->n - MAX_VALUES);
        add(e, n, v);
    }
}

static size_t build(const rt_chart *ch, entry *e)
{
    size_t n = 0;
    bool hier_roof = ch->spec->view == RT_VIEW_ROOFLINE && ch->a->mode == RT_MODE_HIER;
    key_entries(ch, &ch->series, 0, e, &n);
    if (!(hier_roof && ch->series.tag) && !rt_chart_fill_is_shape(ch))
        key_entries(ch, &ch->marker, 1, e, &n);
    key_entries(ch, &ch->fill, 2, e, &n);
    switch (ch->spec->view) {
    case RT_VIEW_ROOFLINE:
        if (hier_roof) {
            add(e, &n, (entry){.kind = E_HEADER, .text = "colour: memory level"});
            for (size_t l = 0; l < ch->m->n_levels; l++) {
                if (!ch->level_on[l])
                    continue;
                entry v = {.kind = E_MARKER,
                           .m = {.size = 9,
                                 .width = 1.4,
                                 .filled = true,
                                 .color = rt_palette_level(l, ch->m->n_levels)}};
                text_copy(v.text, ch->m->levels[l].name);
                add(e, &n, v);
            }
        }
        if (ch->n_sel_items > 0)
            add(e, &n, (entry){.kind = E_HEADER, .text = "area: share of time"});
        break;
    case RT_VIEW_COMPLEXITY:
    case RT_VIEW_TIME:
    case RT_VIEW_4D:
        add(e, &n, (entry){.kind = E_HEADER, .text = "symbols"});
        if (ch->spec->view == RT_VIEW_4D) {
            add(e, &n,
                (entry){.kind = E_MARKER,
                        .m = {.size = 9, .width = 1.4, .color = RT_INK, .filled = true},
                        .text = "complexity (Q, W)"});
            add(e, &n,
                (entry){.kind = E_MARKER,
                        .m = {.size = 9, .width = 1.4, .color = RT_INK, .filled = false},
                        .text = "time x peaks"});
        }
        if (ch->family) {
            entry v = {.kind = E_LINE, .s = {.color = RT_INK, .width = 1.5}};
            snprintf(v.text, sizeof v.text, "%s%.40s",
                     ch->spec->view == RT_VIEW_4D ? "complexity, " : "by ", ch->family);
            add(e, &n, v);
            if (ch->spec->view == RT_VIEW_4D) {
                entry o = {.kind = E_LINE, .s = {.color = RT_INK, .width = 1.5, .dash = 1}};
                snprintf(o.text, sizeof o.text, "time, %.40s", ch->family);
                add(e, &n, o);
            }
        }
        entry r = {.kind = E_RECT, .s = {.color = RT_INK, .width = 1, .dash = 1}};
        snprintf(r.text, sizeof r.text, "%s",
                 ch->spec->view == RT_VIEW_TIME ? "overhead region (n\xcf\x84)" : "overhead box");
        add(e, &n, r);
        break;
    default:
        break;
    }
    return n;
}

double rt_chart_legend_width(rt_chart *ch)
{
    entry *e = rt_xcalloc(MAX_ENTRIES, sizeof *e);
    size_t n = build(ch, e);
    double wmax = 0;
    for (size_t i = 0; i < n; i++) {
        double w, h;
        rt_draw_text_extent(ch->d, e[i].text, TEXT_SIZE * ch->ts, e[i].kind == E_HEADER, &w, &h);
        wmax = fmax(wmax, w + (e[i].kind == E_HEADER ? 0 : 26 * ch->ts));
    }
    free(e);
    return fmin(fmax(wmax, 110 * ch->ts), 210 * ch->ts) + 18;
}

/* Word-wrap a note into lines no wider than w. */
static double note(rt_chart *ch, const char *s, double x, double y, double w)
{
    rt_text_style ts = {.size = 10 * ch->ts, .color = 0x555555};
    char line[512] = "";
    const char *p = s;
    while (*p) {
        const char *sp = strchr(p, ' ');
        size_t wl = sp ? (size_t)(sp - p) : strlen(p);
        char trial[512];
        snprintf(trial, sizeof trial, "%s%s%.*s", line, line[0] ? " " : "", (int)wl, p);
        double tw, th;
        rt_draw_text_extent(ch->d, trial, ts.size, false, &tw, &th);
        if (tw > w && line[0]) {
            rt_draw_text(ch->d, x, y, line, &ts);
            y += 12.5 * ch->ts;
            snprintf(line, sizeof line, "%.*s", (int)wl, p);
        } else {
            snprintf(line, sizeof line, "%s", trial);
        }
        p += wl;
        while (*p == ' ')
            p++;
    }
    if (line[0]) {
        rt_draw_text(ch->d, x, y, line, &ts);
        y += 12.5 * ch->ts;
    }
    return y + 4;
}

void rt_chart_legend(rt_chart *ch)
{
    entry *e = rt_xcalloc(MAX_ENTRIES, sizeof *e);
    size_t n = build(ch, e);
    double s = ch->ts;
    double x = ch->px + ch->pw + (ch->secondary ? 74 * s : 16), y = ch->py + 10 * s;
    rt_draw_group(ch->d, "legend");
    for (size_t i = 0; i < n; i++) {
        rt_text_style ts = {.size = TEXT_SIZE * s, .color = RT_INK};
        switch (e[i].kind) {
        case E_HEADER:
            if (i > 0)
                y += 5 * s;
            ts.bold = true;
            rt_draw_text(ch->d, x, y + 4 * s, e[i].text, &ts);
            break;
        case E_MARKER:
            rt_draw_marker(ch->d, x + 8, y, &e[i].m, NULL);
            rt_draw_text(ch->d, x + 24 * s, y + 3.5 * s, e[i].text, &ts);
            break;
        case E_LINE:
            rt_draw_line(ch->d, x, y, x + 18, y, &e[i].s);
            rt_draw_text(ch->d, x + 24 * s, y + 3.5 * s, e[i].text, &ts);
            break;
        case E_RECT:
            rt_draw_rect(ch->d, x + 1, y - 5, 15, 10, RT_INK, 0.05, &e[i].s, NULL);
            rt_draw_text(ch->d, x + 24 * s, y + 3.5 * s, e[i].text, &ts);
            break;
        }
        y += ROW * s;
    }
    y += 8;
    for (size_t i = 0; i < ch->n_notes; i++)
        y = note(ch, ch->notes[i], x, y, ch->legend_w - 8);
    rt_draw_group(ch->d, NULL);
    free(e);
}
