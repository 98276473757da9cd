/* View (a), the traditional (hierarchical) roofline with the launch-overhead ceiling; kernels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chart-internal.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/render/draw.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* Units and levels shown: all of them in hier mode, the reference ones in single mode. */
static bool unit_shown(const rt_chart *ch, size_t u)
{
    return ch->unit_on[u];
}

static bool level_shown(const rt_chart *ch, size_t l)
{
    return ch->level_on[l];
}

/* AI of item i at level l (single mode: the reference AI). */
static double item_ai(const rt_chart *ch, size_t i, size_t l)
{
    const rt_verdict *v = &ch->a->items[i].v;
    if (ch->a->mode != RT_MODE_HIER)
        return v->ai_ref;
    return l < v->n_levels ? v->ai[l] : NAN;
}

static double marker_size(double share)
{
    return fmin(5 + 24 * sqrt(fmax(share, 0)), 30);
}

/* A launch-overhead ceiling oh beyond the plot's top or bottom: an arrow pointing out of the edge
 * it lies beyond, in the ceiling's colour and dashes, and its label beside it; lines and text, so
 * that it never reads as a data point (whose markers are the series' shapes). */
static void offchart_overhead(rt_chart *ch, double oh)
{
    const uint32_t col = 0x8a4f00;
    bool above = log10(oh) > ch->y.hi;
    double x = ch->px + 10, tip = above ? ch->py + 3 : ch->py + ch->ph - 3;
    double dir = above ? 1 : -1; /* from the tip into the plot */
    double tail = tip + dir * 20, head = tip + dir * 6;
    rt_draw_group(ch->d, "overhead-offchart");
    rt_stroke stem = {.color = col, .width = 1.4};
    rt_draw_line(ch->d, x, tail, x, tip, &stem);
    rt_stroke arrow = {.color = col, .width = 1.6};
    double chevron[6] = {x - 4.5, head, x, tip, x + 4.5, head};
    rt_draw_polyline(ch->d, chevron, 3, &arrow);
    char v[48], buf[128];
    rt_fmt_si(v, sizeof v, oh, "FLOP/s");
    snprintf(buf, sizeof buf, "launch overhead W/(n\xc2\xb7\xcf\x84) %s, %s the chart", v,
             above ? "above" : "below");
    double size = 10 * ch->ts, tw = rt_text_width_estimate(buf, size, false);
    double ty = above ? ch->py + 4 + 0.93 * size : ch->py + ch->ph - 4 - 0.24 * size;
    rt_text_style ts = {.size = size, .color = col, .halo = true};
    rt_draw_text(ch->d, x + 8, ty, buf, &ts);
    rt_chart_obstacle(ch, x - 6, fmin(tip, tail), x + 8 + tw, fmax(tip, tail));
    rt_chart_obstacle(ch, x + 8, ty - 0.93 * size, x + 8 + tw, ty + 0.24 * size);
    rt_draw_group(ch->d, NULL);
    rt_chart_note(ch, "launch-overhead ceiling %s is %s the chart (the arrow at the %s edge)", v,
                  above ? "above" : "below", above ? "top" : "bottom");
}

/* The roofs, the diagonals and the launch-overhead ceiling oh: on the chart when oh_shown, else
 * marked at the edge it lies beyond when finite. */
static void draw_ceilings(rt_chart *ch, double pmax, double bmax, double oh, bool oh_finite,
                          bool oh_shown)
{
    const rt_machine *m = ch->m;
    bool hier = ch->a->mode == RT_MODE_HIER;
    double xl = pow(10, ch->x.lo), xh = pow(10, ch->x.hi);
    rt_draw_group(ch->d, "ceilings");
    /* Diagonals up to the highest roof, roofs from the highest diagonal on. */
    for (size_t l = 0; l < m->n_levels; l++) {
        if (!level_shown(ch, l) || !(m->levels[l].bytes_per_s > 0))
            continue;
        double B = m->levels[l].bytes_per_s, ridge = pmax / B;
        uint32_t col = hier ? rt_palette_level(l, m->n_levels) : RT_CEILING;
        rt_stroke s = {.color = col, .width = 1.6};
        rt_chart_data_line(ch, xl, B * xl, ridge, pmax, &s);
        rt_chart_obstacle_line(ch, xl, B * xl, ridge, pmax);
        char v[48], buf[96];
        rt_fmt_si(v, sizeof v, B, "B/s");
        snprintf(buf, sizeof buf, "%s %s", m->levels[l].name, v);
        rt_chart_line_label(ch, xl, B * xl, ridge, pmax, buf, col, false, 0.35);
    }
    for (size_t u = 0; u < m->n_units; u++) {
        if (!unit_shown(ch, u))
            continue;
        double P = m->units[u].flops;
        rt_stroke s = {.color = RT_CEILING, .width = 1.6};
        rt_chart_data_line(ch, P / bmax, P, xh, P, &s);
        rt_chart_obstacle_line(ch, P / bmax, P, xh, P);
        char v[48], buf[96];
        rt_fmt_si(v, sizeof v, P, "FLOP/s");
        snprintf(buf, sizeof buf, "%s %s", m->units[u].name, v);
        rt_chart_line_label(ch, P / bmax, P, xh, P, buf, RT_CEILING, false, 0.85);
    }
    if (oh_shown) {
        rt_stroke s = {.color = 0x8a4f00, .width = 1.4, .dash = 1};
        rt_chart_data_line(ch, xl, oh, xh, oh, &s);
        rt_chart_obstacle_line(ch, xl, oh, xh, oh);
        char v[48], buf[128];
        rt_fmt_si(v, sizeof v, oh, "FLOP/s");
        snprintf(buf, sizeof buf, "launch overhead W/(n\xc2\xb7\xcf\x84) %s", v);
        rt_chart_line_label(ch, xl, oh, xh, oh, buf, 0x8a4f00, false, 0.3);
    }
    rt_draw_group(ch->d, NULL);
    if (!oh_shown && oh_finite)
        offchart_overhead(ch, oh);
}

/* Every selected kernel with FLOPs and time, at its AI per shown level, sized by its share of
 * total_t; the N longest labelled. *labelled: labels placed; *n_nobytes: kernels with FLOPs but
 * no finite AI at any shown level, *t_nobytes their time. */
static void draw_kernels(rt_chart *ch, double total_t, size_t *labelled_out, size_t *n_nobytes_out,
                         double *t_nobytes_out)
{
    const rt_analysis *a = ch->a;
    const rt_machine *m = ch->m;
    bool hier = a->mode == RT_MODE_HIER;
    /* Kernels, largest first so small ones stay visible on top. */
    size_t *order = rt_analysis_items_by_time(a);
    size_t max_labels = ch->spec->max_labels ? ch->spec->max_labels : 8, labelled = 0;
    size_t n_nobytes = 0; /* FLOPs but no finite AI at any shown level (no byte counts) */
    double t_nobytes = 0;
    /* the levels named as the reference (the label's place in hier mode), found once */
    bool *is_ref = rt_xcalloc(m->n_levels + 1, sizeof *is_ref);
    for (size_t l = 0; l < m->n_levels; l++)
        is_ref[l] = m->ref_level && strcasecmp(m->levels[l].name, m->ref_level) == 0;
    rt_draw_group(ch->d, "kernels");
    for (size_t k = 0; k < a->n_items; k++) {
        if (k + RT_CHART_AHEAD < a->n_items) {
            size_t j = order[k + RT_CHART_AHEAD];
            RT_PREFETCH(&a->items[j].v.W);
            RT_PREFETCH(&a->items[j].v.ai);
            RT_PREFETCH(&a->items[j].v.perf);
            RT_CHART_PREFETCH_STYLE(ch, j, true);
        }
        if (k + RT_CHART_AHEAD / 2 < a->n_items)
            RT_PREFETCH(a->items[order[k + RT_CHART_AHEAD / 2]].v.ai);
        size_t i = order[k];
        const rt_verdict *v = &a->items[i].v;
        if (!ch->sel_item[i] || !(v->W > 0) || !(v->time > 0))
            continue;
        rt_marker_style ms;
        rt_chart_style(ch, i, true, &ms);
        ms.size = marker_size(total_t > 0 ? v->time / total_t : 0);
        ms.opacity = 0.85;
        if (hier) {
            /* Color is the level here; the series takes the marker shape. */
            int s = rt_key_place(ch, &ch->series, i, true);
            int mk = rt_key_place(ch, &ch->marker, i, true);
            ms.shape = rt_chart_shape(s >= 0 ? (size_t)s : mk >= 0 ? (size_t)mk : 0);
        }
        double y = rt_chart_Y(ch, v->perf);
        double xs[16], lx = NAN;
        size_t nx = 0;
        char *title = NULL;
        if (k < RT_CHART_MAX_TITLES) {
            char *t0 = rt_chart_item_title(ch, i);
            title = rt_asprintf("K%zu %s", k + 1, t0);
            free(t0);
        }
        for (size_t l = 0; l < m->n_levels && nx < 16; l++) {
            if (!level_shown(ch, l))
                continue;
            double ai = item_ai(ch, i, l);
            if (!(ai > 0) || !isfinite(ai))
                continue;
            xs[nx++] = rt_chart_X(ch, ai);
            if (!hier || is_ref[l] || isnan(lx))
                lx = xs[nx - 1];
        }
        if (nx == 0)
            n_nobytes++, t_nobytes += v->time;
        if (hier && nx >= 2) {
            rt_stroke s = {.color = RT_MUTED, .width = 0.8, .opacity = 0.7};
            double x0 = xs[0], x1 = xs[0];
            for (size_t j = 1; j < nx; j++)
                x0 = fmin(x0, xs[j]), x1 = fmax(x1, xs[j]);
            rt_draw_line(ch->d, x0, y, x1, y, &s);
        }
        nx = 0;
        for (size_t l = 0; l < m->n_levels && nx < 16; l++) {
            if (!level_shown(ch, l))
                continue;
            double ai = item_ai(ch, i, l);
            if (!(ai > 0) || !isfinite(ai))
                continue;
            if (hier)
                ms.color = rt_palette_level(l, m->n_levels);
            double x = xs[nx++];
            char *t = hier && title
                          ? rt_asprintf("%s\nAI at %s: %.4g FLOP/B", title, m->levels[l].name, ai)
                          : NULL;
            rt_draw_marker(ch->d, x, y, &ms, t ? t : title);
            free(t);
            rt_chart_obstacle_point(ch, x, y, ms.size / 2);
        }
        if (nx > 0)
            rt_chart_drawn(ch, i, true, false);
        free(title);
        /* Labelled by ID, K<rank by time> as the report's kernel table numbers them: short,
         * never cut, and the hover text and the table give the name. */
        if (nx > 0 && labelled < max_labels) {
            rt_chart_id_label(ch, lx, y, ms.size / 2, 'K', k + 1, hier ? RT_INK : ms.color,
                              (int)(max_labels - labelled));
            labelled++;
        }
    }
    rt_draw_group(ch->d, NULL);
    free(order);
    free(is_ref);
    *labelled_out = labelled;
    *n_nobytes_out = n_nobytes;
    *t_nobytes_out = t_nobytes;
}

int rt_chart_roofline(rt_chart *ch, rt_error *err)
{
    const rt_analysis *a = ch->a;
    const rt_machine *m = ch->m;
    bool hier = a->mode == RT_MODE_HIER;
    if (m->n_units == 0 || m->n_levels == 0) {
        rt_error_set(err, "machine '%s' has no compute units or no memory levels to draw",
                     m->name ? m->name : "");
        return -1;
    }
    double total_t = 0, total_w = 0, total_n = 0, zero_t = 0;
    size_t n_zero = 0;
    for (size_t i = 0; i < a->n_items; i++) {
        if (!ch->sel_item[i])
            continue;
        total_t += a->items[i].v.time;
        total_w += a->items[i].v.W;
        total_n += a->items[i].v.n;
        if (a->items[i].v.zero_ai) { /* bytes and no FLOPs; count-less kernels: chart.c */
            n_zero++;
            zero_t += a->items[i].v.time;
        }
    }
    double pmax = 0, bmax = 0, pmin = INFINITY;
    rt_range rx = {0}, ry = {0};
    for (size_t u = 0; u < m->n_units; u++)
        if (unit_shown(ch, u)) {
            pmax = fmax(pmax, m->units[u].flops);
            pmin = fmin(pmin, m->units[u].flops);
            rt_range_add(&ry, m->units[u].flops);
        }
    for (size_t l = 0; l < m->n_levels; l++)
        if (level_shown(ch, l))
            bmax = fmax(bmax, m->levels[l].bytes_per_s);
    for (size_t u = 0; u < m->n_units; u++)
        for (size_t l = 0; l < m->n_levels; l++)
            if (unit_shown(ch, u) && level_shown(ch, l) && m->levels[l].bytes_per_s > 0)
                rt_range_add(&rx, m->units[u].flops / m->levels[l].bytes_per_s);
    size_t n_pts = 0;
    for (size_t i = 0; i < a->n_items; i++) {
        if (!ch->sel_item[i] || !(a->items[i].v.W > 0) || !(a->items[i].v.time > 0))
            continue;
        for (size_t l = 0; l < m->n_levels; l++) {
            if (!level_shown(ch, l))
                continue;
            double ai = item_ai(ch, i, l);
            if (ai > 0 && isfinite(ai)) {
                rt_range_add(&rx, ai);
                rt_range_add(&ry, a->items[i].v.perf);
                n_pts++;
            }
            if (!hier)
                break;
        }
    }
    /* The overhead ceiling of what is drawn: inside the axes the data and the roofs need, or
     * marked at the edge it lies beyond (it never stretches the axes). */
    double oh = rt_overhead_ceiling(total_w, total_n, m->tau);
    rt_range_axis(&rx, 3, &ch->x);
    rt_range_axis(&ry, 2, &ch->y);
    bool oh_finite = oh > 0 && isfinite(oh);
    bool oh_shown = oh_finite && log10(oh) >= ch->y.lo && log10(oh) <= ch->y.hi;
    ch->x.label = "Arithmetic intensity (FLOP/byte)";
    ch->x.scale_exp = 0;
    ch->y.label = "Performance (GFLOP/s)";
    ch->y.scale_exp = 9;
    rt_chart_layout(ch);
    rt_chart_frame(ch);

    draw_ceilings(ch, pmax, bmax, oh, oh_finite, oh_shown);
    size_t labelled, n_nobytes;
    double t_nobytes;
    draw_kernels(ch, total_t, &labelled, &n_nobytes, &t_nobytes);
    if (labelled)
        ch->id_labels = (rt_id_labels){.prefix = 'K', .note_at = ch->n_notes};
    if (n_zero)
        rt_chart_note(ch,
                      "%zu zero-AI kernel%s (no FLOPs, %.1f%% of the time) cannot sit on a log "
                      "axis: see the tables",
                      n_zero, n_zero == 1 ? "" : "s", total_t > 0 ? 100 * zero_t / total_t : 0);
    if (n_nobytes)
        rt_chart_note(ch,
                      "%zu kernel%s with FLOPs but no byte counts (%.1f%% of the time) not "
                      "shown: see the tables",
                      n_nobytes, n_nobytes == 1 ? "" : "s",
                      total_t > 0 ? 100 * t_nobytes / total_t : 0);
    if (n_pts == 0 && ch->n_sel_items > 0)
        rt_chart_note(ch, "no kernel has both FLOPs and bytes to place");
    return 0;
}
