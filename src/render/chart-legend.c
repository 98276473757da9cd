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

/* Whether the legend lists a thing: once the view has drawn, only what it drew; before (the
 * legend's width is taken before the plot is laid out), everything it may draw. */
static bool shown(const rt_chart *ch, bool drawn)
{
    return !ch->drawn_known || drawn;
}

static void key_entries(const rt_chart *ch, const rt_key *k, int what, entry *e, size_t *n)
{
    if (!k->tag || k->n == 0)
        return;
    size_t n_shown = 0;
    for (size_t i = 0; i < k->n; i++)
        n_shown += shown(ch, k->drawn[i]);
    if (n_shown == 0)
        return;
    bool hier_roof = ch->view->hier_levels && ch->a->mode == RT_MODE_HIER;
    /* The header names the channel: a tag asked for colour may show as shape, and says so. */
    const char *channel = what == 0   ? (hier_roof ? "shape" : "colour")
                          : what == 1 ? "shape"
                                      : (rt_chart_fill_is_shape(ch) ? "shape" : "fill");
    entry h = {.kind = E_HEADER};
    char head[96];
    snprintf(head, sizeof head, "%s: %s", channel, k->tag);
    text_copy(h.text, head);
    add(e, n, h);
    size_t listed = 0;
    for (size_t i = 0; i < k->n && listed < MAX_VALUES; i++) {
        if (!shown(ch, k->drawn[i]))
            continue; /* no symbol of it drawn (no counts to place it) */
        listed++;
        /* The value keeps its index: the colour or shape it has on the plot. */
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
        /* Cut so that values alike up to their last characters (template names) stay apart. */
        rt_utf8_shorten_distinct(k->values[i], (const char *const *)k->values, k->n, 30, v.text);
        add(e, n, v);
    }
    if (n_shown > listed) {
        entry v = {.kind = E_HEADER};
        snprintf(v.text, sizeof v.text, "+%zu more", n_shown - listed);
        add(e, n, v);
    }
}

struct rt_legend_list {
    entry *e;
    size_t n;
};

void rt_chart_legend_roofline(const rt_chart *ch, rt_legend_list *l)
{
    entry *e = l->e;
    size_t n = l->n;
    if (ch->a->mode == RT_MODE_HIER) {
        add(e, &n, (entry){.kind = E_HEADER, .text = "colour: memory level"});
        for (size_t lv = 0; lv < ch->m->n_levels; lv++) {
            if (!ch->level_on[lv])
                continue;
            entry v = {.kind = E_MARKER,
                       .m = {.size = 9,
                             .width = 1.4,
                             .filled = true,
                             .color = rt_palette_level(lv, ch->m->n_levels)}};
            text_copy(v.text, ch->m->levels[lv].name);
            add(e, &n, v);
        }
    }
    if (ch->n_sel_items > 0 && shown(ch, ch->n_drawn[0] > 0))
        add(e, &n, (entry){.kind = E_HEADER, .text = "area: share of time"});
    l->n = n;
}

void rt_chart_legend_planes(const rt_chart *ch, rt_legend_list *l)
{
    entry *e = l->e;
    size_t n = l->n;
    bool is_4d = ch->view->closed_open;
    bool closed = is_4d && shown(ch, ch->n_drawn[0] > 0),
         open = is_4d && shown(ch, ch->n_drawn[1] > 0);
    bool solid = ch->family && shown(ch, ch->traj_drawn[0]),
         dashed = ch->family && is_4d && shown(ch, ch->traj_drawn[1]);
    bool boxes = shown(ch, ch->n_oh_drawn > 0);
    if (closed || open || solid || dashed || boxes)
        add(e, &n, (entry){.kind = E_HEADER, .text = "symbols"});
    if (closed)
        add(e, &n,
            (entry){.kind = E_MARKER,
                    .m = {.size = 9, .width = 1.4, .color = RT_INK, .filled = true},
                    .text = "complexity (Q, W)"});
    if (open)
        add(e, &n,
            (entry){.kind = E_MARKER,
                    .m = {.size = 9, .width = 1.4, .color = RT_INK, .filled = false},
                    .text = "time x peaks"});
    if (solid) {
        entry v = {.kind = E_LINE, .s = {.color = RT_INK, .width = 1.5}};
        snprintf(v.text, sizeof v.text, "%s%.40s", is_4d ? "complexity, " : "by ", ch->family);
        add(e, &n, v);
    }
    if (dashed) {
        entry o = {.kind = E_LINE, .s = {.color = RT_INK, .width = 1.5, .dash = 1}};
        snprintf(o.text, sizeof o.text, "time, %.40s", ch->family);
        add(e, &n, o);
    }
    if (boxes) {
        entry r = {.kind = E_RECT, .s = {.color = RT_INK, .width = 1, .dash = 1}};
        snprintf(r.text, sizeof r.text, "%s", ch->view->overhead_label);
        add(e, &n, r);
    }
    l->n = n;
}

static size_t build(const rt_chart *ch, entry *e)
{
    size_t n = 0;
    bool hier_roof = ch->view->hier_levels && ch->a->mode == RT_MODE_HIER;
    key_entries(ch, &ch->series, 0, e, &n);
    if (!(hier_roof && ch->series.tag) && !rt_chart_fill_is_shape(ch))
        key_entries(ch, &ch->marker, 1, e, &n);
    key_entries(ch, &ch->fill, 2, e, &n);
    rt_legend_list l = {.e = e, .n = n};
    ch->view->legend(ch, &l);
    return l.n;
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

#define NOTE_SIZE 10.0
#define NOTE_LINE 12.5
#define NOTE_GAP 4.0
#define MAX_NOTE_LINES 32

typedef struct note_lines {
    char line[MAX_NOTE_LINES][512];
    size_t n;
} note_lines;

/* Cut s to fit w, ending in "...". */
static void fit_width(rt_chart *ch, char *s, size_t cap, double size, double w)
{
    double tw, th;
    rt_draw_text_extent(ch->d, s, size, false, &tw, &th);
    if (tw <= w)
        return;
    size_t len = strlen(s);
    while (len > 0) {
        len = rt_utf8_prefix(s, len, len - 1);
        char t[512];
        snprintf(t, sizeof t, "%.*s...", (int)len, s);
        rt_draw_text_extent(ch->d, t, size, false, &tw, &th);
        if (tw <= w || len == 0) {
            snprintf(s, cap, "%s", t);
            return;
        }
    }
}

/* Word-wrap a note into lines no wider than w (a word wider than w alone is cut). */
static void note_wrap(rt_chart *ch, const char *s, double w, note_lines *out)
{
    double size = NOTE_SIZE * ch->ts;
    char line[512] = "";
    out->n = 0;
    const char *p = s;
    while (*p) {
        const char *sp = strchr(p, ' ');
        size_t wl = sp ? (size_t)(sp - p) : strlen(p);
        char trial[512];
        snprintf(trial, sizeof trial, "%s%s%.*s", line, line[0] ? " " : "", (int)wl, p);
        double tw, th;
        rt_draw_text_extent(ch->d, trial, size, false, &tw, &th);
        if (tw > w && line[0]) {
            if (out->n < MAX_NOTE_LINES)
                snprintf(out->line[out->n++], sizeof out->line[0], "%s", line);
            snprintf(line, sizeof line, "%.*s", (int)wl, p);
        } else {
            snprintf(line, sizeof line, "%s", trial);
        }
        p += wl;
        while (*p == ' ')
            p++;
    }
    if (line[0] && out->n < MAX_NOTE_LINES)
        snprintf(out->line[out->n++], sizeof out->line[0], "%s", line);
    for (size_t i = 0; i < out->n; i++)
        fit_width(ch, out->line[i], sizeof out->line[i], size, w);
}

/* The notes under the legend from baseline y down to the bottom of the drawing; those that do not
 * fit are counted in a last line, "+N more notes", whose hover text (SVG) holds them. */
static void notes_draw(rt_chart *ch, double x, double y, double w, double bottom)
{
    double s = ch->ts, line_h = NOTE_LINE * s, desc = 0.24 * NOTE_SIZE * s;
    rt_text_style ts = {.size = NOTE_SIZE * s, .color = 0x555555};
    note_lines *nl = rt_xmalloc(sizeof *nl);
    size_t i = 0;
    for (; i < ch->n_notes; i++) {
        note_wrap(ch, ch->notes[i], w, nl);
        /* Its last line must fit, and, unless it is the last note, one more line after it for
         * the count of the notes left out. */
        double last = y + (double)(nl->n - 1) * line_h;
        if (last + desc > bottom ||
            (i + 1 < ch->n_notes && last + line_h + NOTE_GAP + desc > bottom))
            break;
        for (size_t k = 0; k < nl->n; k++)
            rt_draw_text(ch->d, x, y + (double)k * line_h, nl->line[k], &ts);
        y = last + line_h + NOTE_GAP;
    }
    free(nl);
    size_t left = ch->n_notes - i;
    if (left == 0 || y + desc > bottom)
        return;
    char more[64];
    snprintf(more, sizeof more, "+%zu more note%s", left, left == 1 ? "" : "s");
    fit_width(ch, more, sizeof more, ts.size, w);
    size_t len = 0;
    for (size_t k = i; k < ch->n_notes; k++)
        len += strlen(ch->notes[k]) + 1;
    char *all = rt_xcalloc(len + 1, 1);
    for (size_t k = i; k < ch->n_notes; k++) {
        strcat(all, ch->notes[k]);
        if (k + 1 < ch->n_notes)
            strcat(all, "\n");
    }
    double tw, th;
    rt_draw_text_extent(ch->d, more, ts.size, false, &tw, &th);
    rt_draw_text(ch->d, x, y, more, &ts);
    /* An all but invisible box over the line carries the notes as its hover text. */
    rt_draw_rect(ch->d, x, y - 0.93 * ts.size, tw, ts.size * 1.17, 0xffffff, 0.01, NULL, all);
    free(all);
}

void rt_chart_legend(rt_chart *ch)
{
    entry *e = rt_xcalloc(MAX_ENTRIES, sizeof *e);
    size_t n = build(ch, e);
    double s = ch->ts;
    double x = ch->px + ch->pw + (ch->secondary ? 74 * s : 16), y = ch->py + 10 * s;
    /* The lowest baseline leaves the descent of its text inside the drawing. */
    double bottom = ch->H - 2, desc = 0.24 * TEXT_SIZE * s;
    /* Rows past the bottom are left out: the last row that fits says how many. */
    size_t fit = n;
    {
        double yy = y;
        for (size_t i = 0; i < n; i++) {
            if (e[i].kind == E_HEADER && i > 0)
                yy += 5 * s;
            if (yy + 4 * s + desc > bottom) {
                fit = i;
                break;
            }
            yy += ROW * s;
        }
    }
    if (fit < n && fit > 0) {
        entry *m = &e[fit - 1];
        m->kind = E_HEADER;
        snprintf(m->text, sizeof m->text, "+%zu more", n - fit + 1);
    }
    rt_draw_group(ch->d, "legend");
    for (size_t i = 0; i < fit; i++) {
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
    if (fit == n)
        notes_draw(ch, x, y + 8, ch->legend_w - 8, bottom);
    rt_draw_group(ch->d, NULL);
    free(e);
}
