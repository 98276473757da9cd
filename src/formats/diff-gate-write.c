/* The regression gate's words: its failing rows (each its line, diff-gate-line.c), the closing
 * verdict, and the files CI systems show: JUnit XML, a Markdown summary, and CSV (the Python
 * package's DataFrame). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff-gate-internal.h"
#include "rooftime/formats/diff-format.h"
#include "rooftime/formats/diff-gate.h"
#include "rooftime/util/format.h"
#include "rooftime/util/html-escape.h"
#include "rooftime/util/strings.h"

int rt_gate_write_rows(const rt_gate *g, FILE *fp)
{
    if (g->refused)
        fprintf(fp, "REFUSED %s\n", g->refused);
    for (size_t i = 0; i < g->n && g->rows[i].state != RT_GATE_PASS; i++)
        fprintf(fp, "%s\n", g->rows[i].line);
    for (size_t i = 0; i < g->n_notes; i++)
        fprintf(fp, "note: %s\n", g->notes[i]);
    return ferror(fp) ? -1 : 0;
}

/* "2 of 14 checks worse beyond noise (threshold 5%, ...); 1 unjudged; BEFORE 10 runs, AFTER 1". */
static void verdict_text(const rt_gate *g, char *buf, size_t n)
{
    if (g->refused) {
        snprintf(buf, n, "refused: %s", g->refused);
        return;
    }
    char un[64] = "";
    if (g->n_unjudged)
        snprintf(un, sizeof un, "; %zu unjudged (noise unknown)", g->n_unjudged);
    snprintf(buf, n,
             "%s: %zu of %zu checks worse beyond noise (threshold %g%%; kernels and configs from "
             "%g%% of the time; launches per %s up by more than %g)%s; BEFORE %zu run%s, AFTER "
             "%zu run%s",
             g->n_fail ? "FAIL" : "pass", g->n_fail, g->n, 100 * g->o.threshold,
             100 * g->o.min_share, g->per_step ? "step" : "run", g->o.launches, un, g->runs[0],
             g->runs[0] == 1 ? "" : "s", g->runs[1], g->runs[1] == 1 ? "" : "s");
}

int rt_gate_write_verdict(const rt_gate *g, FILE *fp)
{
    char v[1024];
    verdict_text(g, v, sizeof v);
    fprintf(fp, "gate: %s\n", v);
    return ferror(fp) ? -1 : 0;
}

int rt_gate_write_junit(const rt_gate *g, FILE *fp)
{
    size_t tests = g->refused ? 1 : g->n, skipped = g->refused ? 0 : g->n_unjudged;
    size_t failures = g->refused ? 0 : g->n_fail, errors = g->refused ? 1 : 0;
    fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(fp,
            "<testsuites name=\"rooftime diff --gate\" tests=\"%zu\" failures=\"%zu\" "
            "errors=\"%zu\" skipped=\"%zu\">\n",
            tests, failures, errors, skipped);
    fprintf(fp,
            "  <testsuite name=\"rooftime gate\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
            "skipped=\"%zu\">\n",
            tests, failures, errors, skipped);
    fprintf(fp, "    <properties>\n");
    fprintf(fp, "      <property name=\"threshold\" value=\"%g\"/>\n", g->o.threshold);
    fprintf(fp, "      <property name=\"min_share\" value=\"%g\"/>\n", g->o.min_share);
    fprintf(fp, "      <property name=\"launches\" value=\"%g\"/>\n", g->o.launches);
    fprintf(fp, "      <property name=\"runs_before\" value=\"%zu\"/>\n", g->runs[0]);
    fprintf(fp, "      <property name=\"runs_after\" value=\"%zu\"/>\n", g->runs[1]);
    fprintf(fp, "    </properties>\n");
    if (g->refused) {
        fprintf(fp, "    <testcase classname=\"rooftime.gate\" name=\"machines\">\n");
        fprintf(fp, "      <error message=\"");
        rt_html_escape(fp, g->refused);
        fprintf(fp, "\" type=\"refused\"/>\n    </testcase>\n");
    }
    for (size_t i = 0; i < g->n && !g->refused; i++) {
        const rt_gate_row *r = &g->rows[i];
        fprintf(fp, "    <testcase classname=\"rooftime.gate.%s.%s\" name=\"",
                gate_check_name(r->check), gate_subject_name(r->subject));
        rt_html_escape(fp, r->name);
        fprintf(fp, "\">");
        if (r->state != RT_GATE_PASS) {
            fprintf(fp, "\n      <%s message=\"", r->state == RT_GATE_FAIL ? "failure" : "skipped");
            rt_html_escape(fp, r->line);
            fprintf(fp, "\"%s/>\n    ", r->state == RT_GATE_FAIL ? " type=\"regression\"" : "");
        }
        fprintf(fp, "</testcase>\n");
    }
    fprintf(fp, "    <system-out>");
    char v[1024];
    verdict_text(g, v, sizeof v);
    rt_html_escape(fp, v);
    for (size_t i = 0; i < g->n_notes; i++) {
        fprintf(fp, "\nnote: ");
        rt_html_escape(fp, g->notes[i]);
    }
    fprintf(fp, "</system-out>\n  </testsuite>\n</testsuites>\n");
    return ferror(fp) ? -1 : 0;
}

/* Text for a Markdown table cell: '|' escaped, backticks and line ends replaced. */
static void md_cell(FILE *fp, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", fp);
        else if (*s == '`')
            fputc('\'', fp);
        else if (*s == '\n' || *s == '\r')
            fputc(' ', fp);
        else
            fputc(*s, fp);
    }
}

static void md_value(FILE *fp, const rt_gate_row *r, double v)
{
    char b[32];
    if (r->check == RT_GATE_TIME)
        rt_fmt_time(b, sizeof b, v);
    else if (r->check == RT_GATE_EFFICIENCY)
        snprintf(b, sizeof b, "%.1f%%", 100 * v);
    else
        snprintf(b, sizeof b, "%.6g", v);
    fprintf(fp, " %s |", b);
}

int rt_gate_write_markdown(const rt_gate *g, FILE *fp)
{
    char v[1024];
    verdict_text(g, v, sizeof v);
    const char *head = g->refused ? "refused" : g->n_fail ? "FAIL" : "pass";
    fprintf(fp, "### rooftime diff --gate: %s\n\n", head);
    md_cell(fp, v);
    fprintf(fp, "\n\n");
    size_t shown = 0;
    for (size_t i = 0; i < g->n && !g->refused && g->rows[i].state != RT_GATE_PASS; i++) {
        const rt_gate_row *r = &g->rows[i];
        if (shown++ == 0)
            fprintf(fp, "| | check | what | before | after | change | noise |\n"
                        "|---|---|---|---|---|---|---|\n");
        fprintf(fp, "| %s | %s | %s", gate_state_name(r->state), gate_check_name(r->check),
                gate_subject_name(r->subject));
        if (r->subject != RT_GATE_TOTAL) {
            fprintf(fp, " `");
            md_cell(fp, r->name);
            fprintf(fp, "`");
        }
        if (r->where) {
            fprintf(fp, " at `");
            md_cell(fp, r->where);
            fprintf(fp, "`");
        }
        fprintf(fp, " |");
        md_value(fp, r, r->before);
        md_value(fp, r, r->after);
        if (r->check == RT_GATE_LAUNCHES)
            fprintf(fp, " %+.6g | exact counts |\n", r->after - r->before);
        else if (r->state == RT_GATE_FAIL && r->margin > 1 + g->o.threshold)
            fprintf(fp, " x%.2f | x%.3f past |\n", r->ratio, r->margin);
        else
            fprintf(fp, " x%.2f | spread unknown |\n", r->ratio);
    }
    if (shown)
        fprintf(fp, "\n");
    for (size_t i = 0; i < g->n && !g->refused; i++)
        if (g->rows[i].check == RT_GATE_LAUNCHES && g->rows[i].detail) {
            fprintf(fp, "Launches per %s rose most in: ", g->per_step ? "step" : "run");
            md_cell(fp, g->rows[i].detail);
            fprintf(fp, "\n\n");
        }
    for (size_t i = 0; i < g->n_notes; i++) {
        fprintf(fp, "- ");
        md_cell(fp, g->notes[i]);
        fprintf(fp, "\n");
    }
    return ferror(fp) ? -1 : 0;
}

static void csv_field(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; s && *s; s++)
        fputs(*s == '"' ? "\"\"" : (char[2]){*s, 0}, fp);
    fputc('"', fp);
}

int rt_gate_write_csv(const rt_gate *g, int only, FILE *fp)
{
    fprintf(fp, "state,check,subject,name,source,before,after,ratio,margin,line\n");
    for (size_t i = 0; i < g->n; i++) {
        const rt_gate_row *r = &g->rows[i];
        if (only >= 0 && (int)r->state != only)
            continue;
        fprintf(fp, "%s,%s,%s,", gate_state_name(r->state), gate_check_name(r->check),
                gate_subject_name(r->subject));
        csv_field(fp, r->name);
        fputc(',', fp);
        if (r->where)
            csv_field(fp, r->where);
        fprintf(fp, ",%.9g,%.9g,%.9g,%.9g,", r->before, r->after, r->ratio, r->margin);
        csv_field(fp, r->line);
        fputc('\n', fp);
    }
    return ferror(fp) ? -1 : 0;
}

/* The table of diff for the gate's two sides: the runs themselves, or each side's mean. */
static int write_table(const rt_gate *g, const rt_profile *const *runs[2], size_t top, FILE *fp)
{
    const rt_profile *side[2];
    rt_profile *mean[2] = {NULL, NULL};
    for (int s = 0; s < 2; s++)
        side[s] =
            g->runs[s] == 1 ? runs[s][0] : (mean[s] = rt_gate_mean_profile(runs[s], g->runs[s]));
    if (g->runs[0] > 1 || g->runs[1] > 1)
        fprintf(fp, "the table: BEFORE %s%zu run%s, AFTER %s%zu run%s\n",
                g->runs[0] > 1 ? "the mean of " : "", g->runs[0], g->runs[0] == 1 ? "" : "s",
                g->runs[1] > 1 ? "the mean of " : "", g->runs[1], g->runs[1] == 1 ? "" : "s");
    rt_diff t;
    rt_diff_build(&t, side[0], side[1], g->o.by);
    rt_diff_opts o = {.m = g->o.m, .mode = g->o.mode, .by = g->o.by, .top = top, .csv = 0};
    int rc = rt_diff_write(&t, side, &o, fp);
    rt_diff_release(&t);
    rt_profile_free(mean[0]);
    rt_profile_free(mean[1]);
    return rc;
}

int rt_gate_write_report(const rt_gate *g, const rt_profile *const *before,
                         const rt_profile *const *after, size_t top, FILE *fp)
{
    const rt_profile *const *runs[2] = {before, after};
    if (rt_gate_write_rows(g, fp) != 0)
        return -1;
    if (!g->refused && (fputc('\n', fp) == EOF || write_table(g, runs, top, fp) != 0))
        return -1;
    return rt_gate_write_verdict(g, fp);
}
