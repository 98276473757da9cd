/* Configs as points on the complexity, time and 4D views, with family trajectories and labels. */
#include <math.h>
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

void rt_chart_config_range(const rt_chart *ch, const double *x, const double *y, rt_range *rx,
                           rt_range *ry)
{
    for (size_t c = 0; c < ch->a->n_configs; c++)
        if (ch->sel_cfg[c] && ok(x[c]) && ok(y[c])) {
            rt_range_add(rx, x[c]);
            rt_range_add(ry, y[c]);
        }
}

/* Whether config c belongs to a drawn family (its label is then the parameter value). */
static const char *family_value(const rt_chart *ch, const size_t *fam, size_t nf, size_t c)
{
    for (size_t k = 0; k < nf; k++) {
        const rt_family *f = &ch->a->families[fam[k]];
        for (size_t i = 0; i < f->n; i++)
            if (f->configs[i] == c)
                return rt_chart_cfg_tag(ch->a, c, f->param);
    }
    return NULL;
}

size_t rt_chart_config_points(rt_chart *ch, const double *x, const double *y, bool open, bool label)
{
    const rt_analysis *a = ch->a;
    size_t *fam, nf = rt_chart_families(ch, &fam), skipped = 0;
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
        }
        free(fx);
        free(fy);
    }
    /* Symbols: longest configs first so short ones stay on top and visible. */
    size_t *order = rt_analysis_configs_by_time(a);
    size_t nlab = 0;
    for (size_t c = 0; c < a->n_configs; c++)
        nlab += ch->sel_cfg[c];
    for (size_t k = 0; k < a->n_configs; k++) {
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
        char *title = rt_chart_cfg_title(ch, c);
        char *t2 =
            open ? rt_asprintf("%s\n(open symbol: run time scaled by the peaks)", title) : NULL;
        rt_draw_marker(ch->d, px, py, &ms, t2 ? t2 : title);
        free(title);
        free(t2);
        rt_chart_obstacle_point(ch, px, py, ms.size / 2 + 0.5);
        if (!label)
            continue;
        const char *fv = family_value(ch, fam, nf, c);
        if (fv) {
            rt_chart_label(ch, px, py, ms.size / 2, fv, ms.color, 10);
        } else if (nf == 0 && nlab <= 12) {
            char *s = rt_chart_cfg_short(ch, c);
            if (strlen(s) > 40)
                strcpy(s + rt_utf8_prefix(s, strlen(s), 37), "...");
            rt_chart_label(ch, px, py, ms.size / 2, s, ms.color, 5);
            free(s);
        }
    }
    free(order);
    free(fam);
    rt_draw_group(ch->d, NULL);
    return skipped;
}
