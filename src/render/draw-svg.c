/* Native SVG backend of the drawing operations: no dependency, byte-for-byte deterministic. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/render/draw.h"
#include "rooftime/util/error.h"
#include "rooftime/util/html-escape.h"

/* Fixed formatting independent of locale: two decimals, trailing zeros and "-0" dropped. */
static void num(FILE *fp, double v)
{
    if (!isfinite(v))
        v = 0;
    long long cents = llround(v * 100.0);
    if (cents == 0) {
        fputc('0', fp);
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
    fwrite(o, 1, (size_t)(e - o), fp);
}

static void color(FILE *fp, uint32_t c)
{
    static const char hex[] = "0123456789abcdef";
    char buf[7] = {'#'};
    for (int i = 0; i < 6; i++)
        buf[1 + i] = hex[(c >> (20 - 4 * i)) & 0xF];
    fwrite(buf, 1, 7, fp);
}

static void stroke_attrs(FILE *fp, const rt_stroke *s)
{
    fputs(" stroke=\"", fp);
    color(fp, s->color);
    fputs("\" stroke-width=\"", fp);
    num(fp, s->width > 0 ? s->width : 1);
    fputc('"', fp);
    double w = s->width > 0 ? s->width : 1;
    if (s->dash == 1) {
        fputs(" stroke-dasharray=\"", fp);
        num(fp, 5 * w > 4 ? 5 * w : 4);
        fputc(',', fp);
        num(fp, 3 * w > 3 ? 3 * w : 3);
        fputc('"', fp);
    } else if (s->dash == 2) {
        fputs(" stroke-dasharray=\"", fp);
        num(fp, w);
        fputc(',', fp);
        num(fp, 2 * w > 2 ? 2 * w : 2);
        fputc('"', fp);
    }
    if (s->opacity > 0 && s->opacity < 1) {
        fputs(" stroke-opacity=\"", fp);
        num(fp, s->opacity);
        fputc('"', fp);
    }
}

static int svg_begin(rt_draw *d, rt_error *err)
{
    (void)err;
    FILE *fp = d->fp;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", fp);
    fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", fp);
    num(fp, d->width);
    fputs("\" height=\"", fp);
    num(fp, d->height);
    fputs("\" viewBox=\"0 0 ", fp);
    num(fp, d->width);
    fputc(' ', fp);
    num(fp, d->height);
    fputs("\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\">\n", fp);
    fputs("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n", fp);
    return 0;
}

static int svg_end(rt_draw *d, rt_error *err)
{
    fputs("</svg>\n", d->fp);
    if (fflush(d->fp) != 0 || ferror(d->fp)) {
        rt_error_set(err, "cannot write the SVG output");
        return -1;
    }
    return 0;
}

static void svg_line(rt_draw *d, double x1, double y1, double x2, double y2, const rt_stroke *s)
{
    FILE *fp = d->fp;
    fputs("<line x1=\"", fp);
    num(fp, x1);
    fputs("\" y1=\"", fp);
    num(fp, y1);
    fputs("\" x2=\"", fp);
    num(fp, x2);
    fputs("\" y2=\"", fp);
    num(fp, y2);
    fputc('"', fp);
    stroke_attrs(fp, s);
    fputs("/>\n", fp);
}

static void points(FILE *fp, const double *xy, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(' ', fp);
        num(fp, xy[2 * i]);
        fputc(',', fp);
        num(fp, xy[2 * i + 1]);
    }
}

static void svg_polyline(rt_draw *d, const double *xy, size_t n, const rt_stroke *s)
{
    FILE *fp = d->fp;
    fputs("<polyline fill=\"none\" stroke-linejoin=\"round\" points=\"", fp);
    points(fp, xy, n);
    fputc('"', fp);
    stroke_attrs(fp, s);
    fputs("/>\n", fp);
}

static void title_elem(FILE *fp, const char *title)
{
    fputs("<title>", fp);
    rt_html_escape(fp, title);
    fputs("</title>", fp);
}

static void svg_rect(rt_draw *d, double x, double y, double w, double h, uint32_t fill,
                     double fill_opacity, const rt_stroke *s, const char *title)
{
    FILE *fp = d->fp;
    fputs("<rect x=\"", fp);
    num(fp, x);
    fputs("\" y=\"", fp);
    num(fp, y);
    fputs("\" width=\"", fp);
    num(fp, w);
    fputs("\" height=\"", fp);
    num(fp, h);
    if (fill_opacity > 0) {
        fputs("\" fill=\"", fp);
        color(fp, fill);
        if (fill_opacity < 1) {
            fputs("\" fill-opacity=\"", fp);
            num(fp, fill_opacity);
        }
        fputc('"', fp);
    } else {
        fputs("\" fill=\"none\"", fp);
    }
    if (s)
        stroke_attrs(fp, s);
    if (title) {
        fputc('>', fp);
        title_elem(fp, title);
        fputs("</rect>\n", fp);
    } else {
        fputs("/>\n", fp);
    }
}

static void svg_marker(rt_draw *d, double x, double y, const rt_marker_style *m, const char *title)
{
    FILE *fp = d->fp;
    double r = (m->size > 0 ? m->size : 8) / 2;
    double xy[2 * RT_MARKER_MAX_VERTICES];
    size_t n = rt_marker_outline(m, x, y, xy);
    const char *open = "<polygon points=\"";
    if (n == 0) {
        fputs("<circle cx=\"", fp);
        num(fp, x);
        fputs("\" cy=\"", fp);
        num(fp, y);
        fputs("\" r=\"", fp);
        num(fp, r);
        fputc('"', fp);
    } else {
        fputs(open, fp);
        points(fp, xy, n);
        fputc('"', fp);
    }
    fputs(" fill=\"", fp);
    if (m->filled)
        color(fp, m->color);
    else
        fputs("#ffffff", fp);
    fputs("\" stroke=\"", fp);
    color(fp, m->color);
    fputs("\" stroke-width=\"", fp);
    num(fp, m->width > 0 ? m->width : 1.2);
    fputc('"', fp);
    if (m->opacity > 0 && m->opacity < 1) {
        fputs(" fill-opacity=\"", fp);
        num(fp, m->opacity);
        fputc('"', fp);
    }
    if (title) {
        fputc('>', fp);
        title_elem(fp, title);
        fputs(n == 0 ? "</circle>\n" : "</polygon>\n", fp);
    } else {
        fputs("/>\n", fp);
    }
}

static void svg_text(rt_draw *d, double x, double y, const char *s, const rt_text_style *t)
{
    FILE *fp = d->fp;
    static const char *const anchors[] = {"start", "middle", "end"};
    fputs("<text x=\"", fp);
    num(fp, x);
    fputs("\" y=\"", fp);
    num(fp, y);
    fputs("\" font-size=\"", fp);
    num(fp, t->size > 0 ? t->size : 11);
    fputc('"', fp);
    if (t->anchor != RT_ANCHOR_START)
        fprintf(fp, " text-anchor=\"%s\"", anchors[t->anchor]);
    if (t->color) {
        fputs(" fill=\"", fp);
        color(fp, t->color);
        fputc('"', fp);
    }
    if (t->bold)
        fputs(" font-weight=\"bold\"", fp);
    if (t->halo)
        fputs(" stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" "
              "paint-order=\"stroke\"",
              fp);
    if (t->rotate != 0) {
        fputs(" transform=\"rotate(", fp);
        num(fp, t->rotate);
        fputc(' ', fp);
        num(fp, x);
        fputc(' ', fp);
        num(fp, y);
        fputs(")\"", fp);
    }
    fputc('>', fp);
    rt_html_escape(fp, s);
    fputs("</text>\n", fp);
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
        fputs("<g class=\"", d->fp);
        rt_html_escape(d->fp, name);
        fputs("\">\n", d->fp);
    } else {
        fputs("</g>\n", d->fp);
    }
}

const rt_draw_ops rt_draw_svg_ops = {
    .name = "svg",
    .begin = svg_begin,
    .end = svg_end,
    .destroy = NULL,
    .line = svg_line,
    .polyline = svg_polyline,
    .rect = svg_rect,
    .marker = svg_marker,
    .text = svg_text,
    .text_extent = svg_text_extent,
    .group = svg_group,
};
