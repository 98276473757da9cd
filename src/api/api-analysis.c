/* The API's analyses: the verdict tables of `analyze`, the charts of `plot`, the report of
 * `report`, each computed by the library's own model, writers and renderer. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api-internal.h"
#include "rooftime/api/api.h"
#include "rooftime/core/analysis-findings.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/model.h"
#include "rooftime/core/hints.h"
#include "rooftime/core/reference-ceiling.h"
#include "rooftime/formats/analysis-format.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/formats/hints-json.h"
#include "rooftime/render/chart.h"
#include "rooftime/render/draw.h"
#include "rooftime/render/report-run.h"
#include "rooftime/render/report.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

struct rt_api_analysis {
    rt_machine *m;   /* a copy: the reference and --tau change it */
    rt_profile **ps; /* the caller's, or copies when --tau changes them (owns_ps) */
    size_t n;
    int owns_ps;
    int mode_given;
    rt_mode mode;
    char **group, **ignore;
    size_t n_group, n_ignore;
    rt_analysis *by_mode[2]; /* computed when first asked for, per mode */
};

rt_machine *api_copy_machine(const rt_machine *m)
{
    json_t *j = rt_machine_to_json(m);
    rt_machine *c = NULL;
    rt_error err;
    if (!j || rt_machine_from_json(j, RT_JSON_NAMED("the machine"), &c, &err) != 0) {
        api_fail("cannot copy the machine: %s", j ? err.msg : "no JSON");
        c = NULL;
    }
    json_decref(j);
    return c;
}

rt_profile *api_copy_profile(const rt_profile *p)
{
    rt_profile *c = NULL;
    rt_error err;
    if (rt_profile_copy(p, &c, &err) != 0) {
        api_fail("%s", err.msg);
        return NULL;
    }
    return c;
}

rt_api_analysis *rt_api_analyze(const rt_machine *m, rt_profile *const *ps, size_t n,
                                const char *mode, const char *tau, const char *reference,
                                const char *group_by, const char *ignore)
{
    api_begin();
    rt_error err;
    if (!m || (n && !ps)) {
        api_fail("analyze: no machine or no profiles");
        return NULL;
    }
    if (n == 0) {
        api_fail("analyze: no profile given");
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!ps[i]) {
            api_fail("analyze: profile %zu is missing", i + 1);
            return NULL;
        }
    rt_api_analysis *a = rt_xcalloc(1, sizeof *a);
    a->n = n;
    if (mode) {
        if (rt_mode_parse(mode, &a->mode, &err) != 0) {
            api_fail("%s", err.msg);
            goto fail;
        }
        a->mode_given = 1;
    }
    if (!(a->m = api_copy_machine(m)))
        goto fail;
    a->ps = rt_xcalloc(n, sizeof *a->ps);
    a->owns_ps = tau != NULL;
    for (size_t i = 0; i < n; i++)
        if (!(a->ps[i] = a->owns_ps ? api_copy_profile(ps[i]) : ps[i]))
            goto fail;
    if (rt_reference_tau_apply(a->m, a->ps, n, reference, tau, "tau", &err) != 0) {
        api_fail("%s", err.msg);
        goto fail;
    }
    a->group = rt_split_list(group_by, &a->n_group);
    a->ignore = rt_split_list(ignore, &a->n_ignore);
    return a;
fail:
    rt_api_analysis_free(a);
    return NULL;
}

/* The analysis in mode (computed once); NULL with the error set. */
static rt_analysis *in_mode(rt_api_analysis *a, rt_mode mode)
{
    int k = mode == RT_MODE_HIER;
    if (a->by_mode[k])
        return a->by_mode[k];
    rt_group_opts g = {.keys = (const char *const *)a->group,
                       .n_keys = a->n_group,
                       .ignore = (const char *const *)a->ignore,
                       .n_ignore = a->n_ignore};
    rt_error err;
    a->by_mode[k] = rt_analysis_new(a->m, mode, a->ps, a->n, &g, &err);
    if (!a->by_mode[k])
        api_fail("%s", err.msg);
    else
        api_keep_warnings(&a->by_mode[k]->warnings);
    return a->by_mode[k];
}

rt_analysis *api_analysis_for_tables(rt_api_analysis *a)
{
    return in_mode(a, a->mode_given ? a->mode : RT_MODE_HIER);
}

typedef struct table_job {
    rt_analysis *a;
    rt_format fmt;
    size_t top;
    rt_warnings warn; /* the CSV's (tag keys without a column) */
} table_job;

static int write_table(void *ctx, FILE *fp, rt_error *err)
{
    table_job *t = ctx;
    return t->fmt == RT_FORMAT_TEXT ? rt_analysis_write_text(t->a, t->top, fp)
                                    : rt_analysis_write(t->a, t->fmt, fp, &t->warn, err);
}

/* The JSON's head alone (its precision): what the totals cost, not a document of every kernel. */
static int write_head(void *ctx, FILE *fp, rt_error *err)
{
    json_t *head = rt_analysis_head_json(ctx);
    int rc = head && json_dumpf(head, fp, JSON_COMPACT | JSON_REAL_PRECISION(10)) == 0 ? 0 : -1;
    json_decref(head);
    if (rc != 0)
        rt_error_set(err, "cannot write the analysis's head as JSON");
    return rc;
}

char *rt_api_analysis_text(rt_api_analysis *a, const char *format, size_t top)
{
    api_begin();
    rt_error err;
    table_job t = {.top = top};
    if (!a) {
        api_fail("no analysis");
        return NULL;
    }
    if (format && strcmp(format, "findings") == 0) {
        rt_analysis *an = api_analysis_for_tables(a);
        return an ? api_findings_json(an) : NULL;
    }
    if (format && strcmp(format, "head") == 0) {
        rt_analysis *an = api_analysis_for_tables(a);
        return an ? api_capture(write_head, an) : NULL;
    }
    if (rt_format_parse(format ? format : "csv", &t.fmt, &err) != 0) {
        api_fail("%s", err.msg);
        return NULL;
    }
    if (!(t.a = api_analysis_for_tables(a)))
        return NULL;
    char *s = api_capture(write_table, &t);
    api_keep_warnings(&t.warn);
    rt_warnings_release(&t.warn);
    return s;
}

/* The chart spec of `plot` from o; where holds the split "TAG=VALUE" lines (freed by the caller).
 * Returns the analysis to draw, or NULL with the error set. */
static rt_analysis *plot_spec(rt_api_analysis *a, const rt_api_plot_opts *o, rt_chart_spec *spec,
                              char ***where, size_t *n_where)
{
    rt_error err;
    *where = NULL;
    *n_where = 0;
    rt_api_plot_opts none = {0};
    if (!o)
        o = &none;
    memset(spec, 0, sizeof *spec);
    if (rt_view_parse(o->view ? o->view : "4d", &spec->view, &err) != 0 ||
        (o->points && rt_points_parse(o->points, &spec->points, &err) != 0)) {
        api_fail("%s", err.msg);
        return NULL;
    }
    if ((o->width && !(o->width >= 200 && o->width <= 10000)) ||
        (o->height && !(o->height >= 200 && o->height <= 10000))) {
        api_fail("width and height take points between 200 and 10000");
        return NULL;
    }
    if (o->where) {
        char *copy = rt_strdup(o->where), *save = NULL;
        for (char *t = strtok_r(copy, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
            if (!strchr(t, '=') || t[0] == '=') {
                api_fail("where takes TAG=VALUE, not '%s'", t);
                free(copy);
                return NULL;
            }
            *where = rt_xrealloc(*where, (*n_where + 1) * sizeof **where);
            (*where)[(*n_where)++] = rt_strdup(t);
        }
        free(copy);
    }
    spec->title = o->title;
    spec->width = o->width;
    spec->height = o->height;
    spec->series_by = o->series_by;
    spec->marker_by = o->marker_by;
    spec->fill_by = o->fill_by;
    spec->family = o->family;
    spec->where = (const char *const *)*where;
    spec->n_where = *n_where;
    spec->max_labels = o->labels;
    spec->all_roofs = o->all_roofs != 0;
    /* `plot`'s default mode: every level in the roofline, the paper's single mode elsewhere */
    rt_mode mode = a->mode_given ? a->mode : rt_view_default_mode(spec->view);
    rt_analysis *an = in_mode(a, mode);
    if (an && rt_chart_spec_check(spec, an, &err) != 0) {
        api_fail("%s", err.msg);
        return NULL;
    }
    return an;
}

char *rt_api_analysis_svg(rt_api_analysis *a, const rt_api_plot_opts *o)
{
    api_begin();
    if (!a) {
        api_fail("no analysis");
        return NULL;
    }
    rt_chart_spec spec;
    char **where;
    size_t n_where;
    char *svg = NULL;
    rt_analysis *an = plot_spec(a, o, &spec, &where, &n_where);
    rt_error err;
    if (an && !(svg = rt_chart_svg(&spec, an, &err)))
        api_fail("%s", err.msg);
    rt_free_list(where, n_where);
    return svg;
}

int rt_api_analysis_plot(rt_api_analysis *a, const rt_api_plot_opts *o, const char *path)
{
    api_begin();
    if (!a || !path) {
        api_fail("no analysis or no path");
        return -1;
    }
    rt_draw_format fmt;
    rt_error err;
    if (rt_draw_format_from_path(path, &fmt, &err) != 0) {
        api_fail("%s", err.msg);
        return -1;
    }
    if (!rt_draw_format_available(fmt)) {
        api_fail("%s: %s output needs cairo (Debian libcairo2-dev), not found at configure time",
                 path, rt_draw_format_name(fmt));
        return -1;
    }
    rt_chart_spec spec;
    char **where;
    size_t n_where;
    int rc = -1;
    rt_analysis *an = plot_spec(a, o, &spec, &where, &n_where);
    if (an && (rc = rt_chart_render(&spec, an, path, &err)) != 0)
        api_fail("%s", err.msg);
    rt_free_list(where, n_where);
    return rc;
}

int rt_api_analysis_report(rt_api_analysis *a, const rt_api_report_opts *o, const char *dir)
{
    api_begin();
    if (!a || !dir) {
        api_fail("no analysis or no directory");
        return -1;
    }
    rt_api_report_opts none = {0};
    if (!o)
        o = &none;
    rt_error err;
    rt_points points = RT_POINTS_CONFIGS;
    if (o->points && rt_points_parse(o->points, &points, &err) != 0) {
        api_fail("%s", err.msg);
        return -1;
    }
    /* as `report`: single mode by default, and the hier charts beside it drawn from the same
     * analysis (rt_report_write_run), not from a second one */
    rt_mode mode = a->mode_given ? a->mode : RT_MODE_SINGLE;
    rt_analysis *an = in_mode(a, mode);
    if (!an)
        return -1;
    rt_verdict_hints hints = {0};
    if (rt_verdict_hints_load(NULL, &hints, &err) != 0) {
        api_fail("%s", err.msg);
        return -1;
    }
    size_t n_split = 0;
    char **split = rt_split_list(o->split_by, &n_split);
    rt_report_opts ro = {.title = o->title,
                         .split_by = (const char *const *)split,
                         .n_split_by = n_split,
                         .series_by = o->series_by,
                         .marker_by = o->marker_by,
                         .fill_by = o->fill_by,
                         .points = points,
                         .all_roofs = o->all_roofs != 0};
    int rc = rt_report_write_run(an, a->ps, a->n, &hints, &ro, dir, &err);
    if (rc != 0)
        api_fail("%s", err.msg);
    rt_verdict_hints_release(&hints);
    rt_free_list(split, n_split);
    return rc;
}

void rt_api_analysis_free(rt_api_analysis *a)
{
    if (!a)
        return;
    rt_analysis_free(a->by_mode[0]);
    rt_analysis_free(a->by_mode[1]);
    if (a->owns_ps)
        for (size_t i = 0; i < a->n; i++)
            rt_profile_free(a->ps[i]);
    free(a->ps);
    rt_machine_free(a->m);
    rt_free_list(a->group, a->n_group);
    rt_free_list(a->ignore, a->n_ignore);
    free(a);
}
