/* Configs as points on the complexity, time and 4D views, with family trajectories and labels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart-internal.h"
#include "rooftime/core/analysis.h"
#include "rooftime/render/draw.h"
#include "rooftime/util/strings.h"

static bool ok(double v)
{
    return v > 0 && isfinite(v);
}

size_t rt_chart_n_points(const rt_chart *ch)
{
    return rt_chart_draws_items(ch) ? ch->a->n_items : ch->a->n_configs;
}

bool rt_chart_point_sel(const rt_chart *ch, size_t i)
{
    return rt_chart_draws_items(ch) ? ch->sel_item[i] : ch->sel_cfg[i];
}

const rt_verdict *rt_chart_point_v(const rt_chart *ch, size_t i)
{
    return rt_chart_draws_items(ch) ? &ch->a->items[i].v : &ch->a->configs[i].v;
}

void rt_chart_config_range(const rt_chart *ch, const double *x, const double *y, rt_range *rx,
                           rt_range *ry)
{
    for (size_t c = 0; c < rt_chart_n_points(ch); c++)
        if (rt_chart_point_sel(ch, c) && ok(x[c]) && ok(y[c])) {
            rt_range_add(rx, x[c]);
            rt_range_add(ry, y[c]);
        }
}

/* Charts of more configs than this label only the longest, by ID, and draw the trajectories of
 * only the longest families; smaller charts label every config as before. */
#define LABEL_ALL_MAX 64
#define DEFAULT_LABELS 16
#define MAX_TRAJECTORIES 24

static _Thread_local const double *fam_time; /* the report draws charts on several threads */
static int by_family_time(const void *x, const void *y)
{
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    if (fam_time[i] != fam_time[j])
        return fam_time[i] > fam_time[j] ? -1 : 1;
    return i < j ? -1 : (i > j);
}

/* Keep the MAX_TRAJECTORIES longest of the nf families (in their first order); say so. */
static size_t longest_families(rt_chart *ch, size_t *fam, size_t nf, bool note)
{
    if (nf <= MAX_TRAJECTORIES)
        return nf;
    const rt_analysis *a = ch->a;
    double *t = rt_xcalloc(nf, sizeof *t), total = 0, kept = 0;
    size_t *idx = rt_xmalloc(nf * sizeof *idx);
    for (size_t k = 0; k < nf; k++) {
        const rt_family *f = &a->families[fam[k]];
        for (size_t i = 0; i < f->n; i++)
            if (ch->sel_cfg[f->configs[i]])
                t[k] += a->configs[f->configs[i]].sum.time;
        total += t[k];
        idx[k] = k;
    }
    fam_time = t;
    qsort(idx, nf, sizeof *idx, by_family_time);
    bool *keep = rt_xcalloc(nf, sizeof *keep);
    for (size_t k = 0; k < MAX_TRAJECTORIES; k++) {
        keep[idx[k]] = true;
        kept += t[idx[k]];
    }
    size_t n = 0;
    for (size_t k = 0; k < nf; k++)
        if (keep[k])
            fam[n++] = fam[k];
    if (note)
        rt_chart_note(ch,
                      "lines join the %d longest of %zu families; the other %zu (%.1f%% of the "
                      "time) are points only",
                      MAX_TRAJECTORIES, nf, nf - n, total > 0 ? 100 * (total - kept) / total : 0);
    free(t);
    free(idx);
    free(keep);
    return n;
}

size_t rt_chart_config_points(rt_chart *ch, const double *x, const double *y, bool open, bool label)
{
    const rt_analysis *a = ch->a;
    size_t *fam, nf = rt_chart_families(ch, &fam), skipped = 0;
    size_t nsel = 0;
    for (size_t c = 0; c < a->n_configs; c++)
        nsel += ch->sel_cfg[c];
    bool many = nsel > LABEL_ALL_MAX;
    nf = longest_families(ch, fam, nf, label);
    /* The family parameter's value of each config in a drawn family: its label. */
    const char **fv = rt_xcalloc(a->n_configs + 1, sizeof *fv);
    for (size_t k = 0; k < nf; k++) {
        const rt_family *f = &a->families[fam[k]];
        for (size_t i = 0; i < f->n; i++)
            if (!fv[f->configs[i]])
                fv[f->configs[i]] = rt_chart_cfg_tag(a, f->configs[i], f->param);
    }
    rt_draw_group(ch->d, open ? "time-symbols" : "points");
    /* Trajectories first, under the symbols. */
    for (size_t k = 0; k < nf; k++) {
        const rt_family *f = &a->families[fam[k]];
        double *fx = rt_xmalloc(f->n * sizeof *fx), *fy = rt_xmalloc(f->n * sizeof *fy);
        size_t n = 0;
        rt_marker_style ms;
        for (size_t i = 0; i < f->n; i++) {
            size_t c = f->configs[i];
            if (!ch->sel_cfg[c] || !ok(x[c]) || !ok(y[c]))
                continue;
            if (n == 0)
                rt_chart_style(ch, c, false, &ms);
            fx[n] = x[c], fy[n] = y[c];
            n++;
        }
        if (n >= 2) {
            rt_stroke s = {.color = ms.color, .width = 1.5, .dash = open ? 1 : 0, .opacity = 0.85};
            rt_chart_data_polyline(ch, fx, fy, n, &s);
            ch->traj_drawn[open] = true;
        }
        free(fx);
        free(fy);
    }
    /* Symbols: longest configs first so short ones stay on top and visible. */
    size_t *order = rt_analysis_configs_by_time(a);
    size_t max_labels = ch->spec->max_labels ? ch->spec->max_labels : DEFAULT_LABELS, labelled = 0;
    char **shorts = NULL; /* the configs' short labels, when they are drawn */
    for (size_t k = 0; k < a->n_configs; k++) {
        if (k + RT_CHART_AHEAD < a->n_configs) {
            size_t j = order[k + RT_CHART_AHEAD];
            RT_PREFETCH(&x[j]);
            RT_PREFETCH(&y[j]);
            RT_PREFETCH(&fv[j]);
            RT_CHART_PREFETCH_STYLE(ch, j, false);
        }
        size_t c = order[k];
        if (!ch->sel_cfg[c])
            continue;
        if (!ok(x[c]) || !ok(y[c])) {
            skipped++;
            continue;
        }
        rt_marker_style ms;
        rt_chart_style(ch, c, false, &ms);
        if (open)
            ms.filled = false;
        double px = rt_chart_X(ch, x[c]), py = rt_chart_Y(ch, y[c]);
        /* Hover texts are most of a point's bytes: the longest configs carry them. */
        char *title = !many || k < RT_CHART_MAX_TITLES ? rt_chart_cfg_title(ch, c) : NULL;
        char *t2 = open && title
                       ? rt_asprintf("%s\n(open symbol: run time scaled by the peaks)", title)
                       : NULL;
        rt_draw_marker(ch->d, px, py, &ms, t2 ? t2 : title);
        rt_chart_drawn(ch, c, false, open);
        free(title);
        free(t2);
        rt_chart_obstacle_point(ch, px, py, ms.size / 2 + 0.5);
        if (!label)
            continue;
        if (many) {
            /* The config's rank by time, as the report's config table numbers it. */
            if (labelled < max_labels) {
                rt_chart_id_label(ch, px, py, ms.size / 2, 'C', k + 1, ms.color,
                                  (int)(max_labels - labelled));
                labelled++;
            }
        } else if (fv[c]) {
            rt_chart_label(ch, px, py, ms.size / 2, fv[c], ms.color, 10);
        } else if (nf == 0 && nsel <= 12) {
            /* Cut so that no two labels read the same (names alike up to their last tag). */
            if (!shorts) {
                shorts = rt_xcalloc(a->n_configs, sizeof *shorts);
                for (size_t o = 0; o < a->n_configs; o++)
                    if (ch->sel_cfg[o])
                        shorts[o] = rt_chart_cfg_short(ch, o);
            }
            char s[41];
            rt_utf8_shorten_distinct(shorts[c], (const char *const *)shorts, a->n_configs, 40, s);
            rt_chart_label(ch, px, py, ms.size / 2, s, ms.color, 5);
        }
    }
    if (label && many)
        ch->id_labels = (rt_id_labels){.prefix = 'C', .of = nsel, .note_at = ch->n_notes};
    if (shorts)
        for (size_t o = 0; o < a->n_configs; o++)
            free(shorts[o]);
    free(shorts);
    free(order);
    free(fam);
    free(fv);
    rt_draw_group(ch->d, NULL);
    return skipped;
}

size_t rt_chart_item_points(rt_chart *ch, const double *x, const double *y, bool open, bool label)
{
    const rt_analysis *a = ch->a;
    double total = 0;
    for (size_t i = 0; i < a->n_items; i++)
        if (ch->sel_item[i])
            total += a->items[i].v.time;
    rt_draw_group(ch->d, open ? "time-symbols" : "points");
    size_t *order = rt_analysis_items_by_time(a), skipped = 0;
    size_t max_labels = ch->spec->max_labels ? ch->spec->max_labels : DEFAULT_LABELS, labelled = 0;
    for (size_t k = 0; k < a->n_items; k++) {
        if (k + RT_CHART_AHEAD < a->n_items) {
            size_t j = order[k + RT_CHART_AHEAD];
            RT_PREFETCH(&x[j]);
            RT_PREFETCH(&y[j]);
            RT_PREFETCH(&a->items[j].v.time);
            RT_CHART_PREFETCH_STYLE(ch, j, true);
        }
        size_t i = order[k];
        if (!ch->sel_item[i])
            continue;
        if (!ok(x[i]) || !ok(y[i])) {
            skipped++;
            continue;
        }
        rt_marker_style ms;
        rt_chart_style(ch, i, true, &ms);
        double share = total > 0 ? a->items[i].v.time / total : 0;
        ms.size = fmin(5 + 24 * sqrt(fmax(share, 0)), 30);
        ms.opacity = 0.85;
        if (open)
            ms.filled = false;
        double px = rt_chart_X(ch, x[i]), py = rt_chart_Y(ch, y[i]);
        char *title = k < RT_CHART_MAX_TITLES ? rt_chart_item_title(ch, i) : NULL;
        char *t2 = title ? rt_asprintf("K%zu %s%s", k + 1, title,
                                       open ? "\n(open symbol: run time scaled by the peaks)" : "")
                         : NULL;
        rt_draw_marker(ch->d, px, py, &ms, t2);
        rt_chart_drawn(ch, i, true, open);
        free(title);
        free(t2);
        rt_chart_obstacle_point(ch, px, py, ms.size / 2 + 0.5);
        if (label && labelled < max_labels) {
            rt_chart_id_label(ch, px, py, ms.size / 2, 'K', k + 1, ms.color,
                              (int)(max_labels - labelled));
            labelled++;
        }
    }
    if (label && labelled)
        ch->id_labels =
            (rt_id_labels){.prefix = 'K', .tail = "area: share of time", .note_at = ch->n_notes};
    free(order);
    rt_draw_group(ch->d, NULL);
    return skipped;
}

size_t rt_chart_points(rt_chart *ch, const double *x, const double *y, bool open, bool label)
{
    return rt_chart_draws_items(ch) ? rt_chart_item_points(ch, x, y, open, label)
                                    : rt_chart_config_points(ch, x, y, open, label);
}
