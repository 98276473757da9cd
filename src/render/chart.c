/* Chart driver: what to draw (filters), families and trajectories, layout, the output file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "chart-internal.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/render/chart.h"
#include "rooftime/render/draw.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

int rt_points_parse(const char *s, rt_points *out, rt_error *err)
{
    if (s && strcasecmp(s, "configs") == 0)
        *out = RT_POINTS_CONFIGS;
    else if (s && strcasecmp(s, "kernels") == 0)
        *out = RT_POINTS_KERNELS;
    else {
        rt_error_set(err, "unknown points '%s' (kernels or configs)", s ? s : "");
        return -1;
    }
    return 0;
}

static char *verdict_text(const rt_chart *ch, const rt_verdict *v)
{
    char t[48], oh[48], w[48], q[48], b[32];
    rt_fmt_time(t, sizeof t, v->time);
    rt_fmt_time(oh, sizeof oh, v->t_oh);
    rt_fmt_si(w, sizeof w, v->W, "FLOP");
    const char *lvl = ch->m->ref_level ? ch->m->ref_level : "ref";
    if (isfinite(v->q_ref))
        rt_fmt_si(q, sizeof q, v->q_ref, "B");
    else
        snprintf(q, sizeof q, "not recorded");
    if (isfinite(v->ai_ref))
        rt_fmt_num(b, sizeof b, v->ai_ref);
    else
        snprintf(b, sizeof b, "-");
    char eff[32];
    if (isfinite(v->efficiency))
        snprintf(eff, sizeof eff, "%.0f%%", 100 * v->efficiency);
    else
        snprintf(eff, sizeof eff, "-");
    return rt_asprintf("time %s, %.0f launches (overhead %s)\nW %s, Q(%s) %s, AI %s FLOP/B\n"
                       "bound: %s%s, efficiency %s",
                       t, v->n, oh, w, lvl, q, b, v->bound_label,
                       v->overhead_bound ? " (inside the overhead box)" : "", eff);
}

char *rt_chart_cfg_title(const rt_chart *ch, size_t c)
{
    const rt_config *cf = &ch->a->configs[c];
    char *v = verdict_text(ch, &cf->v);
    char *s = rt_asprintf("%s\n%s", cf->label ? cf->label : "config", v);
    free(v);
    return s;
}

char *rt_chart_item_title(const rt_chart *ch, size_t i)
{
    const rt_item *it = &ch->a->items[i];
    char *v = verdict_text(ch, &it->v);
    const char *cl = it->config < ch->a->n_configs ? ch->a->configs[it->config].label : NULL;
    char *s = rt_asprintf("%s\nconfig: %s\n%s", it->kernel->name ? it->kernel->name : "kernel",
                          cl ? cl : "-", v);
    free(v);
    return s;
}

char *rt_chart_cfg_short(const rt_chart *ch, size_t c)
{
    const rt_analysis *a = ch->a;
    const rt_config *cf = &a->configs[c];
    size_t len = 0;
    char *out = rt_xcalloc(1, 1);
    for (size_t t = 0; t < cf->tags.n; t++) {
        const char *key = cf->tags.v[t].key, *val = cf->tags.v[t].value;
        bool varies = false;
        for (size_t o = 0; o < a->n_configs && !varies; o++) {
            if (!ch->sel_cfg[o] || o == c)
                continue;
            const char *ov = rt_tags_get(&a->configs[o].tags, key);
            varies = !ov || strcmp(ov, val) != 0;
        }
        if (!varies)
            continue;
        size_t n = strlen(val);
        out = rt_xrealloc(out, len + n + 2);
        if (len)
            out[len++] = ' ';
        memcpy(out + len, val, n + 1);
        len += n;
    }
    if (len == 0) {
        free(out);
        out = rt_strdup(cf->label ? cf->label : "");
    }
    return out;
}

static size_t family_members(const rt_chart *ch, size_t f)
{
    size_t n = 0;
    const rt_family *fa = &ch->a->families[f];
    for (size_t i = 0; i < fa->n; i++)
        n += ch->sel_cfg[fa->configs[i]];
    return n;
}

size_t rt_chart_families(const rt_chart *ch, size_t **idx)
{
    size_t n = 0;
    *idx = NULL;
    if (!ch->family)
        return 0;
    *idx = rt_xmalloc((ch->a->n_families + 1) * sizeof **idx);
    for (size_t f = 0; f < ch->a->n_families; f++)
        if (strcmp(ch->a->families[f].param, ch->family) == 0 && family_members(ch, f) >= 2)
            (*idx)[n++] = f;
    return n;
}

/* The parameter that most selected configs vary in (ties: alphabetical), or NULL. */
static const char *auto_family(const rt_chart *ch)
{
    /* Members per distinct parameter: few parameters, possibly very many families. */
    const char **param = NULL;
    size_t *count = NULL, np = 0;
    for (size_t f = 0; f < ch->a->n_families; f++) {
        const char *p = ch->a->families[f].param;
        size_t j = 0;
        while (j < np && strcmp(param[j], p) != 0)
            j++;
        if (j == np) {
            param = rt_xrealloc(param, (np + 1) * sizeof *param);
            count = rt_xrealloc(count, (np + 1) * sizeof *count);
            param[np] = p;
            count[np++] = 0;
        }
        size_t n = family_members(ch, f);
        if (n >= 2)
            count[j] += n;
    }
    const char *best = NULL;
    size_t best_n = 0;
    for (size_t j = 0; j < np; j++)
        if (count[j] > best_n ||
            (count[j] == best_n && count[j] > 0 && strcmp(param[j], best) < 0)) {
            best = param[j];
            best_n = count[j];
        }
    free(param);
    free(count);
    return best;
}

static bool tag_known(const rt_analysis *a, const char *tag)
{
    for (size_t i = 0; i < a->n_items; i++)
        if (rt_tags_get(&a->items[i].tags, tag))
            return true;
    return false;
}

int rt_chart_spec_check(const rt_chart_spec *spec, const rt_analysis *a, rt_error *err)
{
    if ((unsigned)spec->view >= RT_VIEW_N) {
        rt_error_set(err, "unknown chart view %d", (int)spec->view);
        return -1;
    }
    for (size_t i = 0; i < spec->n_where; i++) {
        const char *w = spec->where[i], *eq = w ? strchr(w, '=') : NULL;
        if (!eq || eq == w) {
            rt_error_set(err, "filter '%s': expected TAG=VALUE", w ? w : "");
            return -1;
        }
    }
    const char *names[3] = {spec->series_by, spec->marker_by, spec->fill_by};
    const char *what[3] = {"series", "marker", "fill"};
    for (int i = 0; i < 3; i++)
        if (names[i] && !tag_known(a, names[i])) {
            rt_error_set(err, "%s tag '%s': no kernel carries it", what[i], names[i]);
            return -1;
        }
    if (spec->family && strcmp(spec->family, "none") != 0) {
        bool found = false;
        for (size_t f = 0; f < a->n_families && !found; f++)
            found = strcmp(a->families[f].param, spec->family) == 0;
        if (!found) {
            char list[512] = "";
            size_t len = 0;
            for (size_t f = 0; f < a->n_families && len < sizeof list - 64; f++) {
                bool dup = false;
                for (size_t g = 0; g < f && !dup; g++)
                    dup = strcmp(a->families[g].param, a->families[f].param) == 0;
                if (!dup)
                    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                            a->families[f].param);
            }
            rt_error_set(err, "family '%s': no configs vary only in it (%s%s)", spec->family,
                         len ? "families vary: " : "no families found", list);
            return -1;
        }
    }
    return 0;
}

static bool tags_match(const rt_chart_spec *spec, const rt_analysis *a, size_t idx, bool item)
{
    for (size_t k = 0; k < spec->n_where; k++) {
        const char *w = spec->where[k], *eq = strchr(w, '=');
        char *key = rt_strndup(w, (size_t)(eq - w));
        const char *v = item ? rt_chart_item_tag(a, idx, key) : rt_chart_cfg_tag(a, idx, key);
        free(key);
        if (!v || strcmp(v, eq + 1) != 0)
            return false;
    }
    return true;
}

void rt_chart_roofs_pick(rt_chart *ch)
{
    const rt_analysis *a = ch->a;
    const rt_machine *m = ch->m;
    ch->unit_on = rt_xcalloc(m->n_units + 1, sizeof *ch->unit_on);
    ch->level_on = rt_xcalloc(m->n_levels + 1, sizeof *ch->level_on);
    if (a->mode != RT_MODE_HIER) {
        int u = m->ref_unit ? rt_machine_unit_index(m, m->ref_unit) : -1;
        int l = m->ref_level ? rt_machine_level_index(m, m->ref_level) : -1;
        for (size_t i = 0; i < m->n_units; i++)
            ch->unit_on[i] = u < 0 || (int)i == u;
        for (size_t i = 0; i < m->n_levels; i++)
            ch->level_on[i] = l < 0 || (int)i == l;
        return;
    }
    bool any_u = false, any_l = false;
    for (size_t i = 0; i < a->n_items && !ch->spec->all_roofs; i++) {
        if (!ch->sel_item[i])
            continue;
        const rt_kernel *k = a->items[i].kernel;
        for (size_t f = 0; f < k->flops.n; f++) {
            int u =
                k->flops.v[f].value > 0 ? rt_machine_resolve_unit(m, k->flops.v[f].key, NULL) : -1;
            if (u >= 0)
                any_u = ch->unit_on[u] = true;
        }
        const rt_verdict *v = &a->items[i].v;
        for (size_t l = 0; l < v->n_levels && l < m->n_levels; l++)
            if (v->q[l] > 0)
                any_l = ch->level_on[l] = true;
    }
    /* Nothing used (a machine alone, kernels without counts): every roof. */
    for (size_t i = 0; i < m->n_units && !any_u; i++)
        ch->unit_on[i] = true;
    for (size_t i = 0; i < m->n_levels && !any_l; i++)
        ch->level_on[i] = true;
}

static void chart_release(rt_chart *ch)
{
    free(ch->unit_on);
    free(ch->level_on);
    free(ch->sel_item);
    free(ch->sel_cfg);
    rt_key_release(&ch->series);
    rt_key_release(&ch->marker);
    rt_key_release(&ch->fill);
    rt_chart_obstacles_release(ch);
    for (size_t i = 0; i < ch->n_labels; i++)
        free(ch->labels[i].text);
    free(ch->labels);
    for (size_t i = 0; i < ch->n_line_labels; i++)
        free(ch->line_labels[i].text);
    free(ch->line_labels);
    for (size_t i = 0; i < ch->n_notes; i++)
        free(ch->notes[i]);
    free(ch->notes);
}

/* Kernels whose counts bound nothing (no FLOPs, no bytes) have no place in any view: say how
 * many and how much of the time, so a chart never looks complete when it is not. */
static void note_unknown(rt_chart *ch)
{
    const rt_analysis *a = ch->a;
    double t = 0, t_none = 0;
    size_t n_none = 0;
    for (size_t i = 0; i < a->n_items; i++) {
        if (!ch->sel_item[i])
            continue;
        t += a->items[i].v.time;
        if (a->items[i].v.evidence == RT_EVIDENCE_NONE) {
            n_none++;
            t_none += a->items[i].v.time;
        }
    }
    if (n_none)
        rt_chart_note(ch,
                      "%zu kernel%s (%.1f%% of the time) record%s no FLOPs and no bytes: verdict "
                      "unknown, not drawn",
                      n_none, n_none == 1 ? "" : "s", t > 0 ? 100 * t_none / t : 0,
                      n_none == 1 ? "s" : "");
}

int rt_chart_draw(const rt_chart_spec *spec, const rt_analysis *a, rt_draw *d, rt_error *err)
{
    if (rt_chart_spec_check(spec, a, err) != 0)
        return -1;
    rt_chart ch = {.spec = spec,
                   .view = &rt_views[spec->view],
                   .a = a,
                   .m = a->machine,
                   .d = d,
                   .W = d->width,
                   .H = d->height,
                   .ts = spec->text_scale > 0 ? spec->text_scale : 1};
    ch.sel_item = rt_xcalloc(a->n_items + 1, sizeof *ch.sel_item);
    ch.sel_cfg = rt_xcalloc(a->n_configs + 1, sizeof *ch.sel_cfg);
    for (size_t i = 0; i < a->n_items; i++)
        if ((ch.sel_item[i] = tags_match(spec, a, i, true)))
            ch.n_sel_items++;
    for (size_t c = 0; c < a->n_configs; c++)
        if ((ch.sel_cfg[c] = tags_match(spec, a, c, false)))
            ch.n_sel_cfgs++;
    int rc = -1;
    /* A roofline of the machine alone (no kernels, no filters) is a chart too. */
    bool machine_only = rt_chart_draws_items(&ch) && a->n_items == 0 && spec->n_where == 0;
    if ((rt_chart_draws_items(&ch) ? ch.n_sel_items : ch.n_sel_cfgs) == 0 && !machine_only) {
        rt_error_set(err, "nothing to draw: %s",
                     spec->n_where ? "no kernel matches the filters"
                                   : "the profiles hold no kernels");
        goto out;
    }
    rt_key_build(&ch, &ch.series, spec->series_by);
    rt_key_build(&ch, &ch.marker, spec->marker_by);
    rt_key_build(&ch, &ch.fill, spec->fill_by);
    if (!spec->family)
        ch.family = auto_family(&ch);
    else if (strcmp(spec->family, "none") != 0)
        ch.family = spec->family;
    if (ch.family && spec->family) {
        /* A family asked for by name: draw just its sweeps (the paper's one-parameter charts). */
        bool *in = rt_xcalloc(a->n_configs + 1, sizeof *in);
        size_t *fam, nf = rt_chart_families(&ch, &fam);
        for (size_t k = 0; k < nf; k++)
            for (size_t i = 0; i < a->families[fam[k]].n; i++)
                in[a->families[fam[k]].configs[i]] = true;
        free(fam);
        ch.n_sel_cfgs = ch.n_sel_items = 0;
        for (size_t c = 0; c < a->n_configs; c++)
            ch.n_sel_cfgs += (ch.sel_cfg[c] = ch.sel_cfg[c] && in[c]);
        for (size_t i = 0; i < a->n_items; i++)
            ch.n_sel_items += (ch.sel_item[i] = ch.sel_item[i] && in[a->items[i].config]);
        free(in);
        if ((rt_chart_draws_items(&ch) ? ch.n_sel_items : ch.n_sel_cfgs) == 0) {
            rt_error_set(err,
                         "nothing to draw: no family varying '%s' has two configs that match "
                         "the filters",
                         ch.family);
            goto out;
        }
        rt_key_release(&ch.series);
        rt_key_release(&ch.marker);
        rt_key_release(&ch.fill);
        rt_key_build(&ch, &ch.series, spec->series_by);
        rt_key_build(&ch, &ch.marker, spec->marker_by);
        rt_key_build(&ch, &ch.fill, spec->fill_by);
    }
    rt_chart_roofs_pick(&ch);
    ch.secondary = ch.view->seconds_axes;
    ch.legend_w = rt_chart_legend_width(&ch);
    for (size_t i = 0; i < spec->n_notes; i++)
        rt_chart_note(&ch, "%s", spec->notes[i]);

    if (ch.view->draw(&ch, err) != 0)
        goto out;
    ch.drawn_known = true;
    note_unknown(&ch);
    rt_chart_line_labels_place(&ch);
    rt_chart_labels_place(&ch);
    rt_chart_id_note(&ch);
    rt_chart_frame_close(&ch);
    rt_chart_legend(&ch);
    rc = 0;
out:
    chart_release(&ch);
    return rc;
}

#define DEFAULT_W 780
#define DEFAULT_H 560

static int draw_to(const rt_chart_spec *spec, const rt_analysis *a, rt_draw_format f, FILE *fp,
                   rt_error *err)
{
    rt_draw *d = rt_draw_new(f, fp, spec->width > 0 ? spec->width : DEFAULT_W,
                             spec->height > 0 ? spec->height : DEFAULT_H, err);
    if (!d)
        return -1;
    if (rt_chart_draw(spec, a, d, err) != 0) {
        rt_draw_free(d);
        return -1;
    }
    return rt_draw_finish(d, err);
}

int rt_chart_render(const rt_chart_spec *spec, const rt_analysis *a, const char *path,
                    rt_error *err)
{
    rt_draw_format f;
    if (rt_draw_format_from_path(path, &f, err) != 0)
        return -1;
    if (!rt_draw_format_available(f)) {
        rt_error_set(
            err, "%s: %s output needs cairo (Debian libcairo2-dev), not found at configure time",
            path, rt_draw_format_name(f));
        return -1;
    }
    rt_atomic_file af;
    if (rt_atomic_open(&af, path, err) != 0)
        return -1;
    if (draw_to(spec, a, f, af.fp, err) != 0) {
        if (ferror(af.fp)) /* the file could not be written: say which and why */
            rt_atomic_commit(&af, err);
        else
            rt_atomic_abort(&af);
        return -1;
    }
    return rt_atomic_commit(&af, err);
}

char *rt_chart_svg(const rt_chart_spec *spec, const rt_analysis *a, rt_error *err)
{
    /* The backend keeps the text in a buffer of its own (no stream): it becomes the string. */
    rt_draw *d = rt_draw_new(RT_DRAW_SVG, NULL, spec->width > 0 ? spec->width : DEFAULT_W,
                             spec->height > 0 ? spec->height : DEFAULT_H, err);
    if (!d)
        return NULL;
    if (rt_chart_draw(spec, a, d, err) != 0) {
        rt_draw_free(d);
        return NULL;
    }
    return rt_draw_svg_take(d, NULL, err);
}
