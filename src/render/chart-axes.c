/* Log-log axes of the charts: ranges, layout, decade and minor ticks, clipping, number formats. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart-internal.h"
#include "rooftime/core/model.h"
#include "rooftime/render/chart.h"
#include "rooftime/render/draw.h"

void rt_range_add(rt_range *r, double v)
{
    if (!(v > 0) || !isfinite(v))
        return;
    double l = log10(v);
    if (!r->any) {
        r->lo = r->hi = l;
        r->any = true;
    } else {
        r->lo = fmin(r->lo, l);
        r->hi = fmax(r->hi, l);
    }
}

/* Whole decades with at least 0.12 decade of room around the data, so markers stay inside. */
void rt_range_axis(const rt_range *r, double min_decades, rt_axis *ax)
{
    double lo = r->any ? r->lo : 0, hi = r->any ? r->hi : 1;
    ax->lo = floor(lo - 0.12);
    ax->hi = ceil(hi + 0.12);
    bool low = true;
    while (ax->hi - ax->lo < min_decades) {
        if (low)
            ax->lo -= 1;
        else
            ax->hi += 1;
        low = !low;
    }
}

double rt_chart_X(const rt_chart *ch, double v)
{
    return ch->x.p0 + (log10(v) - ch->x.lo) / (ch->x.hi - ch->x.lo) * (ch->x.p1 - ch->x.p0);
}

double rt_chart_Y(const rt_chart *ch, double v)
{
    return ch->y.p0 + (log10(v) - ch->y.lo) / (ch->y.hi - ch->y.lo) * (ch->y.p1 - ch->y.p0);
}

static const rt_text_style tick_style = {.size = 10, .color = RT_INK, .anchor = RT_ANCHOR_MIDDLE};
static const rt_text_style axis_style = {.size = 12, .color = RT_INK, .anchor = RT_ANCHOR_MIDDLE};

/* Cut s to fit w at size (bold) with "...", never inside a UTF-8 character. */
static void shorten(rt_draw *d, char *s, double size, double w)
{
    double tw, th;
    rt_draw_text_extent(d, s, size, true, &tw, &th);
    while (tw > w && strlen(s) > 4) {
        size_t len = strlen(s);
        if (len >= 3 && strcmp(s + len - 3, "...") == 0)
            len -= 3;
        len--;
        while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
            len--;
        strcpy(s + len, "...");
        rt_draw_text_extent(d, s, size, true, &tw, &th);
    }
}

/* The title by rule: at 14 points (scaled) when it fits the canvas; else smaller down to 12;
 * else wrapped at the last space that fits into two lines; a second line still too long is
 * shortened with "...". */
static void title_fit(rt_chart *ch)
{
    const char *title = ch->spec->title;
    char buf[256];
    if (!title) {
        snprintf(buf, sizeof buf, "%s, %s, %s mode%s", ch->view->title,
                 ch->m->name ? ch->m->name : "machine", rt_mode_name(ch->a->mode),
                 !ch->view->places_kernels && ch->spec->points == RT_POINTS_KERNELS ? ", kernels"
                                                                                    : "");
        title = buf;
    }
    double avail = ch->W - 24, w, h;
    ch->title_lines = 1;
    snprintf(ch->title[0], sizeof ch->title[0], "%s", title);
    ch->title[1][0] = '\0';
    for (ch->title_size = 14 * ch->ts; ch->title_size >= 12 * ch->ts; ch->title_size -= 0.5) {
        rt_draw_text_extent(ch->d, title, ch->title_size, true, &w, &h);
        if (w <= avail)
            return;
    }
    ch->title_size = 12 * ch->ts;
    /* Two lines: the longest first line that fits, cut at a space. */
    size_t n = strlen(ch->title[0]), cut = 0;
    for (size_t i = 1; i < n; i++) {
        if (ch->title[0][i] != ' ')
            continue;
        char head[256];
        snprintf(head, sizeof head, "%.*s", (int)i, ch->title[0]);
        rt_draw_text_extent(ch->d, head, ch->title_size, true, &w, &h);
        if (w <= avail)
            cut = i;
    }
    if (cut) {
        snprintf(ch->title[1], sizeof ch->title[1], "%s", ch->title[0] + cut + 1);
        ch->title[0][cut] = '\0';
        ch->title_lines = 2;
    }
    for (int i = 0; i < ch->title_lines; i++)
        shorten(ch->d, ch->title[i], ch->title_size, avail);
}

void rt_chart_layout(rt_chart *ch)
{
    title_fit(ch);
    double s = ch->ts;
    double top = 12, bottom = 46 * s, left = 68 * s, right = 16;
    top += 24 * s + (ch->title_lines - 1) * 1.25 * ch->title_size; /* the title */
    if (ch->secondary) {
        top += 36 * s;
        right += 58 * s;
    }
    right += ch->legend_w;
    ch->px = left;
    ch->py = top;
    ch->pw = ch->W - left - right;
    ch->ph = ch->H - top - bottom;
    ch->x.p0 = ch->px;
    ch->x.p1 = ch->px + ch->pw;
    ch->y.p0 = ch->py + ch->ph;
    ch->y.p1 = ch->py;
    if (ch->secondary) {
        ch->x2.p0 = ch->x.p0, ch->x2.p1 = ch->x.p1;
        ch->y2.p0 = ch->y.p0, ch->y2.p1 = ch->y.p1;
    }
}

/* Pixel position of log10 value l on an axis. */
static double axpos(const rt_axis *ax, double l)
{
    return ax->p0 + (l - ax->lo) / (ax->hi - ax->lo) * (ax->p1 - ax->p0);
}

/* Decades (and minor ticks when they fit) of one axis; side: 0 bottom, 1 left, 2 top, 3 right. */
static void ticks(rt_chart *ch, const rt_axis *ax, int side, bool grid)
{
    rt_draw *d = ch->d;
    double s = ch->ts;
    double span = ax->hi - ax->lo;
    double px_per_dec = fabs(ax->p1 - ax->p0) / span;
    int step = px_per_dec >= 28 ? 1 : px_per_dec >= 14 ? 2 : 5;
    bool minor = px_per_dec >= 40;
    rt_stroke gmaj = {.color = RT_GRID, .width = 0.8},
              gmin = {.color = RT_GRID_MINOR, .width = 0.6};
    rt_stroke tk = {.color = RT_INK, .width = 0.8};
    bool horiz = side == 0 || side == 2;
    double base = side == 0   ? ch->py + ch->ph
                  : side == 1 ? ch->px
                  : side == 2 ? ch->py
                              : ch->px + ch->pw;
    double out = side == 0 || side == 3 ? 1 : -1; /* direction away from the plot */
    int k0 = (int)ceil(ax->lo - 1e-9), k1 = (int)floor(ax->hi + 1e-9);
    for (int k = k0 - 1; k <= k1; k++) {
        if (minor) {
            for (int m = 2; m <= 9; m++) {
                double l = k + log10(m);
                if (l < ax->lo - 1e-9 || l > ax->hi + 1e-9)
                    continue;
                double p = axpos(ax, l);
                if (horiz) {
                    if (grid)
                        rt_draw_line(d, p, ch->py, p, ch->py + ch->ph, &gmin);
                    rt_draw_line(d, p, base, p, base + out * 3, &tk);
                } else {
                    if (grid)
                        rt_draw_line(d, ch->px, p, ch->px + ch->pw, p, &gmin);
                    rt_draw_line(d, base, p, base + out * 3, p, &tk);
                }
                /* Few decades: label 2 and 5 too, where the value reads as a plain number. */
                int e = k - ax->scale_exp;
                bool plain =
                    ax->lo - ax->scale_exp >= -2 - 1e-9 && ax->hi - ax->scale_exp <= 3 + 1e-9;
                if (px_per_dec >= 150 && plain && (m == 2 || m == 5) && e >= -2 && e <= 3) {
                    char buf[32];
                    snprintf(buf, sizeof buf, "%.10g", m * pow(10, e));
                    rt_text_style ts = tick_style;
                    ts.size = 10 * s;
                    ts.color = 0x555555;
                    if (side == 0)
                        rt_draw_text(d, p, base + 18 * s, buf, &ts);
                    else if (side == 2)
                        rt_draw_text(d, p, base - 9 * s, buf, &ts);
                    else if (side == 1) {
                        ts.anchor = RT_ANCHOR_END;
                        rt_draw_text(d, base - 8, p + 3 * s, buf, &ts);
                    } else {
                        ts.anchor = RT_ANCHOR_START;
                        rt_draw_text(d, base + 8, p + 3 * s, buf, &ts);
                    }
                }
            }
        }
        if (k < k0)
            continue;
        double p = axpos(ax, k);
        if (horiz) {
            if (grid && k > ax->lo + 1e-9 && k < ax->hi - 1e-9)
                rt_draw_line(d, p, ch->py, p, ch->py + ch->ph, &gmaj);
            rt_draw_line(d, p, base, p, base + out * 6, &tk);
        } else {
            if (grid && k > ax->lo + 1e-9 && k < ax->hi - 1e-9)
                rt_draw_line(d, ch->px, p, ch->px + ch->pw, p, &gmaj);
            rt_draw_line(d, base, p, base + out * 6, p, &tk);
        }
        if (((k % step) + step) % step != 0)
            continue;
        char buf[32];
        rt_fmt_decade(buf, sizeof buf, k - ax->scale_exp, k0 - ax->scale_exp, k1 - ax->scale_exp);
        rt_text_style ts = tick_style;
        ts.size *= s;
        if (side == 0)
            rt_draw_text(d, p, base + 19 * s, buf, &ts);
        else if (side == 2)
            rt_draw_text(d, p, base - 9 * s, buf, &ts);
        else if (side == 1) {
            ts.anchor = RT_ANCHOR_END;
            rt_draw_text(d, base - 8, p + 3.5 * s, buf, &ts);
        } else {
            ts.anchor = RT_ANCHOR_START;
            rt_draw_text(d, base + 8, p + 3.5 * s, buf, &ts);
        }
    }
}

void rt_chart_frame(rt_chart *ch)
{
    rt_draw *d = ch->d;
    rt_draw_group(d, "axes");
    ticks(ch, &ch->x, 0, true);
    ticks(ch, &ch->y, 1, true);
    double s = ch->ts;
    rt_text_style xs = axis_style;
    xs.size *= s;
    rt_draw_text(d, ch->px + ch->pw / 2, ch->py + ch->ph + 38 * s, ch->x.label, &xs);
    rt_text_style ys = xs;
    ys.rotate = -90;
    rt_draw_text(d, ch->px - 52 * s, ch->py + ch->ph / 2, ch->y.label, &ys);
    if (ch->secondary) {
        ticks(ch, &ch->x2, 2, false);
        ticks(ch, &ch->y2, 3, false);
        rt_draw_text(d, ch->px + ch->pw / 2, ch->py - 26 * s, ch->x2.label, &xs);
        ys.rotate = 90;
        rt_draw_text(d, ch->px + ch->pw + 50 * s, ch->py + ch->ph / 2, ch->y2.label, &ys);
    }
    rt_text_style tt = {.size = ch->title_size, .color = RT_INK, .bold = true};
    for (int i = 0; i < ch->title_lines; i++) {
        double w, h;
        rt_draw_text_extent(d, ch->title[i], tt.size, true, &w, &h);
        double tx = fmax(fmin(ch->px, ch->W - 12 - w), 12);
        rt_draw_text(d, tx, (ch->secondary ? 20 : 24) * ch->ts + i * 1.25 * tt.size, ch->title[i],
                     &tt);
    }
    rt_draw_group(d, NULL);
}

void rt_chart_frame_close(rt_chart *ch)
{
    rt_stroke s = {.color = RT_INK, .width = 1};
    rt_draw_rect(ch->d, ch->px, ch->py, ch->pw, ch->ph, 0, 0, &s, NULL);
}

/* Liang-Barsky. */
bool rt_chart_clip(const rt_chart *ch, double *x0, double *y0, double *x1, double *y1)
{
    double t0 = 0, t1 = 1, dx = *x1 - *x0, dy = *y1 - *y0;
    double p[4] = {-dx, dx, -dy, dy};
    double q[4] = {*x0 - ch->px, ch->px + ch->pw - *x0, *y0 - ch->py, ch->py + ch->ph - *y0};
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0)
                return false;
            continue;
        }
        double t = q[i] / p[i];
        if (p[i] < 0) {
            if (t > t1)
                return false;
            if (t > t0)
                t0 = t;
        } else {
            if (t < t0)
                return false;
            if (t < t1)
                t1 = t;
        }
    }
    double ax = *x0 + t0 * dx, ay = *y0 + t0 * dy;
    *x1 = *x0 + t1 * dx;
    *y1 = *y0 + t1 * dy;
    *x0 = ax;
    *y0 = ay;
    return t1 - t0 > 1e-12 || (dx == 0 && dy == 0);
}

void rt_chart_data_line(rt_chart *ch, double x0, double y0, double x1, double y1,
                        const rt_stroke *s)
{
    if (!(x0 > 0 && y0 > 0 && x1 > 0 && y1 > 0))
        return;
    double a = rt_chart_X(ch, x0), b = rt_chart_Y(ch, y0), c = rt_chart_X(ch, x1),
           e = rt_chart_Y(ch, y1);
    if (rt_chart_clip(ch, &a, &b, &c, &e))
        rt_draw_line(ch->d, a, b, c, e, s);
}

void rt_chart_data_polyline(rt_chart *ch, const double *x, const double *y, size_t n,
                            const rt_stroke *s)
{
    double *xy = malloc(sizeof(double) * 2 * (n + 1));
    size_t m = 0;
    for (size_t i = 0; i <= n; i++) {
        bool ok = i < n && x[i] > 0 && y[i] > 0 && isfinite(x[i]) && isfinite(y[i]);
        if (ok) {
            xy[2 * m] = rt_chart_X(ch, x[i]);
            xy[2 * m + 1] = rt_chart_Y(ch, y[i]);
            m++;
        }
        if (!ok || i == n) {
            /* The axes contain every point, so only clip when a run left the plot. */
            if (m >= 2)
                rt_draw_polyline(ch->d, xy, m, s);
            m = 0;
        }
    }
    free(xy);
}
