/* Native SVG backend of the drawing operations: no dependency, byte-for-byte deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/render/draw.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/*
 * The SVG text goes into a buffer of the backend's own, put together by memcpy: a chart of a
 * million points is some hundred million small pieces, and a stdio call per piece (fputs, fputc,
 * fwrite) cost more than the drawing. With an output stream the buffer is written out in
 * chunks; without one (rt_draw_svg_take) it grows and becomes the caller's string.
 */
#define SVG_CHUNK ((size_t)1 << 18)

typedef struct svg_out {
    char *buf;
    size_t len, cap;
    FILE *fp; /* NULL: keep everything */
} svg_out;

static void out_room(svg_out *o, size_t n)
{
    if (o->fp && o->len) {
        fwrite(o->buf, 1, o->len, o->fp);
        o->len = 0;
    }
    if (o->cap - o->len < n) {
        while (o->cap - o->len < n)
            o->cap = o->cap ? 2 * o->cap : SVG_CHUNK;
        o->buf = rt_xrealloc(o->buf, o->cap);
    }
}

static inline void put(svg_out *o, const char *s, size_t n)
{
    if (o->cap - o->len < n)
        out_room(o, n);
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static inline void putch(svg_out *o, char c)
{
    if (o->cap == o->len)
        out_room(o, 1);
    o->buf[o->len++] = c;
}

/* A string literal, its length known at compile time. */
#define PUT(o, lit) put((o), "" lit, sizeof(lit) - 1)

static void puts_(svg_out *o, const char *s)
{
    put(o, s, strlen(s));
}

/* As rt_html_escape writes it. */
static void escape(svg_out *o, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        switch (*p) {
        case '&':
            PUT(o, "&amp;");
            break;
        case '<':
            PUT(o, "&lt;");
            break;
        case '>':
            PUT(o, "&gt;");
            break;
        case '"':
            PUT(o, "&quot;");
            break;
        case '\'':
            PUT(o, "&#39;");
            break;
        default:
            putch(o, *p < 0x20 && *p != '\n' && *p != '\t' ? ' ' : (char)*p);
        }
    }
}

/* Fixed formatting independent of locale: two decimals, trailing zeros and "-0" dropped. */
static void num(svg_out *fp, double v)
{
    if (!isfinite(v))
        v = 0;
    long long cents = llround(v * 100.0);
    if (cents == 0) {
        putch(fp, '0');
        return;
    }
    /* Written from the right: [-]integer[.d[d]], as "%s%llu.%02llu" with trailing zeros dropped
     * (by hand: millions of points go through here). */
    char buf[32], *e = buf + sizeof buf, *o = e;
    unsigned long long a = (unsigned long long)(cents < 0 ? -cents : cents);
    unsigned long long ip = a / 100, fr = a % 100;
    if (fr != 0) {
        if (fr % 10 != 0)
            *--o = (char)('0' + fr % 10);
        *--o = (char)('0' + fr / 10);
        *--o = '.';
    }
    do
        *--o = (char)('0' + ip % 10);
    while ((ip /= 10) != 0);
    if (cents < 0)
        *--o = '-';
    put(fp, o, (size_t)(e - o));
}

static void color(svg_out *fp, uint32_t c)
{
    static const char hex[] = "0123456789abcdef";
    char buf[7] = {'#'};
    for (int i = 0; i < 6; i++)
        buf[1 + i] = hex[(c >> (20 - 4 * i)) & 0xF];
    put(fp, buf, 7);
}

static void stroke_attrs(svg_out *fp, const rt_stroke *s)
{
    PUT(fp, " stroke=\"");
    color(fp, s->color);
    PUT(fp, "\" stroke-width=\"");
    num(fp, s->width > 0 ? s->width : 1);
    putch(fp, '"');
    double w = s->width > 0 ? s->width : 1;
    if (s->dash == 1) {
        PUT(fp, " stroke-dasharray=\"");
        num(fp, 5 * w > 4 ? 5 * w : 4);
        putch(fp, ',');
        num(fp, 3 * w > 3 ? 3 * w : 3);
        putch(fp, '"');
    } else if (s->dash == 2) {
        PUT(fp, " stroke-dasharray=\"");
        num(fp, w);
        putch(fp, ',');
        num(fp, 2 * w > 2 ? 2 * w : 2);
        putch(fp, '"');
    }
    if (s->opacity > 0 && s->opacity < 1) {
        PUT(fp, " stroke-opacity=\"");
        num(fp, s->opacity);
        putch(fp, '"');
    }
}

static int svg_begin(rt_draw *d, rt_error *err)
{
    (void)err;
    svg_out *fp = rt_xcalloc(1, sizeof *fp);
    fp->fp = d->fp;
    d->priv = fp;
    PUT(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    PUT(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"");
    num(fp, d->width);
    PUT(fp, "\" height=\"");
    num(fp, d->height);
    PUT(fp, "\" viewBox=\"0 0 ");
    num(fp, d->width);
    putch(fp, ' ');
    num(fp, d->height);
    PUT(fp, "\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\">\n");
    PUT(fp, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
    return 0;
}

static int svg_end(rt_draw *d, rt_error *err)
{
    svg_out *o = d->priv;
    PUT(o, "</svg>\n");
    if (!o->fp)
        return 0;
    if (o->len)
        fwrite(o->buf, 1, o->len, o->fp);
    o->len = 0;
    if (fflush(d->fp) != 0 || ferror(d->fp)) {
        rt_error_set(err, "cannot write the SVG output");
        return -1;
    }
    return 0;
}

static void svg_line(rt_draw *d, double x1, double y1, double x2, double y2, const rt_stroke *s)
{
    svg_out *fp = d->priv;
    PUT(fp, "<line x1=\"");
    num(fp, x1);
    PUT(fp, "\" y1=\"");
    num(fp, y1);
    PUT(fp, "\" x2=\"");
    num(fp, x2);
    PUT(fp, "\" y2=\"");
    num(fp, y2);
    putch(fp, '"');
    stroke_attrs(fp, s);
    PUT(fp, "/>\n");
}

static void points(svg_out *fp, const double *xy, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            putch(fp, ' ');
        num(fp, xy[2 * i]);
        putch(fp, ',');
        num(fp, xy[2 * i + 1]);
    }
}

static void svg_polyline(rt_draw *d, const double *xy, size_t n, const rt_stroke *s)
{
    svg_out *fp = d->priv;
    PUT(fp, "<polyline fill=\"none\" stroke-linejoin=\"round\" points=\"");
    points(fp, xy, n);
    putch(fp, '"');
    stroke_attrs(fp, s);
    PUT(fp, "/>\n");
}

static void title_elem(svg_out *fp, const char *title)
{
    PUT(fp, "<title>");
    escape(fp, title);
    PUT(fp, "</title>");
}

static void svg_rect(rt_draw *d, double x, double y, double w, double h, uint32_t fill,
                     double fill_opacity, const rt_stroke *s, const char *title)
{
    svg_out *fp = d->priv;
    PUT(fp, "<rect x=\"");
    num(fp, x);
    PUT(fp, "\" y=\"");
    num(fp, y);
    PUT(fp, "\" width=\"");
    num(fp, w);
    PUT(fp, "\" height=\"");
    num(fp, h);
    if (fill_opacity > 0) {
        PUT(fp, "\" fill=\"");
        color(fp, fill);
        if (fill_opacity < 1) {
            PUT(fp, "\" fill-opacity=\"");
            num(fp, fill_opacity);
        }
        putch(fp, '"');
    } else {
        PUT(fp, "\" fill=\"none\"");
    }
    if (s)
        stroke_attrs(fp, s);
    if (title) {
        putch(fp, '>');
        title_elem(fp, title);
        PUT(fp, "</rect>\n");
    } else {
        PUT(fp, "/>\n");
    }
}

static void svg_marker(rt_draw *d, double x, double y, const rt_marker_style *m, const char *title)
{
    svg_out *fp = d->priv;
    double r = (m->size > 0 ? m->size : 8) / 2;
    double xy[2 * RT_MARKER_MAX_VERTICES];
    size_t n = rt_marker_outline(m, x, y, xy);
    const char *open = "<polygon points=\"";
    if (n == 0) {
        PUT(fp, "<circle cx=\"");
        num(fp, x);
        PUT(fp, "\" cy=\"");
        num(fp, y);
        PUT(fp, "\" r=\"");
        num(fp, r);
        putch(fp, '"');
    } else {
        puts_(fp, open);
        points(fp, xy, n);
        putch(fp, '"');
    }
    PUT(fp, " fill=\"");
    if (m->filled)
        color(fp, m->color);
    else
        PUT(fp, "#ffffff");
    PUT(fp, "\" stroke=\"");
    color(fp, m->color);
    PUT(fp, "\" stroke-width=\"");
    num(fp, m->width > 0 ? m->width : 1.2);
    putch(fp, '"');
    if (m->opacity > 0 && m->opacity < 1) {
        PUT(fp, " fill-opacity=\"");
        num(fp, m->opacity);
        putch(fp, '"');
    }
    if (title) {
        putch(fp, '>');
        title_elem(fp, title);
        if (n == 0)
            PUT(fp, "</circle>\n");
        else
            PUT(fp, "</polygon>\n");
    } else {
        PUT(fp, "/>\n");
    }
}

static void svg_text(rt_draw *d, double x, double y, const char *s, const rt_text_style *t)
{
    svg_out *fp = d->priv;
    static const char *const anchors[] = {"start", "middle", "end"};
    PUT(fp, "<text x=\"");
    num(fp, x);
    PUT(fp, "\" y=\"");
    num(fp, y);
    PUT(fp, "\" font-size=\"");
    num(fp, t->size > 0 ? t->size : 11);
    putch(fp, '"');
    if (t->anchor != RT_ANCHOR_START) {
        PUT(fp, " text-anchor=\"");
        puts_(fp, anchors[t->anchor]);
        putch(fp, '"');
    }
    if (t->color) {
        PUT(fp, " fill=\"");
        color(fp, t->color);
        putch(fp, '"');
    }
    if (t->bold)
        PUT(fp, " font-weight=\"bold\"");
    if (t->halo)
        PUT(fp, " stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" "
                "paint-order=\"stroke\"");
    if (t->rotate != 0) {
        PUT(fp, " transform=\"rotate(");
        num(fp, t->rotate);
        putch(fp, ' ');
        num(fp, x);
        putch(fp, ' ');
        num(fp, y);
        PUT(fp, ")\"");
    }
    putch(fp, '>');
    escape(fp, s);
    PUT(fp, "</text>\n");
}

static void svg_text_extent(rt_draw *d, const char *s, double size, bool bold, double *w, double *h)
{
    (void)d;
    if (size <= 0)
        size = 11;
    *w = rt_text_width_estimate(s, size, bold);
    *h = size * 1.17; /* DejaVu Sans ascent + descent */
}

static void svg_group(rt_draw *d, const char *name)
{
    if (name) {
        PUT(d->priv, "<g class=\"");
        escape(d->priv, name);
        PUT(d->priv, "\">\n");
    } else {
        PUT(d->priv, "</g>\n");
    }
}

static void svg_destroy(rt_draw *d)
{
    svg_out *o = d->priv;
    if (o)
        free(o->buf);
    free(o);
    d->priv = NULL;
}

char *rt_draw_svg_take(rt_draw *d, size_t *len, rt_error *err)
{
    svg_out *o = d->priv;
    char *s = NULL;
    if (d->ops->end(d, err) == 0 && o && !o->fp) {
        putch(o, '\0');
        s = rt_xrealloc(o->buf, o->len);
        if (len)
            *len = o->len - 1;
        o->buf = NULL;
    }
    rt_draw_free(d);
    return s;
}

const rt_draw_ops rt_draw_svg_ops = {
    .name = "svg",
    .begin = svg_begin,
    .end = svg_end,
    .destroy = svg_destroy,
    .line = svg_line,
    .polyline = svg_polyline,
    .rect = svg_rect,
    .marker = svg_marker,
    .text = svg_text,
    .text_extent = svg_text_extent,
    .group = svg_group,
};
