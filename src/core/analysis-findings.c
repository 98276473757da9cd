/* The findings of any analysis: zero-AI kernels (pure data movement) and overhead-bound configs,
 * the longest of each in a table, after the share of time the counts can judge. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "rooftime/core/verdict-trust.h"
#include "rooftime/core/analysis-findings.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/hints.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

static void fmt_time(char *b, size_t n, double s)
{
    if (s != s)
        snprintf(b, n, "-");
    else
        rt_fmt_time(b, n, s);
}

static double share(const rt_analysis *a, double t)
{
    return a->total_time > 0 ? 100 * t / a->total_time : 0;
}

/* How much of the run the counts can judge: the rest has a partial verdict or none. */
static void evidence(rt_findings *f, const rt_analysis *a)
{
    char lead[96], text[384], lb[96] = "";
    snprintf(lead, sizeof lead, "%.1f%% of the run time has a real verdict",
             share(a, a->time_real));
    if (a->time_lower > 0)
        snprintf(lb, sizeof lb, "; %.1f%% a partial one of lower bounds (part of the work counted)",
                 share(a, a->time_lower));
    snprintf(text, sizeof text,
             " (FLOPs and bytes); %.1f%% a partial one (FLOPs, no bytes: a compute bound only)%s; "
             "%.1f%% none (no counts: unknown). Only real verdicts count below.",
             share(a, a->time_partial - a->time_lower), lb, share(a, a->time_unknown));
    rt_findings_callout(f, lead, text);
}

static void zero_ai(rt_findings *f, const rt_analysis *a, const size_t *io)
{
    double zt = 0;
    size_t nz = 0;
    for (size_t i = 0; i < a->n_items; i++)
        if (a->items[i].v.zero_ai) {
            nz++;
            zt += a->items[i].v.time;
        }
    char lead[64], b[48], text[256];
    snprintf(lead, sizeof lead, "%zu zero-AI kernel%s", nz, nz == 1 ? "" : "s");
    rt_fmt_time(b, sizeof b, zt);
    snprintf(text, sizeof text,
             " (no FLOPs: pure data movement such as transposes, conversions, padding) take %s, "
             "%.1f%% of the run time.",
             b, share(a, zt));
    rt_findings_callout(f, lead, text);
    if (!nz)
        return;
    rt_findings_callout_table(f, 4, (const char *const[]){"kernel", "time", "share", "launches"});
    size_t shown = 0;
    for (size_t k = 0; k < a->n_items && shown < RT_CALLOUT_ROWS; k++) {
        const rt_item *it = &a->items[io[k]];
        if (!it->v.zero_ai)
            continue;
        char t[48], s[32], n[32];
        fmt_time(t, sizeof t, it->v.time);
        snprintf(s, sizeof s, "%.1f%%", share(a, it->v.time));
        snprintf(n, sizeof n, "%.0f", it->v.n);
        rt_findings_row(f, (const char *const[]){it->kernel->name, t, s, n});
        shown++;
    }
    if (nz > shown)
        rt_findings_note(f, "and %zu more", nz - shown);
}

size_t rt_analysis_n_overhead_bound(const rt_analysis *a)
{
    size_t no = 0;
    for (size_t c = 0; c < a->n_configs; c++)
        no += a->configs[c].v.overhead_bound;
    return no;
}

/* One row of rt_analysis_overhead_series: the configs whose series is key. */
static size_t overhead_series_row(rt_findings *f, const rt_analysis *a,
                                  const rt_overhead_series *how, char *const *keys, const char *key)
{
    size_t nc = 0, ob = 0;
    double nmin = INFINITY, nmax = 0, t = 0, tob = 0;
    for (size_t c = 0; c < a->n_configs; c++) {
        const rt_config *cf = &a->configs[c];
        if (strcmp(keys[c], key) != 0)
            continue;
        nc++;
        ob += cf->v.overhead_bound;
        nmin = fmin(nmin, cf->v.n);
        nmax = fmax(nmax, cf->v.n);
        for (size_t k = 0; k < cf->n_items; k++) {
            const rt_item *it = &a->items[cf->items[k]];
            t += it->v.time;
            if (it->v.overhead_bound)
                tob += it->v.time;
        }
    }
    char c1[32], c2[48], c3[96] = "";
    snprintf(c1, sizeof c1, "%zu of %zu", ob, nc);
    if (nmin == nmax)
        snprintf(c2, sizeof c2, "%.0f", nmin);
    else
        snprintf(c2, sizeof c2, "%.0f to %.0f", nmin, nmax);
    if (how->time_share)
        snprintf(c3, sizeof c3, "%.1f%%%s", t > 0 ? 100 * tob / t : 0,
                 how->share_note ? how->share_note(a, key) : "");
    rt_findings_row(f, (const char *const[]){key, c1, c2, c3});
    return ob;
}

size_t rt_analysis_overhead_series(rt_findings *f, const rt_analysis *a,
                                   const rt_overhead_series *how)
{
    char **keys = rt_xcalloc(a->n_configs + 1, sizeof *keys);
    for (size_t c = 0; c < a->n_configs; c++) {
        char s[160];
        how->series(&a->configs[c].tags, s, sizeof s);
        keys[c] = rt_strdup(s);
    }
    const char *head[] = {"series", "overhead-bound configs", "launches per config",
                          "share of time in overhead-bound kernels"};
    if (how->time_share)
        head[2] = "invocations per config";
    rt_findings_table(f, how->time_share ? 4 : 3, head);
    size_t total = 0, n_rows = 0, *rows = rt_xcalloc(a->n_configs + 1, sizeof *rows);
    for (size_t c = 0; c < a->n_configs; c++) {
        size_t r = 0;
        while (r < n_rows && strcmp(keys[rows[r]], keys[c]) != 0)
            r++;
        if (r == n_rows) /* the series' first config: its row */
            rows[n_rows++] = c;
    }
    for (size_t r = 0; r < n_rows; r++)
        total += overhead_series_row(f, a, how, keys, keys[rows[r]]);
    for (size_t c = 0; c < a->n_configs; c++)
        free(keys[c]);
    free(keys);
    free(rows);
    return total;
}

static void overhead_bound(rt_findings *f, const rt_analysis *a)
{
    size_t no = rt_analysis_n_overhead_bound(a);
    char lead[96];
    snprintf(lead, sizeof lead, "%zu of %zu config%s overhead-bound", no, a->n_configs,
             a->n_configs == 1 ? " is" : "s are");
    rt_findings_callout(f, lead,
                        ": their launches (n \xc2\xb7 \xcf\x84) cost more than their compute and "
                        "data movement at peak.");
    if (!no)
        return;
    rt_findings_callout_table(f, 5,
                              (const char *const[]){"config", "time", "launches",
                                                    "n \xc2\xb7 \xcf\x84", "roofline time"});
    size_t *co = rt_analysis_configs_by_time(a), shown = 0;
    for (size_t k = 0; k < a->n_configs && shown < RT_CALLOUT_ROWS; k++) {
        const rt_config *c = &a->configs[co[k]];
        if (!c->v.overhead_bound)
            continue;
        shown++;
        char t[48], n[32], oh[48], roof[48];
        fmt_time(t, sizeof t, c->v.time);
        snprintf(n, sizeof n, "%.0f", c->v.n);
        fmt_time(oh, sizeof oh, c->v.t_oh);
        fmt_time(roof, sizeof roof, c->v.t_roof);
        rt_findings_row(f, (const char *const[]){c->label, t, n, oh, roof});
    }
    free(co);
    if (no > shown)
        rt_findings_note(f, "and %zu more (highlighted in the config table)", no - shown);
}

rt_findings *rt_analysis_findings(const rt_analysis *a)
{
    rt_findings *f = rt_findings_new("Zero-AI kernels and overhead-bound configs");
    rt_findings_section_add(f, "Zero-AI kernels and overhead-bound configs")->id =
        rt_strdup("callouts");
    size_t *io = rt_analysis_items_by_time(a);
    evidence(f, a);
    zero_ai(f, a, io);
    overhead_bound(f, a);
    free(io);
    return f;
}

bool rt_item_has_counts(const rt_item *it)
{
    if (it->v.W > 0)
        return true;
    for (size_t l = 0; l < it->v.n_levels; l++)
        if (it->v.q[l] > 0)
            return true;
    return it->v.q_ref > 0;
}

/* Time per bound class ("no counts" for kernels without a real verdict), longest first. */
static void by_class(rt_findings *f, const rt_analysis *a)
{
    char **label = rt_xcalloc(a->n_items + 1, sizeof *label);
    double *t = rt_xcalloc(a->n_items + 1, sizeof *t);
    size_t *n = rt_xcalloc(a->n_items + 1, sizeof *n), nc = 0;
    for (size_t i = 0; i < a->n_items; i++) {
        const rt_item *it = &a->items[i];
        const char *l = rt_item_has_counts(it) ? it->v.bound_label : "no counts";
        size_t c = 0;
        while (c < nc && strcmp(label[c], l) != 0)
            c++;
        if (c == nc)
            label[nc++] = rt_strdup(l);
        t[c] += it->v.time;
        n[c]++;
    }
    rt_findings_table(f, 4, (const char *const[]){"bound", "time", "share", "kernels"});
    for (size_t k = 0; k < nc; k++) {
        size_t best = k;
        for (size_t c = k + 1; c < nc; c++)
            if (t[c] > t[best] || (t[c] == t[best] && strcmp(label[c], label[best]) < 0))
                best = c;
        char *tl = label[k];
        double tt = t[k];
        size_t tn = n[k];
        label[k] = label[best], t[k] = t[best], n[k] = n[best];
        label[best] = tl, t[best] = tt, n[best] = tn;
        char ts[48], sh[32], ns[32];
        fmt_time(ts, sizeof ts, t[k]);
        snprintf(sh, sizeof sh, "%.1f%%", share(a, t[k]));
        snprintf(ns, sizeof ns, "%zu", n[k]);
        rt_findings_row(f, (const char *const[]){label[k], ts, sh, ns});
    }
    for (size_t c = 0; c < nc; c++)
        free(label[c]);
    free(label);
    free(t);
    free(n);
}

/* The kernels with the most recoverable time among those with a real verdict. */
static void top_recoverable(rt_findings *f, const rt_analysis *a, const rt_verdict_hints *hints,
                            const size_t *io)
{
    size_t top[RT_SUMMARY_TOP], rank[RT_SUMMARY_TOP], nt = 0;
    for (size_t k = 0; k < a->n_items; k++) {
        const rt_item *it = &a->items[io[k]];
        if (!rt_item_has_counts(it) || !(it->v.recoverable > 0))
            continue;
        size_t j = nt < RT_SUMMARY_TOP ? nt++ : RT_SUMMARY_TOP;
        while (j > 0 && a->items[top[j - 1]].v.recoverable < it->v.recoverable) {
            if (j < RT_SUMMARY_TOP)
                top[j] = top[j - 1], rank[j] = rank[j - 1];
            j--;
        }
        if (j < RT_SUMMARY_TOP)
            top[j] = io[k], rank[j] = k;
    }
    if (!nt) {
        rt_findings_paragraph(f, "No kernel with a real verdict has recoverable time.");
        return;
    }
    rt_findings_table(
        f, 6,
        (const char *const[]){"ID", "kernel", "time", "recoverable", "verdict", "what to try"});
    rt_findings_name_col(f, 1);
    for (size_t j = 0; j < nt; j++) {
        const rt_item *it = &a->items[top[j]];
        char id[32], ts[48], rs[64], verdict[96], hint[512];
        snprintf(id, sizeof id, "K%zu", rank[j] + 1);
        fmt_time(ts, sizeof ts, it->v.time);
        char r[48];
        fmt_time(r, sizeof r, it->v.recoverable);
        snprintf(rs, sizeof rs, "%s (%.1f%%)", r, share(a, it->v.recoverable));
        if (isfinite(it->v.efficiency))
            snprintf(verdict, sizeof verdict, "%s (bound: %.2g%% of its time)", it->v.bound_label,
                     100 * it->v.efficiency);
        else
            snprintf(verdict, sizeof verdict, "%s", it->v.bound_label);
        rt_verdict_hint_for(hints, &it->v, hint, sizeof hint);
        rt_findings_row(f, (const char *const[]){id, it->kernel->name, ts, rs, verdict, hint});
    }
}

rt_findings *rt_analysis_summary(const rt_analysis *a, const rt_verdict_hints *hints)
{
    rt_findings *f = rt_findings_new("Summary");
    rt_findings_section_add(f, "Summary")->id = rt_strdup("summary");
    double real = 0, rec = 0, partial = 0, none = 0;
    size_t n_none = 0, n_partial = 0, n_lower = 0;
    double lower = 0; /* of partial: counts that are lower bounds */
    for (size_t i = 0; i < a->n_items; i++) {
        const rt_verdict *v = &a->items[i].v;
        if (v->evidence == RT_EVIDENCE_FULL) {
            real += v->time;
            if (isfinite(v->recoverable))
                rec += v->recoverable;
        } else if (v->evidence == RT_EVIDENCE_PARTIAL && v->lower_bound) {
            lower += v->time;
            n_lower++;
        } else if (v->evidence == RT_EVIDENCE_PARTIAL) {
            partial += v->time;
            n_partial++;
        } else {
            none += v->time;
            n_none++;
        }
    }
    char tt[48], rt[48], nt[48], pt[48];
    fmt_time(tt, sizeof tt, a->total_time);
    fmt_time(rt, sizeof rt, rec);
    fmt_time(nt, sizeof nt, none);
    fmt_time(pt, sizeof pt, partial);
    rt_findings_list(f);
    /* Trust first: verdicts against a ceiling measured low read as beating the roof. */
    char *trust = rt_trust_line(a);
    if (trust) {
        rt_findings_item(f, "%s", trust);
        free(trust);
    }
    rt_findings_item(f, "Total %s over %zu kernel%s (%.0f launches) in %zu config%s.", tt,
                     a->n_items, a->n_items == 1 ? "" : "s", a->total_n, a->n_configs,
                     a->n_configs == 1 ? "" : "s");
    if (n_none)
        rt_findings_item(f,
                         "%.1f%% of the time has a real verdict; %zu kernel%s (%s) record%s no "
                         "FLOPs and no bytes, so nothing bounds them.",
                         share(a, real), n_none, n_none == 1 ? "" : "s", nt,
                         n_none == 1 ? "s" : "");
    else if (!n_partial && !n_lower)
        rt_findings_item(f,
                         "%.1f%% of the time has a real verdict (every kernel records FLOPs "
                         "or bytes).",
                         share(a, real));
    else
        rt_findings_item(f, "%.1f%% of the time has a real verdict (FLOPs and bytes).",
                         share(a, real));
    if (n_partial)
        rt_findings_item(f,
                         "%zu kernel%s (%s, %.1f%%) record FLOPs but no bytes: a compute bound "
                         "only, partial verdicts not counted above.",
                         n_partial, n_partial == 1 ? "" : "s", pt, share(a, partial));
    if (n_lower) {
        char lt[48];
        fmt_time(lt, sizeof lt, lower);
        rt_findings_item(f,
                         "%zu kernel%s (%s, %.1f%%) record%s lower bounds of %s work (the cost "
                         "model knows part of it): a bound that holds, partial verdicts not "
                         "counted above.",
                         n_lower, n_lower == 1 ? "" : "s", lt, share(a, lower),
                         n_lower == 1 ? "s" : "", n_lower == 1 ? "its" : "their");
    }
    rt_findings_item(f,
                     "Recoverable: %s, %.1f%% of the total (measured time minus the attainable "
                     "bound, over the kernels with a real verdict).",
                     rt, share(a, rec));
    by_class(f, a);
    size_t *io = rt_analysis_items_by_time(a);
    top_recoverable(f, a, hints, io);
    free(io);
    return f;
}
