/* Cairo backend of the drawing operations: PNG (at twice the point size) and PDF. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/render/draw.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"
#include "rooftime-config.h"

#ifdef RT_HAVE_CAIRO
#include <cairo-pdf.h>
#include <cairo.h>

/* fontconfig, under cairo's text, keeps its configuration and caches for the life of the process
 * by design; LeakSanitizer would report them at exit of every sanitizer build that draws text.
 * This hook (read by the sanitizer runtime only; weak, so another definition wins) names them. */
__attribute__((weak, used)) const char *__lsan_default_suppressions(void);
__attribute__((weak, used)) const char *__lsan_default_suppressions(void)
{
    return "leak:libfontconfig.so\n";
}
__attribute__((weak, used)) const char *__lsan_default_options(void);
__attribute__((weak, used)) const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

/* PNG pixels per point: charts are read on screens with high pixel density. */
#define PNG_SCALE 2.0

typedef struct cairo_state {
    cairo_surface_t *surface;
    cairo_t *cr;
} cairo_state;

static cairo_status_t write_fp(void *closure, const unsigned char *data, unsigned int len)
{
    FILE *fp = closure;
    return fwrite(data, 1, len, fp) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static int cr_begin(rt_draw *d, rt_error *err)
{
    cairo_state *st = rt_xcalloc(1, sizeof *st);
    if (d->format == RT_DRAW_PNG)
        st->surface = cairo_image_surface_create(
            CAIRO_FORMAT_ARGB32, (int)ceil(d->width * PNG_SCALE), (int)ceil(d->height * PNG_SCALE));
    else
        st->surface = cairo_pdf_surface_create_for_stream(write_fp, d->fp, d->width, d->height);
    if (cairo_surface_status(st->surface) != CAIRO_STATUS_SUCCESS) {
        rt_error_set(err, "cannot create the %s surface: %s", rt_draw_format_name(d->format),
                     cairo_status_to_string(cairo_surface_status(st->surface)));
        cairo_surface_destroy(st->surface);
        free(st);
        return -1;
    }
    st->cr = cairo_create(st->surface);
    if (d->format == RT_DRAW_PNG)
        cairo_scale(st->cr, PNG_SCALE, PNG_SCALE);
    cairo_set_source_rgb(st->cr, 1, 1, 1);
    cairo_paint(st->cr);
    cairo_select_font_face(st->cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_line_join(st->cr, CAIRO_LINE_JOIN_ROUND);
    d->priv = st;
    return 0;
}

static int cr_end(rt_draw *d, rt_error *err)
{
    cairo_state *st = d->priv;
    cairo_status_t s;
    cairo_surface_flush(st->surface);
    if (d->format == RT_DRAW_PNG) {
        s = cairo_surface_write_to_png_stream(st->surface, write_fp, d->fp);
    } else {
        cairo_show_page(st->cr);
        cairo_surface_finish(st->surface);
        s = cairo_surface_status(st->surface);
    }
    if (s == CAIRO_STATUS_SUCCESS && (fflush(d->fp) != 0 || ferror(d->fp)))
        s = CAIRO_STATUS_WRITE_ERROR;
    if (s != CAIRO_STATUS_SUCCESS) {
        rt_error_set(err, "cannot write the %s output: %s", rt_draw_format_name(d->format),
                     cairo_status_to_string(s));
        return -1;
    }
    return 0;
}

static void cr_destroy(rt_draw *d)
{
    cairo_state *st = d->priv;
    if (!st)
        return;
    cairo_destroy(st->cr);
    cairo_surface_destroy(st->surface);
    free(st);
    d->priv = NULL;
}

static void source(cairo_t *cr, uint32_t c, double opacity)
{
    cairo_set_source_rgba(cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0,
                          (c & 255) / 255.0, opacity > 0 && opacity < 1 ? opacity : 1);
}

static void apply_stroke(cairo_t *cr, const rt_stroke *s)
{
    double w = s->width > 0 ? s->width : 1;
    cairo_set_line_width(cr, w);
    source(cr, s->color, s->opacity);
    if (s->dash == 1) {
        double dash[2] = {fmax(5 * w, 4), fmax(3 * w, 3)};
        cairo_set_dash(cr, dash, 2, 0);
    } else if (s->dash == 2) {
        double dash[2] = {w, fmax(2 * w, 2)};
        cairo_set_dash(cr, dash, 2, 0);
    } else {
        cairo_set_dash(cr, NULL, 0, 0);
    }
}

static void cr_line(rt_draw *d, double x1, double y1, double x2, double y2, const rt_stroke *s)
{
    cairo_t *cr = ((cairo_state *)d->priv)->cr;
    cairo_move_to(cr, x1, y1);
    cairo_line_to(cr, x2, y2);
    apply_stroke(cr, s);
    cairo_stroke(cr);
}

static void cr_polyline(rt_draw *d, const double *xy, size_t n, const rt_stroke *s)
{
    cairo_t *cr = ((cairo_state *)d->priv)->cr;
    for (size_t i = 0; i < n; i++)
        (i ? cairo_line_to : cairo_move_to)(cr, xy[2 * i], xy[2 * i + 1]);
    apply_stroke(cr, s);
    cairo_stroke(cr);
}

static void cr_rect(rt_draw *d, double x, double y, double w, double h, uint32_t fill,
                    double fill_opacity, const rt_stroke *s, const char *title)
{
    (void)title;
    cairo_t *cr = ((cairo_state *)d->priv)->cr;
    cairo_rectangle(cr, x, y, w, h);
    if (fill_opacity > 0) {
        source(cr, fill, fill_opacity);
        if (s)
            cairo_fill_preserve(cr);
        else
            cairo_fill(cr);
    }
    if (s) {
        apply_stroke(cr, s);
        cairo_stroke(cr);
    }
    cairo_new_path(cr);
}

static void cr_marker(rt_draw *d, double x, double y, const rt_marker_style *m, const char *title)
{
    (void)title;
    cairo_t *cr = ((cairo_state *)d->priv)->cr;
    double xy[2 * RT_MARKER_MAX_VERTICES];
    size_t n = rt_marker_outline(m, x, y, xy);
    cairo_new_path(cr);
    if (n == 0) {
        cairo_arc(cr, x, y, (m->size > 0 ? m->size : 8) / 2, 0, 2 * M_PI);
    } else {
        for (size_t i = 0; i < n; i++)
            (i ? cairo_line_to : cairo_move_to)(cr, xy[2 * i], xy[2 * i + 1]);
    }
    cairo_close_path(cr);
    if (m->filled)
        source(cr, m->color, m->opacity);
    else
        cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_fill_preserve(cr);
    rt_stroke s = {.color = m->color, .width = m->width > 0 ? m->width : 1.2};
    apply_stroke(cr, &s);
    cairo_stroke(cr);
}

static void font(cairo_t *cr, double size, bool bold)
{
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size > 0 ? size : 11);
}

static void cr_text(rt_draw *d, double x, double y, const char *s, const rt_text_style *t)
{
    cairo_t *cr = ((cairo_state *)d->priv)->cr;
    cairo_text_extents_t ext;
    font(cr, t->size, t->bold);
    cairo_text_extents(cr, s, &ext);
    double dx = t->anchor == RT_ANCHOR_MIDDLE ? -ext.x_advance / 2
                : t->anchor == RT_ANCHOR_END  ? -ext.x_advance
                                              : 0;
    cairo_save(cr);
    cairo_translate(cr, x, y);
    if (t->rotate != 0)
        cairo_rotate(cr, t->rotate * M_PI / 180);
    if (t->halo) {
        cairo_new_path(cr);
        cairo_move_to(cr, dx, 0);
        cairo_text_path(cr, s);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_set_line_width(cr, 3);
        cairo_set_dash(cr, NULL, 0, 0);
        cairo_stroke(cr);
    }
    /* Real glyphs, not outlines, so PDF text stays searchable. */
    cairo_new_path(cr);
    cairo_move_to(cr, dx, 0);
    source(cr, t->color, 1);
    cairo_show_text(cr, s);
    cairo_restore(cr);
}

static void cr_text_extent(rt_draw *d, const char *s, double size, bool bold, double *w, double *h)
{
    cairo_t *cr = ((cairo_state *)d->priv)->cr;
    cairo_text_extents_t ext;
    cairo_font_extents_t fe;
    font(cr, size, bold);
    cairo_text_extents(cr, s, &ext);
    cairo_font_extents(cr, &fe);
    *w = ext.x_advance;
    *h = fe.ascent + fe.descent;
}

const rt_draw_ops rt_draw_cairo_ops = {
    .name = "cairo",
    .begin = cr_begin,
    .end = cr_end,
    .destroy = cr_destroy,
    .line = cr_line,
    .polyline = cr_polyline,
    .rect = cr_rect,
    .marker = cr_marker,
    .text = cr_text,
    .text_extent = cr_text_extent,
    .group = NULL,
};

#else /* !RT_HAVE_CAIRO */

static int cr_unavailable(rt_draw *d, rt_error *err)
{
    rt_error_set(err, "%s output needs cairo (Debian libcairo2-dev), not found at configure time",
                 rt_draw_format_name(d->format));
    return -1;
}

/* Only begin is ever called: rt_draw_new refuses PNG and PDF without cairo. */
const rt_draw_ops rt_draw_cairo_ops = {
    .name = "cairo (not built)",
    .begin = cr_unavailable,
    .end = cr_unavailable,
};

#endif
