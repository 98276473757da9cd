/* Drawing front end: picks a backend from the output format and estimates text widths for SVG. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rooftime/render/draw.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"
#include "rooftime-config.h"

int rt_draw_format_from_path(const char *path, rt_draw_format *out, rt_error *err)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (dot && (!slash || dot > slash)) {
        if (strcasecmp(dot, ".svg") == 0) {
            *out = RT_DRAW_SVG;
            return 0;
        }
        if (strcasecmp(dot, ".png") == 0) {
            *out = RT_DRAW_PNG;
            return 0;
        }
        if (strcasecmp(dot, ".pdf") == 0) {
            *out = RT_DRAW_PDF;
            return 0;
        }
    }
    rt_error_set(err,
                 "cannot tell the chart format of '%s': the name must end in .svg, .png or .pdf",
                 path ? path : "");
    return -1;
}

const char *rt_draw_format_name(rt_draw_format f)
{
    switch (f) {
    case RT_DRAW_SVG:
        return "svg";
    case RT_DRAW_PNG:
        return "png";
    case RT_DRAW_PDF:
        return "pdf";
    }
    return "?";
}

bool rt_draw_format_available(rt_draw_format f)
{
#ifdef RT_HAVE_CAIRO
    (void)f;
    return true;
#else
    return f == RT_DRAW_SVG;
#endif
}

static const char *const shape_names[RT_MARKER_N_SHAPES] = {
    "circle",   "square",  "triangle", "diamond", "triangle-down",
    "pentagon", "hexagon", "star",     "plus",    "cross",
};

const char *rt_marker_shape_name(rt_marker_shape s)
{
    return (unsigned)s < RT_MARKER_N_SHAPES ? shape_names[s] : "?";
}

rt_draw *rt_draw_new(rt_draw_format f, FILE *fp, double width, double height, rt_error *err)
{
    if (!rt_draw_format_available(f)) {
        rt_error_set(err,
                     "%s output needs cairo (Debian libcairo2-dev), not found at configure time",
                     rt_draw_format_name(f));
        return NULL;
    }
    rt_draw *d = rt_xcalloc(1, sizeof *d);
    d->ops = f == RT_DRAW_SVG ? &rt_draw_svg_ops : &rt_draw_cairo_ops;
    d->format = f;
    d->fp = fp;
    d->width = width;
    d->height = height;
    if (d->ops->begin(d, err) != 0) {
        free(d);
        return NULL;
    }
    return d;
}

int rt_draw_finish(rt_draw *d, rt_error *err)
{
    int rc = d->ops->end(d, err);
    rt_draw_free(d);
    return rc;
}

void rt_draw_free(rt_draw *d)
{
    if (!d)
        return;
    if (d->ops->destroy)
        d->ops->destroy(d);
    free(d);
}

/* Advances of DejaVu Sans in em, ASCII 32..126 (from the font's hmtx table, rounded). */
static const float dejavu_adv[95] = {
    0.318f, 0.401f, 0.460f, 0.838f, 0.636f, 0.950f, 0.780f, 0.275f, 0.390f, 0.390f, /*  !"#$%&'() */
    0.500f, 0.838f, 0.318f, 0.361f, 0.318f, 0.337f, 0.636f, 0.636f, 0.636f, 0.636f, /* *+,-./0123 */
    0.636f, 0.636f, 0.636f, 0.636f, 0.636f, 0.636f, 0.337f, 0.337f, 0.838f, 0.838f, /* 456789:;<= */
    0.838f, 0.531f, 1.000f, 0.684f, 0.686f, 0.698f, 0.770f, 0.632f, 0.575f, 0.775f, /* >?@ABCDEFG */
    0.752f, 0.295f, 0.295f, 0.656f, 0.557f, 0.863f, 0.748f, 0.787f, 0.603f, 0.787f, /* HIJKLMNOPQ */
    0.695f, 0.635f, 0.611f, 0.732f, 0.684f, 0.989f, 0.685f, 0.611f, 0.685f, 0.390f, /* RSTUVWXYZ[ */
    0.337f, 0.390f, 0.838f, 0.500f, 0.500f, 0.613f, 0.635f, 0.550f, 0.635f, 0.615f, /* \]^_`abcde */
    0.352f, 0.635f, 0.634f, 0.278f, 0.278f, 0.579f, 0.278f, 0.974f, 0.634f, 0.612f, /* fghijklmno */
    0.635f, 0.635f, 0.411f, 0.521f, 0.392f, 0.634f, 0.592f, 0.818f, 0.592f, 0.592f, /* pqrstuvwxy */
    0.525f, 0.636f, 0.337f, 0.636f, 0.838f,                                         /* z{|}~ */
};

/* The same for DejaVu Sans Bold (measured in Chromium, kerning off): about 1.13 times as wide as
 * the regular face in a chart's titles and headers, but up to 1.26 times for some letters ("I",
 * "t", "r"), so no one factor fits every text. */
static const float dejavu_bold_adv[95] = {
    0.348f, 0.456f, 0.521f, 0.838f, 0.696f, 1.002f, 0.872f, 0.306f, 0.457f, 0.457f, /*  !"#$%&'() */
    0.523f, 0.838f, 0.380f, 0.415f, 0.380f, 0.365f, 0.696f, 0.696f, 0.696f, 0.696f, /* *+,-./0123 */
    0.696f, 0.696f, 0.696f, 0.696f, 0.696f, 0.696f, 0.400f, 0.400f, 0.838f, 0.838f, /* 456789:;<= */
    0.838f, 0.580f, 1.000f, 0.774f, 0.762f, 0.734f, 0.830f, 0.683f, 0.683f, 0.821f, /* >?@ABCDEFG */
    0.837f, 0.372f, 0.372f, 0.775f, 0.637f, 0.995f, 0.837f, 0.850f, 0.733f, 0.850f, /* HIJKLMNOPQ */
    0.770f, 0.720f, 0.682f, 0.812f, 0.774f, 1.103f, 0.771f, 0.724f, 0.725f, 0.457f, /* RSTUVWXYZ[ */
    0.365f, 0.457f, 0.838f, 0.500f, 0.500f, 0.675f, 0.716f, 0.593f, 0.716f, 0.678f, /* \]^_`abcde */
    0.405f, 0.716f, 0.712f, 0.343f, 0.343f, 0.665f, 0.343f, 1.042f, 0.712f, 0.687f, /* fghijklmno */
    0.716f, 0.716f, 0.493f, 0.595f, 0.478f, 0.712f, 0.652f, 0.924f, 0.645f, 0.652f, /* pqrstuvwxy */
    0.582f, 0.712f, 0.365f, 0.712f, 0.838f,                                         /* z{|}~ */
};

/* Whether code point c is East Asian wide or fullwidth (Unicode UAX #11): Han, kana, Hangul,
 * their punctuation and fullwidth forms take a whole em in every font that has them (the browser
 * falls back to a CJK font, whose ideographs are square). */
static bool wide(unsigned c)
{
    return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0x303E) ||
           (c >= 0x3041 && c <= 0xA4CF) || (c >= 0xA960 && c <= 0xA97F) ||
           (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
           (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
           (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x20000 && c <= 0x3FFFD);
}

double rt_text_width_estimate(const char *s, double size, bool bold)
{
    const float *adv = bold ? dejavu_bold_adv : dejavu_adv;
    double em = 0;
    for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
        if (*p < 0x80) {
            if (*p >= 32 && *p < 127)
                em += adv[*p - 32];
            p++;
            continue;
        }
        /* A multi-byte character: its code point, the continuation bytes that follow. */
        size_t n = *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : *p >= 0xC0 ? 2 : 1;
        unsigned c = *p & (0x7F >> n);
        size_t i = 1;
        for (; i < n && (p[i] & 0xC0) == 0x80; i++)
            c = (c << 6) | (p[i] & 0x3F);
        em += i == n && n > 1 && wide(c) ? 1.0 : bold ? 0.72 : 0.64;
        p += i;
    }
    return em * size;
}

/* Vertices of a regular polygon starting at the top (rot radians clockwise). */
static size_t polygon(double *xy, size_t n, double x, double y, double r, double rot)
{
    for (size_t i = 0; i < n; i++) {
        double a = -M_PI / 2 + rot + 2 * M_PI * (double)i / (double)n;
        xy[2 * i] = x + r * cos(a);
        xy[2 * i + 1] = y + r * sin(a);
    }
    return n;
}

size_t rt_marker_outline(const rt_marker_style *m, double x, double y, double *xy)
{
    double r = (m->size > 0 ? m->size : 8) / 2;
    switch (m->shape) {
    case RT_MARKER_SQUARE:
        r *= 0.85;
        xy[0] = x - r, xy[1] = y - r, xy[2] = x + r, xy[3] = y - r;
        xy[4] = x + r, xy[5] = y + r, xy[6] = x - r, xy[7] = y + r;
        return 4;
    case RT_MARKER_TRIANGLE:
        return polygon(xy, 3, x, y + r * 0.15, r * 1.15, 0);
    case RT_MARKER_TRIANGLE_DOWN:
        return polygon(xy, 3, x, y - r * 0.15, r * 1.15, M_PI);
    case RT_MARKER_DIAMOND:
        return polygon(xy, 4, x, y, r * 1.1, 0);
    case RT_MARKER_PENTAGON:
        return polygon(xy, 5, x, y, r * 1.05, 0);
    case RT_MARKER_HEXAGON:
        return polygon(xy, 6, x, y, r, 0);
    case RT_MARKER_STAR:
        for (size_t i = 0; i < 10; i++) {
            double a = -M_PI / 2 + M_PI * (double)i / 5, rr = (i % 2 ? 0.5 : 1.2) * r;
            xy[2 * i] = x + rr * cos(a);
            xy[2 * i + 1] = y + rr * sin(a);
        }
        return 10;
    case RT_MARKER_PLUS:
    case RT_MARKER_CROSS: {
        /* A thick plus (or x) outline, so filled and hollow still differ. */
        static const double u[24] = {-0.3, -1,  0.3, -1,  0.3, -0.3, 1,    -0.3,
                                     1,    0.3, 0.3, 0.3, 0.3, 1,    -0.3, 1,
                                     -0.3, 0.3, -1,  0.3, -1,  -0.3, -0.3, -0.3};
        bool diag = m->shape == RT_MARKER_CROSS;
        double c = diag ? M_SQRT1_2 : 1, s = diag ? M_SQRT1_2 : 0;
        for (size_t i = 0; i < 12; i++) {
            double ux = u[2 * i] * r, uy = u[2 * i + 1] * r;
            xy[2 * i] = x + ux * c - uy * s;
            xy[2 * i + 1] = y + ux * s + uy * c;
        }
        return 12;
    }
    case RT_MARKER_CIRCLE:
    default:
        return 0;
    }
}
