/* The chart's words: label placement (a greedy search over offsets that keeps labels off points
 * and each other) and the notes under the chart. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart-internal.h"
#include "rooftime/render/draw.h"
#include "rooftime/util/strings.h"

#define LABEL_SIZE 10.0

void rt_chart_note(rt_chart *ch, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[512];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ch->notes = rt_xrealloc(ch->notes, (ch->n_notes + 1) * sizeof *ch->notes);
    ch->notes[ch->n_notes++] = rt_strdup(buf);
}

#define GRID_CELL 24.0

/* The cells a box touches, clamped to the grid (boxes beyond the canvas land on its edge). */
static void grid_span(const rt_chart *ch, const rt_box *b, size_t *x0, size_t *y0, size_t *x1,
                      size_t *y1)
{
    double c[4] = {b->x0 / GRID_CELL, b->y0 / GRID_CELL, b->x1 / GRID_CELL, b->y1 / GRID_CELL};
    size_t lim[4] = {ch->grid_w - 1, ch->grid_h - 1, ch->grid_w - 1, ch->grid_h - 1};
    size_t *out[4] = {x0, y0, x1, y1};
    for (int i = 0; i < 4; i++)
        *out[i] = !(c[i] > 0) ? 0 : c[i] >= (double)lim[i] ? lim[i] : (size_t)c[i];
}

void rt_chart_obstacle(rt_chart *ch, double x0, double y0, double x1, double y1)
{
    if (ch->n_obst == ch->cap_obst) {
        ch->cap_obst = ch->cap_obst ? 2 * ch->cap_obst : 64;
        ch->obst = rt_xrealloc(ch->obst, ch->cap_obst * sizeof *ch->obst);
    }
    if (!ch->grid) {
        ch->grid_w = (size_t)(fmax(ch->W, 1) / GRID_CELL) + 1;
        ch->grid_h = (size_t)(fmax(ch->H, 1) / GRID_CELL) + 1;
        ch->grid = rt_xcalloc(ch->grid_w * ch->grid_h, sizeof *ch->grid);
    }
    rt_box b = {fmin(x0, x1), fmin(y0, y1), fmax(x0, x1), fmax(y0, y1)};
    ch->obst[ch->n_obst] = b;
    size_t gx0, gy0, gx1, gy1;
    grid_span(ch, &b, &gx0, &gy0, &gx1, &gy1);
    for (size_t gy = gy0; gy <= gy1; gy++)
        for (size_t gx = gx0; gx <= gx1; gx++) {
            struct rt_obst_cell *c = &ch->grid[gy * ch->grid_w + gx];
            if (c->n == c->cap) {
                c->cap = c->cap ? 2 * c->cap : 8;
                c->v = rt_xrealloc(c->v, c->cap * sizeof *c->v);
            }
            c->v[c->n++] = ch->n_obst;
        }
    ch->n_obst++;
}

void rt_chart_obstacles_release(rt_chart *ch)
{
    for (size_t i = 0; ch->grid && i < ch->grid_w * ch->grid_h; i++)
        free(ch->grid[i].v);
    free(ch->grid);
    free(ch->obst);
    free(ch->segs);
    ch->grid = NULL;
    ch->obst = NULL;
    ch->segs = NULL;
    ch->n_obst = ch->cap_obst = 0;
    ch->n_segs = ch->cap_segs = 0;
}

void rt_chart_obstacle_point(rt_chart *ch, double x, double y, double r)
{
    rt_chart_obstacle(ch, x - r, y - r, x + r, y + r);
}

void rt_chart_obstacle_line(rt_chart *ch, double x0, double y0, double x1, double y1)
{
    if (!(x0 > 0 && y0 > 0 && x1 > 0 && y1 > 0))
        return;
    double a = rt_chart_X(ch, x0), b = rt_chart_Y(ch, y0), c = rt_chart_X(ch, x1),
           e = rt_chart_Y(ch, y1);
    if (!rt_chart_clip(ch, &a, &b, &c, &e))
        return;
    ch->line_obst0 = ch->line_obst1 = ch->n_obst;
    double len = hypot(c - a, e - b);
    size_t n = (size_t)ceil(len / 6);
    if (n < 1)
        n = 1;
    for (size_t i = 0; i < n; i++) {
        double t0 = (double)i / (double)n, t1 = (double)(i + 1) / (double)n;
        double px0 = a + (c - a) * t0, py0 = b + (e - b) * t0;
        double px1 = a + (c - a) * t1, py1 = b + (e - b) * t1;
        rt_chart_obstacle(ch, fmin(px0, px1) - 0.8, fmin(py0, py1) - 0.8, fmax(px0, px1) + 0.8,
                          fmax(py0, py1) + 0.8);
    }
    ch->line_obst1 = ch->n_obst;
    if (ch->n_segs == ch->cap_segs) {
        ch->cap_segs = ch->cap_segs ? 2 * ch->cap_segs : 16;
        ch->segs = rt_xrealloc(ch->segs, ch->cap_segs * sizeof *ch->segs);
    }
    ch->segs[ch->n_segs++] = (rt_seg){a, b, c, e, ch->line_obst0, ch->line_obst1};
}

/* Whether obstacle i stands for a line (a segment in ch->segs, appended in obstacle order). */
static bool obstacle_is_line(const rt_chart *ch, size_t i)
{
    size_t lo = 0, hi = ch->n_segs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ch->segs[mid].obst1 <= i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ch->n_segs && ch->segs[lo].obst0 <= i;
}

/* Whether the segment (x0,y0)-(x1,y1) meets the rectangle |u| <= hw, |v| <= hh of a frame
 * centred at (cx, cy) and turned by (ca, sa): Liang-Barsky clipping in that frame. */
static bool seg_meets_rect(double x0, double y0, double x1, double y1, double cx, double cy,
                           double ca, double sa, double hw, double hh)
{
    double u0 = (x0 - cx) * ca + (y0 - cy) * sa, v0 = -(x0 - cx) * sa + (y0 - cy) * ca;
    double u1 = (x1 - cx) * ca + (y1 - cy) * sa, v1 = -(x1 - cx) * sa + (y1 - cy) * ca;
    double du = u1 - u0, dv = v1 - v0, t0 = 0, t1 = 1;
    double p[4] = {-du, du, -dv, dv}, q[4] = {u0 + hw, hw - u0, v0 + hh, hh - v0};
    for (int k = 0; k < 4; k++) {
        if (p[k] == 0) {
            if (q[k] < 0)
                return false;
            continue;
        }
        double r = q[k] / p[k];
        if (p[k] < 0)
            t0 = fmax(t0, r);
        else
            t1 = fmin(t1, r);
        if (t0 > t1)
            return false;
    }
    return true;
}

static bool overlaps(const rt_box *a, const rt_box *b)
{
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

static bool box_free_skip(const rt_chart *ch, const rt_box *b, size_t skip0, size_t skip1);

/* Inside the plot and clear of every obstacle. */
bool rt_chart_box_free(const rt_chart *ch, const rt_box *b)
{
    return box_free_skip(ch, b, 0, 0);
}

static bool box_free_in(const rt_chart *ch, const rt_box *b, size_t skip0, size_t skip1,
                        bool lines);

/* The same, ignoring obstacles skip0 .. skip1 - 1. */
static bool box_free_skip(const rt_chart *ch, const rt_box *b, size_t skip0, size_t skip1)
{
    return box_free_in(ch, b, skip0, skip1, true);
}

/* The same, and ignoring the obstacles of lines unless `lines`. */
static bool box_free_in(const rt_chart *ch, const rt_box *b, size_t skip0, size_t skip1, bool lines)
{
    if (b->x0 < ch->px + 1 || b->x1 > ch->px + ch->pw - 1 || b->y0 < ch->py + 1 ||
        b->y1 > ch->py + ch->ph - 1)
        return false;
    if (!ch->grid)
        return true;
    size_t gx0, gy0, gx1, gy1;
    grid_span(ch, b, &gx0, &gy0, &gx1, &gy1);
    for (size_t gy = gy0; gy <= gy1; gy++)
        for (size_t gx = gx0; gx <= gx1; gx++) {
            const struct rt_obst_cell *c = &ch->grid[gy * ch->grid_w + gx];
            for (size_t i = 0; i < c->n; i++)
                if (!(c->v[i] >= skip0 && c->v[i] < skip1) && overlaps(b, &ch->obst[c->v[i]]) &&
                    (lines || !obstacle_is_line(ch, c->v[i])))
                    return false;
        }
    return true;
}

void rt_chart_label(rt_chart *ch, double x, double y, double r, const char *text, uint32_t color,
                    int priority)
{
    if (ch->n_labels == ch->cap_labels) {
        ch->cap_labels = ch->cap_labels ? 2 * ch->cap_labels : 32;
        ch->labels = rt_xrealloc(ch->labels, ch->cap_labels * sizeof *ch->labels);
    }
    ch->labels[ch->n_labels++] = (rt_label_req){.x = x,
                                                .y = y,
                                                .r = r,
                                                .text = rt_strdup(text),
                                                .color = color,
                                                .size = LABEL_SIZE * ch->ts,
                                                .priority = priority};
}

void rt_chart_id_label(rt_chart *ch, double x, double y, double r, char prefix, size_t id,
                       uint32_t color, int priority)
{
    char text[32];
    snprintf(text, sizeof text, "%c%zu", prefix, id);
    rt_chart_label(ch, x, y, r, text, color, priority);
    ch->labels[ch->n_labels - 1].id = id;
}

static int by_priority(const void *a, const void *b)
{
    const rt_label_req *x = a, *y = b;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    /* Stable on position so the output does not depend on qsort's order. */
    if (x->x != y->x)
        return x->x < y->x ? -1 : 1;
    if (x->y != y->y)
        return x->y < y->y ? -1 : 1;
    return strcmp(x->text, y->text);
}

/* Text darker than its series color so light colors stay readable. */
static uint32_t darken(uint32_t c)
{
    unsigned r = (c >> 16) & 255, g = (c >> 8) & 255, b = c & 255;
    return ((r * 3 / 4) << 16) | ((g * 3 / 4) << 8) | (b * 3 / 4);
}

void rt_chart_labels_place(rt_chart *ch)
{
    if (ch->n_labels > 1)
        qsort(ch->labels, ch->n_labels, sizeof *ch->labels, by_priority);
    /* Eight directions, near then far (far ones get a leader line). */
    static const double dir[8][2] = {{1, 0},       {0.7, -0.7}, {0.7, 0.7}, {-1, 0},
                                     {-0.7, -0.7}, {-0.7, 0.7}, {0, -1},    {0, 1}};
    rt_draw_group(ch->d, "labels");
    for (size_t i = 0; i < ch->n_labels; i++) {
        rt_label_req *L = &ch->labels[i];
        double w, h;
        rt_draw_text_extent(ch->d, L->text, L->size, false, &w, &h);
        double asc = 0.93 * L->size, desc = 0.24 * L->size;
        bool placed = false;
        for (int ring = 0; ring < 3 && !placed; ring++) {
            double gap = 2.5 + ring * 9;
            for (int k = 0; k < 8 && !placed; k++) {
                double dx = dir[k][0], dy = dir[k][1];
                /* Point on the marker's edge plus the gap, then the box beside it. */
                double ex = L->x + dx * (L->r + gap), ey = L->y + dy * (L->r + gap);
                double bx0 = dx > 0.1 ? ex : dx < -0.1 ? ex - w : ex - w / 2;
                double by0 = dy > 0.1 ? ey : dy < -0.1 ? ey - asc - desc : ey - (asc + desc) / 2;
                rt_box b = {bx0, by0, bx0 + w, by0 + asc + desc};
                if (!rt_chart_box_free(ch, &b))
                    continue;
                if (ring > 0) {
                    rt_stroke s = {.color = RT_MUTED, .width = 0.6};
                    double lx = fmin(fmax(L->x, b.x0), b.x1), ly = fmin(fmax(L->y, b.y0), b.y1);
                    double len = hypot(lx - L->x, ly - L->y);
                    if (len > L->r + 1)
                        rt_draw_line(ch->d, L->x + (lx - L->x) * L->r / len,
                                     L->y + (ly - L->y) * L->r / len, lx, ly, &s);
                }
                rt_text_style ts = {.size = L->size, .color = darken(L->color), .halo = true};
                rt_draw_text(ch->d, b.x0, b.y0 + asc, L->text, &ts);
                rt_chart_obstacle(ch, b.x0 - 1, b.y0, b.x1 + 1, b.y1);
                placed = true;
            }
        }
        L->placed = placed;
        /* No room: the hover text still names the point; leave it unlabelled rather than
         * print over another label. */
    }
    rt_draw_group(ch->d, NULL);
}

void rt_chart_line_label(rt_chart *ch, double x0, double y0, double x1, double y1, const char *text,
                         uint32_t color, bool below, double prefer)
{
    if (ch->n_line_labels == ch->cap_line_labels) {
        ch->cap_line_labels = ch->cap_line_labels ? 2 * ch->cap_line_labels : 16;
        ch->line_labels =
            rt_xrealloc(ch->line_labels, ch->cap_line_labels * sizeof *ch->line_labels);
    }
    ch->line_labels[ch->n_line_labels++] = (rt_line_label){.x0 = x0,
                                                           .y0 = y0,
                                                           .x1 = x1,
                                                           .y1 = y1,
                                                           .text = rt_strdup(text),
                                                           .color = color,
                                                           .below = below,
                                                           .prefer = prefer};
    /* The obstacles of its own line, when that line was just added, do not count against it. */
    rt_line_label *L = &ch->line_labels[ch->n_line_labels - 1];
    if (ch->line_obst1 == ch->n_obst && ch->line_obst1 > ch->line_obst0) {
        L->skip0 = ch->line_obst0;
        L->skip1 = ch->line_obst1;
    }
}

/* A rotated label as a chain of small boxes along its baseline: an axis-aligned box around
 * a diagonal text would cover a whole corner of the plot. */
#define MAX_PIECES 64
static size_t pieces(double cx, double cy, double w, double h, double ca, double sa, rt_box *b)
{
    size_t n = (size_t)ceil(w / h);
    if (n < 1)
        n = 1;
    if (n > MAX_PIECES)
        n = MAX_PIECES;
    double step = w / (double)n;
    double hw = fabs(step / 2 * ca) + fabs(h / 2 * sa), hh = fabs(step / 2 * sa) + fabs(h / 2 * ca);
    for (size_t i = 0; i < n; i++) {
        double t = -w / 2 + step * ((double)i + 0.5);
        double px = cx + t * ca, py = cy + t * sa;
        b[i] = (rt_box){px - hw, py - hh, px + hw, py + hh};
    }
    return n;
}

static void line_label_place(rt_chart *ch, const rt_line_label *L)
{
    double prefer = L->prefer;
    if (!(L->x0 > 0 && L->y0 > 0 && L->x1 > 0 && L->y1 > 0))
        return;
    double a = rt_chart_X(ch, L->x0), b = rt_chart_Y(ch, L->y0), c = rt_chart_X(ch, L->x1),
           e = rt_chart_Y(ch, L->y1);
    if (!rt_chart_clip(ch, &a, &b, &c, &e))
        return;
    if (c < a || (c == a && e > b)) { /* read left to right (or bottom to top) */
        double t = a;
        a = c, c = t, t = b, b = e, e = t;
        prefer = 1 - prefer;
    }
    double size = LABEL_SIZE * ch->ts, w, h;
    rt_draw_text_extent(ch->d, L->text, size, false, &w, &h);
    double ang = atan2(e - b, c - a);
    double ca = cos(ang), sa = sin(ang);
    double off = size * 0.5 + 2.5;
    double nx = sa, ny = -ca; /* "up" from the text's baseline */
    if (L->below)
        nx = -nx, ny = -ny;
    rt_box box[MAX_PIECES];
    size_t nb = 0;
    double best_cx = 0, best_cy = 0;
    size_t best_hits = SIZE_MAX;
    /* Its side of the line at the usual distance, then the other side, then both a little
     * farther off (another ceiling close by, as the launch-overhead line above a roof): the first
     * clear spot wins, else the one that covers the fewest other things. */
    static const double side[4] = {1, -1, 1, -1}, far[4] = {0, 0, 0.7, 0.7};
    for (int pass = 0; pass < 4 && best_hits > 0; pass++) {
        double o = side[pass] * (off + far[pass] * size);
        for (int k = 0; k < 81 && best_hits > 0; k++) {
            /* prefer, then alternately further away on either side */
            double t = prefer + (k % 2 ? 1 : -1) * 0.0125 * ((k + 1) / 2);
            if (t < 0 || t > 1)
                continue;
            double cx = a + (c - a) * t + nx * o, cy = b + (e - b) * t + ny * o;
            nb = pieces(cx, cy, w, h, ca, sa, box);
            bool inside = true;
            size_t hits = 0;
            for (size_t i = 0; i < nb; i++) {
                inside = inside && box[i].x0 >= ch->px + 1 && box[i].x1 <= ch->px + ch->pw - 1 &&
                         box[i].y0 >= ch->py + 1 && box[i].y1 <= ch->py + ch->ph - 1;
                hits += !box_free_in(ch, &box[i], L->skip0, L->skip1, false);
            }
            /* Other lines exactly, against the turned box of the text (a box around a
             * diagonal text would reach a line close by); crossing one is the worst. */
            for (size_t i = 0; i < ch->n_segs; i++) {
                const rt_seg *g = &ch->segs[i];
                if (g->obst0 == L->skip0 && g->obst1 == L->skip1 && L->skip1 > L->skip0)
                    continue;
                if (seg_meets_rect(g->x0, g->y0, g->x1, g->y1, cx, cy, ca, sa, w / 2 + 1,
                                   h / 2 + 0.5))
                    hits += 100;
            }
            if (inside && hits < best_hits) {
                best_cx = cx, best_cy = cy;
                best_hits = hits;
            }
        }
    }
    bool have_fallback = best_hits != SIZE_MAX, found = have_fallback;
    if (!found && !have_fallback) {
        /* The visible part is shorter than the text: put it at the middle, unrotated. */
        ang = 0, ca = 1, sa = 0;
        best_cx = fmin(fmax((a + c) / 2, ch->px + w / 2 + 2), ch->px + ch->pw - w / 2 - 2);
        best_cy = fmin(fmax((b + e) / 2 - off, ch->py + h), ch->py + ch->ph - 2);
    }
    nb = pieces(best_cx, best_cy, w, h, ca, sa, box);
    /* Baseline point: from the box centre down by a third of the size, in the text's frame. */
    double bxp = best_cx - sa * size * 0.35, byp = best_cy + ca * size * 0.35;
    rt_text_style ts = {.size = size,
                        .color = L->color,
                        .anchor = RT_ANCHOR_MIDDLE,
                        .rotate = ang * 180 / M_PI,
                        .halo = true};
    rt_draw_text(ch->d, bxp, byp, L->text, &ts);
    for (size_t i = 0; i < nb; i++)
        rt_chart_obstacle(ch, box[i].x0, box[i].y0, box[i].x1, box[i].y1);
}

void rt_chart_line_labels_place(rt_chart *ch)
{
    rt_draw_group(ch->d, "ceiling-labels");
    for (size_t i = 0; i < ch->n_line_labels; i++)
        line_label_place(ch, &ch->line_labels[i]);
    rt_draw_group(ch->d, NULL);
}

static int by_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The ascending IDs as "K1-K7, K10" (a run of three or more as a range), at most 12 items and
 * then "and N more". */
static void id_list(char *buf, size_t cap, char prefix, const size_t *id, size_t n)
{
    size_t len = 0, items = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < cap;) {
        size_t j = i;
        while (j + 1 < n && id[j + 1] == id[j] + 1)
            j++;
        if (items == 12) {
            len += (size_t)snprintf(buf + len, cap - len, " and %zu more", n - i);
            break;
        }
        const char *sep = items ? ", " : "";
        if (j >= i + 2) {
            len += (size_t)snprintf(buf + len, cap - len, "%s%c%zu-%c%zu", sep, prefix, id[i],
                                    prefix, id[j]);
            i = j + 1;
        } else {
            len += (size_t)snprintf(buf + len, cap - len, "%s%c%zu", sep, prefix, id[i]);
            i++;
        }
        items++;
    }
}

void rt_chart_id_note(rt_chart *ch)
{
    const rt_id_labels *il = &ch->id_labels;
    if (!il->prefix)
        return;
    size_t before = ch->n_notes;
    size_t *all = rt_xmalloc((ch->n_labels + 1) * sizeof *all),
           *lost = rt_xmalloc((ch->n_labels + 1) * sizeof *lost), n = 0, n_lost = 0;
    for (size_t i = 0; i < ch->n_labels; i++)
        if (ch->labels[i].id) {
            all[n++] = ch->labels[i].id;
            if (!ch->labels[i].placed)
                lost[n_lost++] = ch->labels[i].id;
        }
    if (n > 0) {
        qsort(all, n, sizeof *all, by_size);
        qsort(lost, n_lost, sizeof *lost, by_size);
        char ids[160], none[160] = "", of[48] = "";
        id_list(ids, sizeof ids, il->prefix, all, n);
        if (n_lost) {
            char l[140];
            id_list(l, sizeof l, il->prefix, lost, n_lost);
            snprintf(none, sizeof none, "; no room for %s (the hover text names %s)", l,
                     n_lost == 1 ? "it" : "them");
        }
        bool cfg = il->prefix == 'C';
        const char *what = cfg ? "config" : "kernel";
        if (il->of)
            snprintf(of, sizeof of, " of %zu", il->of);
        /* "the longest kernel drawn", "the 8 longest of 315 configs drawn" */
        char count[32] = "";
        if (n > 1)
            snprintf(count, sizeof count, " %zu", n);
        rt_chart_note(ch,
                      "label%s %s: the%s longest%s %s%s drawn, numbered as in the report's %s "
                      "table%s%s%s",
                      n > 1 ? "s" : "", ids, count, of, what, n > 1 ? "s" : "", what, none,
                      il->tail ? "; " : "", il->tail ? il->tail : "");
    } else if (il->tail) {
        rt_chart_note(ch, "%s", il->tail);
    }
    /* Where the view would have written it: the key to the labels before what follows. */
    if (ch->n_notes > before && il->note_at < ch->n_notes - 1) {
        char *last = ch->notes[ch->n_notes - 1];
        memmove(ch->notes + il->note_at + 1, ch->notes + il->note_at,
                (ch->n_notes - 1 - il->note_at) * sizeof *ch->notes);
        ch->notes[il->note_at] = last;
    }
    free(all);
    free(lost);
}
