/* The self-contained HTML report: findings, the views per split as inline SVG, verdict tables. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chart-internal.h"
#include "report-internal.h"
#include "rooftime/core/analysis-findings.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/machine-sanity.h"
#include "rooftime/core/model.h"
#include "rooftime/core/overhead-path.h"
#include "rooftime/core/profile.h"
#include "rooftime/render/chart.h"
#include "rooftime/render/report.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/error.h"
#include "rooftime/util/html-escape.h"
#include "rooftime/util/prefetch.h"
#include "rooftime/util/strings.h"

#define MAX_KERNEL_ROWS 500
#define MAX_CONFIG_ROWS 500
static const char css[] =
    "body{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;margin:16px 24px;color:#222;"
    "max-width:1600px}\n"
    "h1{font-size:22px;margin:4px 0}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}"
    "h3{font-size:15px}\n"
    "table{border-collapse:collapse;font-size:12px;margin:8px 0}\n"
    "th,td{border:1px solid #ddd;padding:3px 6px;text-align:right;vertical-align:top}\n"
    "th{background:#f3f3f3;position:sticky;top:0}\n"
    "td.name{text-align:left;max-width:520px;overflow-wrap:anywhere;font-family:monospace}\n"
    "td.warn{background:#fde2d2}tr.oh td{background:#fff7e0}tr.rest td{font-style:italic}\n"
    ".summary{display:flex;flex-wrap:wrap;gap:0 20px;align-items:flex-start}"
    ".summary h2{flex-basis:100%;margin:4px 0 0}.summary ul{flex:1 1 560px;margin:4px 0;"
    "font-size:14px}.summary table{font-size:12px;margin:4px 0}\n"
    /* One line per row, so the first chart stays on the first screen: long names and hints are
     * cut with an ellipsis (the whole text in the cell's title). */
    ".summary td{white-space:nowrap}.summary td,.summary th{padding:2px 6px}"
    ".summary td.name,.summary td:last-child{text-align:left;overflow:hidden;"
    "text-overflow:ellipsis}\n.summary td.name{max-width:340px}"
    ".summary td:last-child{max-width:400px}\n"
    "h2{margin-top:24px}.summary+h2{margin:6px 0 0}\n"
    ".charts{display:block}\n"
    ".chart{border:1px solid #ddd;margin:6px 0}"
    ".chart svg{display:block;width:100%;height:auto}\n"
    ".chart svg circle:hover,.chart svg polygon:hover{stroke-width:3}\n"
    ".scroll{max-height:600px;overflow:auto}\n"
    ".note{color:#555;font-size:13px}.callout{background:#fff7e0;border-left:4px solid #E69F00;"
    "padding:6px 12px;margin:8px 0}\n"
    "dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px;font-size:13px}"
    "dt{font-weight:bold}dd{margin:0}\n";

static void esc(FILE *fp, const char *s)
{
    rt_report_esc(fp, s);
}

static void td_time(FILE *fp, double s)
{
    char b[48];
    if (isnan(s))
        snprintf(b, sizeof b, "-");
    else
        rt_fmt_time(b, sizeof b, s);
    fprintf(fp, "<td>%s</td>", b);
}

static void td_num(FILE *fp, double v, double scale)
{
    if (!isfinite(v))
        fputs("<td>-</td>", fp);
    else
        fprintf(fp, "<td>%.4g</td>", v / scale);
}

static void machine_summary(FILE *fp, const rt_machine *m, const rt_analysis *a)
{
    char b[64];
    fputs("<dl>\n<dt>machine</dt><dd>", fp);
    esc(fp, m->name);
    if (m->source) {
        fputs(" (", fp);
        esc(fp, m->source);
        fputs(")", fp);
    }
    fprintf(fp, "</dd>\n<dt>mode</dt><dd>%s</dd>\n", rt_mode_name(a->mode));
    fputs("<dt>compute units</dt><dd>", fp);
    for (size_t u = 0; u < m->n_units; u++) {
        rt_fmt_si(b, sizeof b, m->units[u].flops, "FLOP/s");
        fputs(u ? ", " : "", fp);
        esc(fp, m->units[u].name);
        fprintf(fp, " %s", b);
    }
    fputs("</dd>\n<dt>memory levels</dt><dd>", fp);
    for (size_t l = 0; l < m->n_levels; l++) {
        rt_fmt_si(b, sizeof b, m->levels[l].bytes_per_s, "B/s");
        fputs(l ? ", " : "", fp);
        esc(fp, m->levels[l].name);
        fprintf(fp, " %s", b);
    }
    fputs("</dd>\n<dt>reference</dt><dd>", fp);
    esc(fp, m->ref_unit);
    fputs(" / ", fp);
    esc(fp, m->ref_level);
    fprintf(fp, ", machine balance %.5g FLOP/byte", rt_machine_balance(m));
    if (m->ref_reason) {
        fputs(" (", fp);
        esc(fp, m->ref_reason);
        fputs(")", fp);
    }
    fputs("</dd>\n", fp);
    rt_warnings sane = {0};
    if (rt_machine_sanity(m, &sane)) {
        fprintf(fp,
                "<dt>machine check</dt><dd class=\"warn\">fails %zu rule%s, so its verdicts are "
                "suspect:<ul>",
                sane.n, sane.n == 1 ? "" : "s");
        for (size_t i = 0; i < sane.n; i++) {
            fputs("<li>", fp);
            esc(fp, sane.msg[i]);
            fputs("</li>", fp);
        }
        fputs("</ul></dd>\n", fp);
    }
    rt_warnings_release(&sane);
    rt_fmt_time(b, sizeof b, m->tau);
    fprintf(fp, "<dt>launch overhead</dt><dd>%s per invocation", b);
    if (m->tau_method) {
        fputs(" (", fp);
        esc(fp, m->tau_method);
        fputs(")", fp);
    }
    fputs("</dd>\n", fp);
    rt_fmt_time(b, sizeof b, a->total_time);
    fprintf(fp, "<dt>total</dt><dd>%s over %zu kernels, %.0f launches, %zu configs</dd>\n", b,
            a->n_items, a->total_n, a->n_configs);
    rt_fmt_si(b, sizeof b, a->overhead_ceiling, "FLOP/s");
    fprintf(fp, "<dt>launch-overhead ceiling</dt><dd>%s (W total / (n total &#183; &#964;))</dd>\n",
            b);
    fputs("</dl>\n", fp);
}

static void verdict_cells(FILE *fp, const rt_analysis *a, const rt_verdict *v)
{
    td_time(fp, v->time);
    fprintf(fp, "<td>%.1f%%</td>", a->total_time > 0 ? 100 * v->time / a->total_time : 0);
    fprintf(fp, "<td>%.0f</td>", v->n);
    td_num(fp, v->W, 1e9);
    for (size_t l = 0; l < a->machine->n_levels; l++)
        td_num(fp, l < v->n_levels ? v->q[l] : NAN, 1e9);
    td_num(fp, v->ai_ref, 1);
    fputs("<td>", fp);
    esc(fp, v->bound_label);
    fputs("</td>", fp);
    if (isfinite(v->efficiency))
        fprintf(fp, "<td%s>%.3g</td>", v->efficiency > 1 ? " class=\"warn\"" : "", v->efficiency);
    else
        fputs("<td>-</td>", fp);
    td_time(fp, v->recoverable);
    if (a->own_paths) { /* the overhead its calls pay, where kernels name their own */
        char paid[96];
        fputs("<td>", fp);
        esc(fp, rt_verdict_paid_label(v, paid, sizeof paid));
        fputs("</td>", fp);
    }
}

static void verdict_head(FILE *fp, const rt_analysis *a)
{
    fputs("<th>time</th><th>share</th><th>launches</th><th>W (GFLOP)</th>", fp);
    for (size_t l = 0; l < a->machine->n_levels; l++) {
        fputs("<th>Q ", fp);
        esc(fp, a->machine->levels[l].name);
        fputs(" (GB)</th>", fp);
    }
    fputs("<th>AI (FLOP/B)</th><th>bound</th><th>efficiency</th><th>recoverable</th>", fp);
    if (a->own_paths)
        fputs("<th>overhead paid</th>", fp);
}

/* The rows past the table's top ones, summed into one row: what they take together. */
typedef struct rest_sum {
    size_t n, kernels;
    double time, launches, W, recoverable;
    double *q; /* per machine level; NAN until a finite figure is added */
} rest_sum;

/* The verdict a later row sums, fetched ahead: rows past the top ones are visited in time order,
 * at random places in memory, and summed a million at a time. */
static inline void rest_prefetch(const rt_verdict *v)
{
    RT_PREFETCH(&v->time);
    RT_PREFETCH(&v->recoverable);
    RT_PREFETCH(v->q);
}

static void rest_add(rest_sum *r, const rt_analysis *a, const rt_verdict *v, size_t kernels)
{
    r->n++;
    r->kernels += kernels;
    r->time += v->time;
    r->launches += v->n;
    r->W += isfinite(v->W) ? v->W : 0;
    if (!isnan(v->recoverable)) /* unknown verdicts recover nothing we know of */
        r->recoverable += v->recoverable;
    for (size_t l = 0; l < a->machine->n_levels && l < v->n_levels; l++)
        if (isfinite(v->q[l]))
            r->q[l] = (isnan(r->q[l]) ? 0 : r->q[l]) + v->q[l];
}

static void rest_row(FILE *fp, const rt_analysis *a, const rest_sum *r, const char *what,
                     bool config_table)
{
    fprintf(fp, "<tr class=\"rest\"><td></td><td class=\"name\">the other %zu %s</td>", r->n, what);
    if (config_table)
        fprintf(fp, "<td>%zu</td>", r->kernels);
    else
        fputs("<td></td>", fp);
    td_time(fp, r->time);
    fprintf(fp, "<td>%.1f%%</td><td>%.0f</td>",
            a->total_time > 0 ? 100 * r->time / a->total_time : 0, r->launches);
    td_num(fp, r->W, 1e9);
    for (size_t l = 0; l < a->machine->n_levels; l++)
        td_num(fp, r->q[l], 1e9);
    fputs("<td>-</td><td>-</td><td>-</td>", fp);
    td_time(fp, r->recoverable);
    if (a->own_paths)
        fputs("<td>-</td>", fp);
    fputs("</tr>\n", fp);
}

/* The configs (IDs C1, C2 ... by time, as the charts label them) and the kernels (K1, K2 ...):
 * the longest rows, then one row summing the rest, so the page stays small at any size. */
static void tables(FILE *fp, const rt_analysis *a)
{
    size_t nl = a->machine->n_levels;
    rest_sum rest = {.q = rt_xmalloc((nl + 1) * sizeof(double))};
    for (size_t l = 0; l < nl; l++)
        rest.q[l] = NAN;
    size_t *co = rt_analysis_configs_by_time(a);
    fputs("<h2 id=\"configs\">Configs</h2>\n<p class=\"note\">Kernels grouped by their tags; "
          "highlighted rows are overhead-bound (inside the overhead box). Efficiency = attainable "
          "bound / measured time; AI at the reference level.",
          fp);
    if (a->n_configs > MAX_CONFIG_ROWS)
        fprintf(fp, " The %d longest of %zu configs, then the others summed.", MAX_CONFIG_ROWS,
                a->n_configs);
    fputs("</p>\n<div class=\"scroll\"><table>\n<tr><th>ID</th><th>config</th><th>kernels</th>",
          fp);
    verdict_head(fp, a);
    fputs("</tr>\n", fp);
    for (size_t k = 0; k < a->n_configs; k++) {
        const rt_config *c = &a->configs[co[k]];
        if (k + RT_CHART_AHEAD < a->n_configs)
            RT_PREFETCH(&a->configs[co[k + RT_CHART_AHEAD]].v.q);
        if (k + RT_CHART_AHEAD / 2 < a->n_configs)
            rest_prefetch(&a->configs[co[k + RT_CHART_AHEAD / 2]].v);
        if (k >= MAX_CONFIG_ROWS) {
            rest_add(&rest, a, &c->v, c->n_items);
            continue;
        }
        fprintf(fp, "<tr%s><td>C%zu</td><td class=\"name\">",
                c->v.overhead_bound ? " class=\"oh\"" : "", k + 1);
        esc(fp, c->label);
        fprintf(fp, "</td><td>%zu</td>", c->n_items);
        verdict_cells(fp, a, &c->v);
        fputs("</tr>\n", fp);
    }
    if (rest.n) {
        rest_row(fp, a, &rest, "configs", true);
    }
    fputs("</table></div>\n", fp);
    free(co);

    memset(&rest, 0, offsetof(rest_sum, q));
    for (size_t l = 0; l < nl; l++)
        rest.q[l] = NAN;
    size_t *io = rt_analysis_items_by_time(a);
    fputs("<h2 id=\"kernels\">Kernels</h2>\n", fp);
    if (a->n_items > MAX_KERNEL_ROWS)
        fprintf(fp,
                "<p class=\"note\">The %d longest of %zu kernels, then the others summed; "
                "`rooftime analyze` lists them all.</p>\n",
                MAX_KERNEL_ROWS, a->n_items);
    fputs("<div class=\"scroll\"><table>\n<tr><th>ID</th><th>kernel</th><th>config</th>", fp);
    verdict_head(fp, a);
    fputs("</tr>\n", fp);
    for (size_t k = 0; k < a->n_items; k++) {
        const rt_item *it = &a->items[io[k]];
        if (k + RT_CHART_AHEAD < a->n_items)
            RT_PREFETCH(&a->items[io[k + RT_CHART_AHEAD]].v.q);
        if (k + RT_CHART_AHEAD / 2 < a->n_items)
            rest_prefetch(&a->items[io[k + RT_CHART_AHEAD / 2]].v);
        if (k >= MAX_KERNEL_ROWS) {
            rest_add(&rest, a, &it->v, 1);
            continue;
        }
        fprintf(fp, "<tr%s><td>K%zu</td><td class=\"name\">",
                it->v.overhead_bound ? " class=\"oh\"" : "", k + 1);
        esc(fp, it->kernel->name);
        fputs("</td><td class=\"name\">", fp);
        esc(fp, a->configs[it->config].label);
        fputs("</td>", fp);
        verdict_cells(fp, a, &it->v);
        fputs("</tr>\n", fp);
    }
    if (rest.n) {
        rest_row(fp, a, &rest, "kernels", false);
    }
    fputs("</table></div>\n", fp);
    free(io);
    free(rest.q);
}

static int write_page(FILE *html, rt_profile *const *profiles, size_t n_profiles,
                      const rt_report_opts *o, const char *dir, const rt_analysis *a,
                      const rt_analysis *hier, rt_error *err)
{
    const rt_machine *m = a->machine;
    const char *title = o->title ? o->title : "rooftime report";
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", html);
    esc(html, title);
    fprintf(html, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", css);
    esc(html, title);
    fputs("</h1>\n", html);
    /* The verdict first: the summary, then the charts, then everything else. */
    fputs("<div class=\"summary\">\n", html);
    if (o->summary) {
        rt_report_findings(html, o->summary, false);
    } else {
        rt_findings *s = rt_analysis_summary(a, NULL);
        rt_report_findings(html, s, false);
        rt_findings_free(s);
    }
    fputs("</div>\n", html);
    rt_report_coverage(html, profiles, n_profiles);

    /* Styling tags nobody carries are dropped, so one report call fits every profile. */
    const char *series =
        o->series_by ? rt_report_tag_find(a, o->series_by) : rt_report_tag_find(a, "framework");
    if (!series && !o->series_by)
        series = rt_report_tag_find(a, "implementation");
    const char *fill = rt_report_tag_find(a, o->fill_by ? o->fill_by : "precision");
    const char *marker = rt_report_tag_find(a, o->marker_by);

    rt_report_split *sp;
    size_t ns = rt_report_splits_build(a, o, &sp);
    int rc = 0;
    for (size_t s = 0; s < ns && rc == 0; s++) {
        fputs("<h2>Charts", html);
        if (sp[s].title[0]) {
            fputs(": ", html);
            esc(html, sp[s].title);
        }
        fputs("</h2>\n<div class=\"charts\">\n", html);
        /* Full width: 1300 points wide with text at 1.2, so at 1400 px no text is below 12 px. */
        rt_chart_spec spec = {.series_by = series,
                              .marker_by = marker,
                              .fill_by = fill,
                              .where = (const char *const *)sp[s].where,
                              .n_where = sp[s].n_where,
                              .width = RT_REPORT_CHART_W,
                              .height = RT_REPORT_CHART_H,
                              .text_scale = RT_REPORT_TEXT_SCALE,
                              .points = o->points,
                              .all_roofs = o->all_roofs};
        rc = rt_report_charts(html, dir, &sp[s], &spec, a, hier, err);
        fputs("</div>\n", html);
    }
    rt_report_splits_free(sp, ns);
    if (rc != 0)
        return -1;
    rt_report_findings(html, o->findings, true);
    for (size_t s = 0; s < o->n_sections; s++) {
        fputs("<h2>", html);
        esc(html, o->sections[s].title);
        fprintf(html, "</h2>\n%s\n", o->sections[s].html ? o->sections[s].html : "");
    }
    if (o->callouts) {
        rt_report_findings(html, o->callouts, false);
    } else {
        rt_findings *c = rt_analysis_findings(a);
        rt_report_findings(html, c, false);
        rt_findings_free(c);
    }
    tables(html, a);
    fputs("<h2 id=\"machine\">Machine and profiles</h2>\n", html);
    machine_summary(html, m, a);
    rt_report_profiles(html, profiles, n_profiles);
    rt_report_warnings(html, &a->warnings);
    fputs("<p class=\"note\">Written by rooftime. Hover a symbol to see its kernel or config. "
          "Method: the time-based hierarchical roofline "
          "(Wang et al., Time-Based Roofline for Deep Learning Performance Analysis).</p>\n"
          "</body>\n</html>\n",
          html);
    return 0;
}

/* Move every file of tmp into dir (or, when keep is 0, delete them), then remove tmp. */
static int settle(const char *tmp, const char *dir, int keep, rt_error *err)
{
    DIR *d = opendir(tmp);
    int rc = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char *from = rt_asprintf("%s/%s", tmp, e->d_name);
            char *to = rt_asprintf("%s/%s", dir, e->d_name);
            if (!keep) {
                unlink(from);
            } else if (rename(from, to) != 0 && rc == 0) {
                rt_error_set(err, "cannot write '%s': %s", to, strerror(errno));
                rc = -1;
                keep = 0; /* take the rest out */
            }
            free(from);
            free(to);
        }
        closedir(d);
    }
    rmdir(tmp);
    return rc;
}

/* The first of the directories of path (path itself or one above it) that does not exist: where
 * rt_mkdir_p starts creating; NULL when path exists. */
static char *first_missing(const char *path)
{
    char *buf = rt_strdup(path);
    size_t len = strlen(buf);
    struct stat st;
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char c = buf[i];
        buf[i] = '\0';
        if (stat(buf, &st) != 0)
            return buf;
        buf[i] = c;
    }
    free(buf);
    return NULL;
}

/* Take out the directories made for dir: dir and those above it, up to first (each empty). */
static void remove_made(const char *dir, const char *first)
{
    if (!first)
        return;
    char *buf = rt_strdup(dir);
    size_t n = strlen(first);
    for (;;) {
        rmdir(buf);
        char *slash = strrchr(buf, '/');
        if (strlen(buf) <= n || !slash)
            break;
        *slash = '\0';
    }
    free(buf);
}

/* The message names the report's directory, not the temporary one inside it. */
static void name_final_dir(rt_error *err, const char *tmp, const char *dir)
{
    char *at;
    while (err && (at = strstr(err->msg, tmp)) != NULL) {
        char *msg = rt_asprintf("%.*s%s%s", (int)(at - err->msg), err->msg, dir, at + strlen(tmp));
        rt_error_set(err, "%s", msg);
        free(msg);
    }
}

int rt_report_write(const rt_analysis *a, const rt_analysis *hier, rt_profile *const *profiles,
                    size_t n_profiles, const rt_report_opts *opts, const char *dir, rt_error *err)
{
    rt_report_opts o = opts ? *opts : (rt_report_opts){0};
    char *made = first_missing(dir); /* what a failure takes out again */
    if (rt_mkdir_p(dir, err) != 0) {
        remove_made(dir, made);
        free(made);
        return -1;
    }
    /* Everything is written into a folder of its own inside dir and moved out at the end, so a
     * report that fails leaves nothing behind (and no half-updated report). */
    char *tmp = rt_asprintf("%s/.report.tmp.XXXXXX", dir);
    if (!mkdtemp(tmp)) {
        rt_error_set(err, "cannot write in '%s': %s", dir, strerror(errno));
        free(tmp);
        remove_made(dir, made);
        free(made);
        return -1;
    }
    const char *final_dir = dir;
    dir = tmp;
    char *buf = NULL;
    size_t len = 0;
    int rc = -1;
    FILE *html = open_memstream(&buf, &len);
    if (!html) {
        rt_error_set(err, "cannot allocate the report buffer");
        goto out;
    }
    rc = write_page(html, profiles, n_profiles, &o, dir, a, hier, err);
    if (fclose(html) != 0 && rc == 0) {
        rt_error_set(err, "cannot build the report in memory");
        rc = -1;
    }
    if (rc == 0) {
        char *path = rt_asprintf("%s/report.html", dir);
        rc = rt_write_file_atomic(path, buf, len, err);
        free(path);
    }
out:
    if (settle(tmp, final_dir, rc == 0, err) != 0)
        rc = -1;
    if (rc != 0) {
        name_final_dir(err, tmp, final_dir);
        remove_made(final_dir, made);
    }
    free(made);
    free(tmp);
    free(buf);
    return rc;
}
