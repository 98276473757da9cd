/* Verdict tables of an analysis as text for people, CSV for spreadsheets and JSON for programs. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "rooftime/core/verdict-trust.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/byte-placement.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/machine-sanity.h"
#include "rooftime/core/model.h"
#include "rooftime/core/overhead-path.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/analysis-columns.h"
#include "rooftime/formats/analysis-format.h"
#include "rooftime/util/error.h"
#include "rooftime/util/format.h"
#include "rooftime/util/parallel.h"
#include "rooftime/util/strings.h"
#include "analysis-text-rows.h"
#include "json-emit.h"
#include "json-write.h"
#include "text-numbers.h"

int rt_format_parse(const char *s, rt_format *out, rt_error *err)
{
    if (s && strcmp(s, "text") == 0) {
        *out = RT_FORMAT_TEXT;
    } else if (s && strcmp(s, "csv") == 0) {
        *out = RT_FORMAT_CSV;
    } else if (s && strcmp(s, "json") == 0) {
        *out = RT_FORMAT_JSON;
    } else {
        rt_error_set(err, "unknown format '%s' (text, csv or json)", s ? s : "");
        return -1;
    }
    return 0;
}

/* What the times are and which tau the profiles pay: it decides what the overhead bound does. */
static void write_time_line(const rt_analysis *a, FILE *fp)
{
    int seen[3] = {0, 0, 0};
    for (size_t i = 0; i < a->n_items; i++)
        seen[a->items[i].ctx.time] = 1;
    fputs("times:", fp);
    static const char *const what[] = {
        "of unknown kind, read as wall time (n x tau is a floor under them)",
        "device time (launches outside it: the overhead bound classifies, caps nothing)",
        "wall time per call (n x tau is a floor under them)"};
    /* where kernels name the overhead their own calls pay, that is the floor, tau the box */
    static const char *const what_paid[] = {
        "of unknown kind, read as wall time (n x the overhead paid is a floor under them)",
        "device time (launches outside it: the overhead bound classifies, caps nothing)",
        "wall time per call (n x the overhead paid is a floor under them)"};
    const char *sep = " ";
    for (int k = 0; k < 3; k++)
        if (seen[k]) {
            fprintf(fp, "%s%s", sep, a->own_paths ? what_paid[k] : what[k]);
            sep = "; ";
        }
    char t[32];
    rt_fmt_seconds(t, sizeof t, a->tau_mean);
    if (a->own_paths)
        fprintf(fp,
                "; the overhead box at the tau of each implementation, %s per launch on "
                "average; each row names the overhead its calls pay",
                t);
    else if (fabs(a->tau_mean - a->machine->tau) > 1e-12 * a->machine->tau)
        fprintf(fp, "; launch overhead paid %s per launch on average", t);
    fputc('\n', fp);
}

/* Where estimated bytes were placed: per level, the kernels and their time, and the longest
 * one's reason. Nothing when no verdict placed any. */
static void write_placement(const rt_analysis *a, const size_t *by_time, FILE *fp)
{
    const rt_machine *m = a->machine;
    size_t n_placed = 0;
    for (size_t i = 0; i < a->n_items; i++)
        n_placed += a->items[i].v.placed;
    if (!n_placed)
        return;
    fprintf(fp,
            "\nestimated bytes by working set (%zu kernels: their inputs and outputs at the "
            "innermost level that holds them, caches counted together)\n",
            n_placed);
    for (size_t l = 0; l < m->n_levels; l++) {
        size_t n = 0, first = 0;
        double t = 0;
        for (size_t r = 0; r < a->n_items; r++) {
            const rt_item *it = &a->items[by_time[r]];
            if (!it->v.placed || it->v.placed_level != (int)l)
                continue;
            if (n++ == 0)
                first = by_time[r];
            t += it->kernel->time;
        }
        if (!n)
            continue;
        char ts[32], why[320];
        rt_fmt_seconds(ts, sizeof ts, t);
        rt_placement_why(m, &a->items[first].v, why, sizeof why);
        fprintf(fp, "  %-6s %zu kernel%s, %s (%.1f%%); the longest, %s: %s\n", m->levels[l].name, n,
                n == 1 ? "" : "s", ts, a->total_time > 0 ? 100 * t / a->total_time : 0.0,
                a->items[first].kernel->name, why);
    }
}

static void print_header(FILE *fp, const rt_analysis *a, const char *what, rt_text_widths w)
{
    fprintf(fp, "%4s  %10s %7s %9s %10s %9s  %-*s %*s %10s  ", "#", "time", "share", "launches",
            "GFLOP", "AI", w.bound, "bound", w.eff, "eff", "recover");
    if (a->own_paths) /* the overhead each row's calls pay, where kernels name their own */
        fprintf(fp, "%-*s  ", RT_TEXT_PAID_WIDTH, "overhead paid");
    fprintf(fp, "%s\n", what);
}

int rt_analysis_write_text(const rt_analysis *a, size_t top, FILE *fp)
{
    const rt_machine *m = a->machine;
    char tau[32], tt[32];
    rt_fmt_seconds(tau, sizeof tau, m->tau);
    rt_fmt_seconds(tt, sizeof tt, a->total_time);
    char *trust = rt_trust_line(a);
    if (trust) {
        fprintf(fp, "%s\n", trust);
        free(trust);
    }
    fprintf(fp, "machine: %s (%s)\n", m->name, m->source ? m->source : "unknown source");
    rt_warnings sane = {0};
    if (rt_machine_sanity(m, &sane)) {
        fprintf(fp,
                "WARNING: machine '%s' fails %zu rule%s of `rooftime machine check`; its "
                "verdicts are suspect:\n",
                m->name, sane.n, sane.n == 1 ? "" : "s");
        for (size_t i = 0; i < sane.n; i++)
            fprintf(fp, "  - %s\n", sane.msg[i]);
    }
    rt_warnings_release(&sane);
    fprintf(fp, "mode: %s (%s)\n", rt_mode_name(a->mode),
            a->mode == RT_MODE_SINGLE
                ? "all FLOPs against the reference unit, bytes at the reference level"
                : "each unit at its own peak, the slowest memory level");
    fprintf(fp,
            "reference: %s %.6g GFLOP/s, %s %.6g GB/s, machine balance %.5g FLOP/byte, launch "
            "overhead %s\n",
            m->ref_unit, rt_machine_ref_flops(m) / 1e9, m->ref_level, rt_machine_ref_bw(m) / 1e9,
            rt_machine_balance(m), tau);
    if (m->ref_reason)
        fprintf(fp, "reference chosen: %s\n", m->ref_reason);
    char oc[32];
    rt_fmt_value(oc, sizeof oc, a->overhead_ceiling / 1e9);
    fprintf(fp,
            "total: %zu kernels, %zu configs, %.0f launches, %s, %.6g GFLOP; launch-overhead "
            "ceiling %s GFLOP/s\n",
            a->n_items, a->n_configs, a->total_n, tt, a->total_W / 1e9, oc);
    bool placed = false;
    for (size_t i = 0; i < a->n_items && !placed; i++)
        placed = a->items[i].v.placed;
    fprintf(fp, "AI is at the reference level (%s%s); eff = bound time / measured time\n",
            m->ref_level, placed ? "; estimated bytes: at the level that holds them" : "");
    write_time_line(a, fp);

    fprintf(fp, "\nconfigs by time\n");
    size_t *ci = rt_analysis_configs_by_time(a);
    rt_text_widths bw = rt_text_widths_of(a, ci, a->n_configs, false);
    print_header(fp, a, "config", bw);
    rt_text_rows(fp, a, ci, a->n_configs, false, bw);
    free(ci);

    size_t shown = top && top < a->n_items ? top : a->n_items;
    fprintf(fp, "\nkernels by time");
    if (shown < a->n_items)
        fprintf(fp, " (top %zu of %zu)", shown, a->n_items);
    fprintf(fp, "\n");
    size_t *ii = rt_analysis_items_by_time(a);
    bw = rt_text_widths_of(a, ii, shown, true);
    print_header(fp, a, "kernel", bw);
    rt_text_rows(fp, a, ii, shown, true, bw);
    write_placement(a, ii, fp);
    free(ii);

    /* What to look at first. */
    size_t n_oh = 0, n_zero = 0;
    double t_zero = 0, rec = 0;
    size_t n_real = 0;
    for (size_t c = 0; c < a->n_configs; c++) {
        n_oh += a->configs[c].v.overhead_bound;
        if (rt_verdict_is_real(&a->configs[c].v)) {
            n_real++;
            rec += a->configs[c].v.recoverable;
        }
    }
    for (size_t i = 0; i < a->n_items; i++)
        if (a->items[i].v.zero_ai) {
            n_zero++;
            t_zero += a->items[i].kernel->time;
        }
    char rs[32], tz[32];
    rt_fmt_seconds(rs, sizeof rs, rec);
    rt_fmt_seconds(tz, sizeof tz, t_zero);
    fprintf(fp, "\nsummary\n");
    double tt_s = a->total_time > 0 ? 100 / a->total_time : 0;
    char lb[96] = "";
    if (a->time_lower > 0)
        snprintf(lb, sizeof lb, "; partial (lower bounds of the work: a bound that holds): %.1f%%",
                 a->time_lower * tt_s);
    fprintf(fp,
            "  time with a real verdict (FLOPs and bytes): %.1f%%; partial (FLOPs, no bytes: a "
            "compute bound only): %.1f%%%s; unknown (no counts): %.1f%%\n",
            a->time_real * tt_s, (a->time_partial - a->time_lower) * tt_s, lb,
            a->time_unknown * tt_s);
    fprintf(fp, "  overhead-bound configs: %zu of %zu\n", n_oh, a->n_configs);
    fprintf(fp, "  zero-AI kernels: %zu of %zu, %s (%.1f%% of time)\n", n_zero, a->n_items, tz,
            a->total_time > 0 ? 100 * t_zero / a->total_time : 0.0);
    fprintf(fp, "  recoverable time (%zu of %zu configs with a real verdict): %s of %s (%.1f%%)\n",
            n_real, a->n_configs, rs, tt, a->total_time > 0 ? 100 * rec / a->total_time : 0.0);
    if (a->n_families) {
        fprintf(fp, "  families: %zu\n", a->n_families);
        for (size_t f = 0; f < a->n_families; f++)
            fprintf(fp, "    %s over %zu configs: %s\n", a->families[f].param, a->families[f].n,
                    a->families[f].label);
    }
    return 0;
}

static void csv_field(FILE *fp, const char *s)
{
    if (strpbrk(s, ",\"\n\r")) {
        fputc('"', fp);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', fp);
            fputc(*s, fp);
        }
        fputc('"', fp);
    } else {
        fputs(s, fp);
    }
}

/* One row of the CSV: every column of rt_table_columns, spelled out over its span. */
static void csv_row(FILE *fp, const rt_table_layout *t, const rt_table_row *row)
{
    for (size_t c = 0; c < rt_table_n_columns; c++) {
        const rt_table_column *col = &rt_table_columns[c];
        size_t n = rt_table_column_span(t, col);
        for (size_t k = 0; k < n; k++) {
            if (c > 0 || k > 0)
                fputc(',', fp);
            if (col->type == RT_COLUMN_TEXT) {
                csv_field(fp, col->text(row));
            } else if (col->type == RT_COLUMN_OPT_TEXT) {
                const char *s = col->opt_text(row, k);
                if (s)
                    csv_field(fp, s);
            } else if (col->type == RT_COLUMN_INT) {
                fprintf(fp, "%lld", (long long)col->integer(row));
            } else {
                double v = col->real(row, k);
                char b[40];
                if (!isnan(v)) {
                    rt_text_g9(b, sizeof b, v);
                    fputs(b, fp);
                }
            }
        }
    }
    fputc('\n', fp);
}

/* Rows per worker and round (about 300 bytes each). */
enum { CSV_BLOCK = 8192 };

/* Rows [begin, end) of a table (rt_parallel_write_fn). */
static int csv_part(void *arg, size_t begin, size_t end, FILE *out)
{
    const rt_table_rows *rows = arg;
    rt_table_row row;
    for (size_t r = begin; r < end; r++) {
        rt_table_rows_at(rows, r, &row);
        csv_row(out, rows->t, &row);
    }
    return 0;
}

static int write_csv(const rt_analysis *a, FILE *fp, rt_warnings *warn)
{
    rt_table_layout t;
    rt_table_layout_init(&t, a, warn);
    for (size_t c = 0; c < rt_table_n_columns; c++)
        for (size_t k = 0; k < rt_table_column_span(&t, &rt_table_columns[c]); k++) {
            char *name = rt_table_column_name(&t, &rt_table_columns[c], k);
            if (c > 0 || k > 0)
                fputc(',', fp);
            csv_field(fp, name);
            free(name);
        }
    fputc('\n', fp);
    static const rt_table_kind kinds[] = {RT_TABLE_CONFIGS, RT_TABLE_KERNELS};
    int rc = 0;
    for (size_t k = 0; k < 2; k++) {
        rt_table_rows rows;
        rt_table_rows_init(&rows, &t, kinds[k]);
        rc |= rt_parallel_write(fp, rows.n, CSV_BLOCK, csv_part, &rows);
        rt_table_rows_release(&rows);
    }
    rt_table_layout_release(&t);
    return rc;
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* "placement": the level a verdict's estimated bytes were placed at, one invocation's working
 * set, the capacity that held it (all the caches', when none did), the threads, and why. */
static void placement_emit(rt_jw *w, const rt_machine *m, const rt_verdict *v)
{
    char why[320];
    rt_placement_why(m, v, why, sizeof why);
    rt_jw_key(w, "placement");
    rt_jw_object(w);
    rt_jw_member_string(w, "level", m->levels[v->placed_level].name);
    rt_jw_member_real(w, "working_set", v->ws);
    rt_jw_member_real(w, "capacity", v->ws_capacity);
    if (v->ws_threads > 0)
        rt_jw_member_integer(w, "threads", v->ws_threads);
    else
        rt_jw_member_string(w, "threads", NULL);
    rt_jw_member_string(w, "why", why);
    rt_jw_close(w);
}

/* A verdict's members, in the order of analysis.json (docs/profile-format.md). */
static void verdict_emit(rt_jw *w, const rt_analysis *a, const rt_verdict *v)
{
    const rt_machine *m = a->machine;
    rt_jw_object(w);
    rt_jw_member_real(w, "invocations", v->n);
    rt_jw_member_real(w, "time", v->time);
    rt_jw_member_real(w, "share", a->total_time > 0 ? v->time / a->total_time : NAN);
    rt_jw_member_real(w, "flops", v->W);
    /* bytes, AI and bandwidth time per level, for the levels the kernel has bytes at */
    const char *per_level[] = {"bytes", "ai", "t_bandwidth_per_level"};
    for (int k = 0; k < 3; k++) {
        rt_jw_key(w, per_level[k]);
        rt_jw_object(w);
        for (size_t l = 0; l < v->n_levels; l++)
            if (!isnan(v->q[l]))
                rt_jw_member_real(w, m->levels[l].name,
                                  k == 0   ? v->q[l]
                                  : k == 1 ? v->ai[l]
                                           : v->t_bw[l]);
        rt_jw_close(w);
    }
    static const char *const evidence[] = {"full", "partial", "none"};
    rt_jw_member_real(w, "t_compute", v->t_compute);
    rt_jw_member_real(w, "t_bandwidth", v->t_bw_max);
    rt_jw_member_real(w, "t_overhead", v->t_oh);
    if (a->own_paths) { /* the overhead its calls pay, where kernels name their own */
        char paid[96];
        rt_jw_member_string(w, "overhead_paid", rt_verdict_paid_label(v, paid, sizeof paid));
        rt_jw_member_real(w, "t_overhead_paid", v->t_paid);
    }
    rt_jw_member_real(w, "t_bound", v->t_bound);
    rt_jw_member_string(w, "bound", v->bound_label);
    rt_jw_member_real(w, "efficiency", v->efficiency);
    rt_jw_member_real(w, "recoverable", v->recoverable);
    rt_jw_member_string(w, "evidence", evidence[v->evidence]);
    if (v->lower_bound) /* partial: its counts are lower bounds (tag counts=lower_bound) */
        rt_jw_member_bool(w, "lower_bound", true);
    rt_jw_member_string(w, "time_kind", rt_time_kind_name(v->time_kind));
    rt_jw_member_real(w, "flops_per_s", v->perf);
    rt_jw_member_bool(w, "overhead_bound", v->overhead_bound);
    rt_jw_member_bool(w, "zero_ai", v->zero_ai);
    rt_jw_member_real(w, "bw_time", v->bw_time);
    rt_jw_member_real(w, "compute_time", v->compute_time);
    if (v->placed) /* estimated bytes: where they were placed, and why */
        placement_emit(w, m, v);
    rt_jw_close(w);
}

static void tags_emit(rt_jw *w, const rt_tags *t)
{
    rt_jw_object(w);
    for (size_t i = 0; i < t->n; i++)
        rt_jw_member_string(w, t->v[i].key, t->v[i].value);
    rt_jw_close(w);
}

json_t *rt_analysis_head_json(const rt_analysis *a)
{
    const rt_machine *m = a->machine;
    json_t *j = json_object();
    json_object_set_new(j, "schema", json_string("rooftime.analysis/1"));
    json_object_set_new(j, "mode", json_string(rt_mode_name(a->mode)));
    json_t *mj = json_object();
    json_object_set_new(mj, "name", json_string(m->name));
    json_object_set_new(mj, "reference_unit", json_string(m->ref_unit));
    json_object_set_new(mj, "reference_level", json_string(m->ref_level));
    json_object_set_new(mj, "reference_flops", json_real(rt_machine_ref_flops(m)));
    json_object_set_new(mj, "reference_bandwidth", json_real(rt_machine_ref_bw(m)));
    json_object_set_new(mj, "machine_balance", json_real(rt_machine_balance(m)));
    json_object_set_new(mj, "launch_overhead", json_real(m->tau));
    json_object_set_new(j, "machine", mj);
    json_t *tot = json_object();
    json_object_set_new(tot, "kernels", json_integer((json_int_t)a->n_items));
    json_object_set_new(tot, "configs", json_integer((json_int_t)a->n_configs));
    json_object_set_new(tot, "invocations", json_real(a->total_n));
    json_object_set_new(tot, "time", json_real(a->total_time));
    json_object_set_new(tot, "flops", json_real(a->total_W));
    json_object_set_new(tot, "overhead_ceiling", num_or_null(a->overhead_ceiling));
    json_object_set_new(tot, "time_real_verdict", json_real(a->time_real));
    json_object_set_new(tot, "time_partial_verdict", json_real(a->time_partial));
    if (a->time_lower > 0) /* of the partial: lower bounds (counts=lower_bound) */
        json_object_set_new(tot, "time_lower_bound_verdict", json_real(a->time_lower));
    json_object_set_new(tot, "time_unknown_verdict", json_real(a->time_unknown));
    json_object_set_new(j, "totals", tot);
    return j;
}

static void config_emit(rt_jw *w, const rt_analysis *a, const rt_config *c)
{
    rt_jw_object(w);
    rt_jw_member_string(w, "label", c->label);
    rt_jw_key(w, "tags");
    tags_emit(w, &c->tags);
    rt_jw_member_integer(w, "kernels", (long long)c->n_items);
    rt_jw_key(w, "verdict");
    verdict_emit(w, a, &c->v);
    rt_jw_close(w);
}

static void kernel_emit(rt_jw *w, const rt_analysis *a, const rt_item *it)
{
    rt_jw_object(w);
    rt_jw_member_string(w, "name", it->kernel->name);
    rt_jw_member_string(w, "config", a->configs[it->config].label);
    rt_jw_key(w, "tags");
    tags_emit(w, &it->tags);
    rt_jw_key(w, "verdict");
    verdict_emit(w, a, &it->v);
    const rt_time_spread *sp = &it->kernel->spread;
    if (sp->n > 0) { /* per invocation, where the source timed them one by one */
        rt_jw_key(w, "time_spread");
        rt_jw_object(w);
        rt_jw_member_real(w, "n", sp->n);
        rt_jw_member_real(w, "median", sp->median);
        rt_jw_member_real(w, "q1", sp->q1);
        rt_jw_member_real(w, "q3", sp->q3);
        rt_jw_member_real(w, "relative_half_iqr", rt_time_spread_rel(sp));
        rt_jw_close(w);
    }
    rt_jw_close(w);
}

static void family_emit(rt_jw *w, const rt_analysis *a, const rt_family *fam)
{
    rt_jw_object(w);
    rt_jw_member_string(w, "param", fam->param);
    rt_jw_member_string(w, "fixed", fam->label);
    rt_jw_key(w, "configs");
    rt_jw_array(w);
    for (size_t i = 0; i < fam->n; i++)
        rt_jw_string(w, a->configs[fam->configs[i]].label);
    rt_jw_close(w);
    rt_jw_close(w);
}

/* The lists of the analysis, one element at a time: configs and kernels in order of time,
 * families, warnings. */
typedef enum { LIST_CONFIGS, LIST_KERNELS, LIST_FAMILIES, LIST_WARNINGS, LIST_COUNT } list_kind;
static const char *const list_names[LIST_COUNT] = {"configs", "kernels", "families", "warnings"};

static size_t list_size(const rt_analysis *a, list_kind k)
{
    return k == LIST_CONFIGS    ? a->n_configs
           : k == LIST_KERNELS  ? a->n_items
           : k == LIST_FAMILIES ? a->n_families
                                : a->warnings.n;
}

/* One of the lists: the configs' or the items' order of time, else as stored. */
typedef struct list_ctx {
    const rt_analysis *a;
    list_kind kind;
    size_t *order;
} list_ctx;

/* Element r of a list (rt_json_emit_fn). */
static void list_emit(void *ctx, size_t r, rt_jw *w)
{
    const list_ctx *c = ctx;
    const rt_analysis *a = c->a;
    const size_t *order = c->order;
    switch (c->kind) {
    case LIST_CONFIGS:
        config_emit(w, a, &a->configs[order[r]]);
        break;
    case LIST_KERNELS:
        kernel_emit(w, a, &a->items[order[r]]);
        break;
    case LIST_FAMILIES:
        family_emit(w, a, &a->families[r]);
        break;
    default:
        rt_jw_string(w, a->warnings.msg[r]);
    }
}

/* The analysis as one JSON document, written a member and a list element at a time
 * (rt_json_stream): a million kernels' document never stands whole in memory (as one jansson tree
 * it took 13.6 GB and 153 s). */
static int write_json(const rt_analysis *a, FILE *fp)
{
    rt_json_stream s;
    rt_json_stream_begin(&s, fp, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_t *head = rt_analysis_head_json(a);
    rt_json_stream_members(&s, head);
    json_decref(head);
    for (int k = 0; k < LIST_COUNT; k++) {
        list_ctx c = {a, (list_kind)k,
                      k == LIST_CONFIGS   ? rt_analysis_configs_by_time(a)
                      : k == LIST_KERNELS ? rt_analysis_items_by_time(a)
                                          : NULL};
        rt_json_stream_list_emit(&s, list_names[k], list_size(a, c.kind), list_emit, &c);
        free(c.order);
    }
    return rt_json_stream_end(&s);
}

int rt_analysis_write(const rt_analysis *a, rt_format fmt, FILE *fp, rt_warnings *warn,
                      rt_error *err)
{
    (void)err;
    if (fmt == RT_FORMAT_TEXT)
        return rt_analysis_write_text(a, 20, fp);
    if (fmt == RT_FORMAT_CSV)
        return write_csv(a, fp, warn);
    return write_json(a, fp);
}
