/* The regression gate: AFTER against BEFORE, kernel by kernel, per config and in total, each
 * change judged against the noise both sides measured (within a run: each kernel's quartiles per
 * invocation; between runs, where a side has several: the quartiles of the runs), the verdicts on
 * one machine file, and launches per step. Each row's line: diff-gate-line.c; the files it
 * writes: diff-gate-write.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff-gate-internal.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/machine-sanity.h"
#include "rooftime/core/time-spread.h"
#include "rooftime/formats/diff-format.h"
#include "rooftime/formats/diff-gate.h"
#include "rooftime/util/format.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"

/* One key's kernels on both sides: per run its band, over the runs its kernel summed (for the
 * verdicts) and its launches per step. */
typedef struct gkey {
    char *key;
    char *where[2];        /* the side's first source line */
    rt_time_band *band[2]; /* per run of the side */
    rt_kernel sum[2];      /* over the side's runs */
    double per_step[2];    /* launches per step, summed over the side's runs */
    int seen[2];
} gkey;

/* A group of bands per run: a config or the total. */
typedef struct gsum {
    char *name;
    rt_time_band *band[2];
    int seen[2];
} gsum;

typedef struct gstate {
    rt_gate *g;
    const rt_profile *const *runs[2];
    gkey *k;
    size_t nk, capk;
    rt_name_index kix;
    gsum *c; /* configs; c[0] is the total */
    size_t nc, capc;
    rt_name_index cix;
    int per_step; /* every run records its steps */
} gstate;

static void note(rt_gate *g, char *text)
{
    g->notes = rt_xrealloc(g->notes, (g->n_notes + 1) * sizeof *g->notes);
    g->notes[g->n_notes++] = text;
}

/* A profile's machine as the gate compares it: source.machine, else the host; NULL unknown. */
static const char *machine_of(const rt_profile *p, const char **what)
{
    if (p->machine && *p->machine) {
        *what = "machine";
        return p->machine;
    }
    if (p->identity && p->identity->host) {
        *what = "host";
        return p->identity->host;
    }
    *what = NULL;
    return NULL;
}

/* Different machines among the runs, or a suspect machine file: the reason to refuse, or NULL. */
static char *refusal(gstate *st)
{
    rt_gate *g = st->g;
    /* every run against the first that names its machine, by the same kind of name */
    const rt_profile *ref = NULL;
    const char *wref = NULL, *mref = NULL;
    size_t ref_side = 0, unknown = 0;
    for (int s = 0; s < 2 && !ref; s++)
        for (size_t r = 0; r < g->runs[s] && !ref; r++)
            if ((mref = machine_of(st->runs[s][r], &wref)) != NULL) {
                ref = st->runs[s][r];
                ref_side = (size_t)s;
            }
    for (int s = 0; s < 2; s++)
        for (size_t r = 0; r < g->runs[s]; r++) {
            const rt_profile *p = st->runs[s][r];
            const char *w, *m = machine_of(p, &w);
            if (p == ref)
                continue;
            if (!m || strcmp(w, wref) != 0) {
                unknown++;
                continue;
            }
            if (strcmp(m, mref) != 0 && !g->o.other_machine)
                return rt_asprintf("the runs are from two machines: %s '%s' (%s) and '%s' (%s, "
                                   "run %zu): a difference in time between machines is no "
                                   "regression (--allow-other-machine judges them anyway)",
                                   wref, mref, ref_side ? "AFTER" : "BEFORE", m,
                                   s ? "AFTER" : "BEFORE", r + 1);
        }
    if (!ref || unknown)
        note(g, rt_asprintf("%zu of the %zu runs name no machine comparable with the others' "
                            "(source.machine, else the host): %s",
                            ref ? unknown : g->runs[0] + g->runs[1], g->runs[0] + g->runs[1],
                            ref ? "those were not compared" : "the machines were not compared"));
    if (g->o.m) {
        rt_warnings w = {0};
        size_t bad = rt_machine_sanity(g->o.m, &w);
        char *why = NULL;
        if (bad && !g->o.suspect_machine)
            why = rt_asprintf("machine '%s' is suspect: it fails %zu of `machine check`'s rules "
                              "(%s): a verdict judged against a wrong roof is no regression "
                              "(--allow-suspect-machine judges anyway)",
                              g->o.m->name ? g->o.m->name : "", bad, w.n ? w.msg[0] : "");
        else if (bad)
            note(g, rt_asprintf("machine '%s' fails %zu of `machine check`'s rules; judged anyway "
                                "(--allow-suspect-machine)",
                                g->o.m->name ? g->o.m->name : "", bad));
        rt_warnings_release(&w);
        return why;
    }
    return NULL;
}

/* The tags that describe a kernel's work, "k=v k=v", as its config; "(no tags)" without. */
static char *config_of(const rt_kernel *k)
{
    char *s = NULL;
    for (size_t i = 0; i < k->tags.n; i++) {
        if (rt_diff_tag_locates(k->tags.v[i].key))
            continue;
        char *t = rt_asprintf("%s%s%s=%s", s ? s : "", s ? " " : "", k->tags.v[i].key,
                              k->tags.v[i].value);
        free(s);
        s = t;
    }
    return s ? s : rt_strdup("(no tags)");
}

/* Where a key's kernels were called: AFTER's line, else BEFORE's; NULL when unknown. */
static const char *where_of(const gkey *k)
{
    return k->where[1] ? k->where[1] : k->where[0];
}

static gsum *sum_at(gstate *st, const char *name)
{
    size_t at = rt_name_index_get(&st->cix, name, strlen(name));
    if (at != (size_t)-1)
        return &st->c[at];
    if (st->nc == st->capc) {
        st->capc = st->capc ? 2 * st->capc : 16;
        st->c = rt_xrealloc(st->c, st->capc * sizeof *st->c);
    }
    gsum *c = &st->c[st->nc];
    memset(c, 0, sizeof *c);
    c->name = rt_strdup(name);
    for (int s = 0; s < 2; s++)
        c->band[s] = rt_xcalloc(st->g->runs[s], sizeof *c->band[s]);
    rt_name_index_put(&st->cix, name, strlen(name), st->nc);
    return &st->c[st->nc++];
}

static gkey *key_at(gstate *st, const rt_kernel *k)
{
    char *key = rt_diff_key(k, st->g->o.by);
    size_t at = rt_name_index_get(&st->kix, key, strlen(key));
    if (at != (size_t)-1) {
        free(key);
        return &st->k[at];
    }
    if (st->nk == st->capk) {
        st->capk = st->capk ? 2 * st->capk : 64;
        st->k = rt_xrealloc(st->k, st->capk * sizeof *st->k);
    }
    gkey *g = &st->k[st->nk];
    memset(g, 0, sizeof *g);
    g->key = key;
    for (int s = 0; s < 2; s++) {
        g->band[s] = rt_xcalloc(st->g->runs[s], sizeof *g->band[s]);
        rt_kernel_init(&g->sum[s], key);
        /* the first kernel's tags, which a verdict reads (class=communication) */
        rt_tags_copy(&g->sum[s].tags, &k->tags);
    }
    rt_name_index_put(&st->kix, key, strlen(key), st->nk);
    return &st->k[st->nk++];
}

/* A run's optimizer steps (notes.steps, a whole number from 1 up), or 0. */
static double steps_of(const rt_profile *p)
{
    const char *s = rt_tags_get(&p->provenance.notes, "steps");
    double v;
    if (!s || !rt_parse_double(s, &v) || !(v >= 1) || v > 1e12 || v != floor(v))
        return 0;
    return v;
}

/* The tick a run's times were read to (rt_time_spread_tick). */
static double tick_of(const rt_profile *p)
{
    const rt_time_spread **s = rt_xcalloc(p->n_kernels + 1, sizeof *s);
    for (size_t i = 0; i < p->n_kernels; i++)
        s[i] = &p->kernels[i].spread;
    double t = rt_time_spread_tick(s, p->n_kernels);
    free(s);
    return t;
}

static void gather(gstate *st)
{
    rt_gate *g = st->g;
    st->per_step = 1;
    for (int s = 0; s < 2; s++)
        for (size_t r = 0; r < g->runs[s]; r++)
            st->per_step &= steps_of(st->runs[s][r]) > 0;
    sum_at(st, "total");
    for (int s = 0; s < 2; s++)
        for (size_t r = 0; r < g->runs[s]; r++) {
            const rt_profile *p = st->runs[s][r];
            double steps = st->per_step ? steps_of(p) : 1, tick = tick_of(p);
            for (size_t i = 0; i < p->n_kernels; i++) {
                const rt_kernel *k = &p->kernels[i];
                gkey *gk = key_at(st, k);
                gk->seen[s] = 1;
                rt_time_band_add(&gk->band[s][r], k->time, k->invocations, &k->spread, tick);
                rt_kernel_accumulate(&gk->sum[s], k);
                gk->per_step[s] += k->invocations / steps;
                const char *src = rt_tags_get(&k->tags, "source");
                if (src && !gk->where[s])
                    gk->where[s] = rt_strdup(src);
                /* the kernel's config (its own work tags: with --by op a key holds several) and
                 * the total */
                char *cfg = config_of(k);
                for (int c = 0; c < 2; c++) {
                    gsum *sum = sum_at(st, c ? cfg : "total");
                    sum->seen[s] = 1;
                    rt_time_band_add(&sum->band[s][r], k->time, k->invocations, &k->spread, tick);
                }
                free(cfg);
            }
        }
}

/* Add a row; its line is written once every row is judged (gate_row_line, diff-gate-line.c). */
static rt_gate_row *add_row(rt_gate *g, rt_gate_check check, rt_gate_subject subject,
                            const char *name, const char *where)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 32;
        g->rows = rt_xrealloc(g->rows, g->cap * sizeof *g->rows);
    }
    rt_gate_row *r = &g->rows[g->n++];
    memset(r, 0, sizeof *r);
    r->check = check;
    r->subject = subject;
    r->name = rt_strdup(name);
    r->where = where ? rt_strdup(where) : NULL;
    return r;
}

/* One run on a side: the noise between runs, most of it on a shared machine, is not measured, so
 * a change beyond the spread within each run does not stand out of the noise as far as the gate
 * can tell (docs/ci-gate.md). */
static bool one_run(const rt_gate *g)
{
    return g->runs[0] == 1 || g->runs[1] == 1;
}

/* Judge the time of one key, config or the total: bands over each side's runs. */
static rt_gate_row *judge_time(gstate *st, rt_gate_subject subject, const char *name,
                               const char *where, rt_time_band *const band[2])
{
    rt_gate *g = st->g;
    rt_time_band side[2];
    for (int s = 0; s < 2; s++)
        rt_time_band_over_runs(band[s], g->runs[s], &side[s]);
    rt_gate_row *r = add_row(g, RT_GATE_TIME, subject, name, where);
    r->before = side[0].time;
    r->after = side[1].time;
    r->ratio = side[0].time > 0 ? side[1].time / side[0].time : NAN;
    rt_ratio_noise cls = rt_time_band_compare(&side[0], &side[1], g->o.threshold, &r->margin);
    r->one_run = cls == RT_RATIO_BEYOND_NOISE && one_run(g);
    if (cls == RT_RATIO_BEYOND_NOISE)
        r->state = r->one_run && !g->o.strict ? RT_GATE_UNJUDGED : RT_GATE_FAIL;
    else if (cls == RT_RATIO_SPREAD_UNKNOWN && r->ratio > 1 + g->o.threshold)
        r->state = g->o.strict ? RT_GATE_FAIL : RT_GATE_UNJUDGED;
    else
        r->state = RT_GATE_PASS;
    return r;
}

/* Its roof's time over its time, with the machine file of the gate, for one side's mean kernel
 * (sum over runs / runs); and the bound's label. NAN when the verdict is unknown. */
static double efficiency_of(const rt_gate *g, const rt_profile *p, const rt_kernel *sum,
                            double runs, double *t_bound, char *label, size_t n)
{
    rt_kernel mean;
    gate_mean_kernel(&mean, sum, runs);
    rt_verdict_ctx ctx = {.mode = g->o.mode, .time = p->time_kind};
    ctx.tau = rt_analysis_profile_tau(g->o.m, p, &ctx.tau_name);
    rt_verdict v;
    rt_warnings w = {0};
    rt_verdict_compute_in(g->o.m, &ctx, &mean, mean.name, &v, &w);
    double e = rt_verdict_is_real(&v) && v.t_bound > 0 ? v.efficiency : NAN;
    *t_bound = v.t_bound;
    snprintf(label, n, "%s", v.bound_label);
    rt_verdict_release(&v);
    rt_warnings_release(&w);
    rt_kernel_release(&mean);
    return e;
}

/* Judge a key's efficiency on the machine file: its roof's time over the ends of its bands. A
 * kernel whose time failed already is not judged twice. */
static void judge_efficiency(gstate *st, const gkey *k, const rt_gate_row *time_row)
{
    rt_gate *g = st->g;
    double tb[2], e[2];
    char label[2][64];
    for (int s = 0; s < 2; s++)
        e[s] = efficiency_of(g, st->runs[s][0], &k->sum[s], (double)g->runs[s], &tb[s], label[s],
                             sizeof label[s]);
    if (isnan(e[0]) || isnan(e[1]) || (time_row && time_row->state == RT_GATE_FAIL))
        return;
    rt_time_band side[2];
    for (int s = 0; s < 2; s++)
        rt_time_band_over_runs(k->band[s], g->runs[s], &side[s]);
    char *name = rt_asprintf("%s (%s -> %s)", k->key, label[0], label[1]);
    rt_gate_row *r = add_row(g, RT_GATE_EFFICIENCY, RT_GATE_KERNEL, name, where_of(k));
    free(name);
    r->before = e[0];
    r->after = e[1];
    r->ratio = e[1] / e[0];
    /* before's lowest efficiency (its band's high end) over after's highest (its low end) */
    double lo_b = side[0].hi > 0 ? tb[0] / side[0].hi : NAN,
           hi_a = side[1].lo > 0 ? tb[1] / side[1].lo : NAN;
    r->margin = lo_b / hi_a;
    bool known = rt_time_band_known(&side[0]) && rt_time_band_known(&side[1]) && !isnan(r->margin);
    r->one_run = known && r->margin > 1 + g->o.threshold && one_run(g);
    if (known && r->margin > 1 + g->o.threshold)
        r->state = r->one_run && !g->o.strict ? RT_GATE_UNJUDGED : RT_GATE_FAIL;
    else if (!known && e[0] > e[1] * (1 + g->o.threshold))
        r->state = g->o.strict ? RT_GATE_FAIL : RT_GATE_UNJUDGED;
    else
        r->state = RT_GATE_PASS;
}

/* The kernels whose launches per step rose most (at most three, the largest rise first), "KEY
 * 0 -> 1; ..."; NULL when none rose. */
static char *launch_gainers(const gstate *st)
{
    const rt_gate *g = st->g;
    size_t top[3] = {0, 0, 0}, n = 0;
    double rise[3] = {0, 0, 0};
    for (size_t i = 0; i < st->nk; i++) {
        const gkey *k = &st->k[i];
        double d = k->per_step[1] / (double)g->runs[1] - k->per_step[0] / (double)g->runs[0];
        if (!(d > 0))
            continue;
        size_t at = n < 3 ? n++ : 3;
        while (at > 0 && d > rise[at - 1]) {
            if (at < 3) {
                rise[at] = rise[at - 1];
                top[at] = top[at - 1];
            }
            at--;
        }
        if (at < 3) {
            rise[at] = d;
            top[at] = i;
        }
    }
    char *s = NULL;
    for (size_t j = 0; j < n; j++) {
        const gkey *k = &st->k[top[j]];
        char *t =
            rt_asprintf("%s%s'%.80s' %.3g -> %.3g", s ? s : "", s ? "; " : "", k->key,
                        k->per_step[0] / (double)g->runs[0], k->per_step[1] / (double)g->runs[1]);
        free(s);
        s = t;
    }
    return s;
}

/* Launches per step (per run without steps): AFTER's fewest against BEFORE's most, exact counts. */
static void judge_launches(gstate *st)
{
    rt_gate *g = st->g;
    double lo = INFINITY, hi = -INFINITY, mean[2] = {0, 0};
    for (int s = 0; s < 2; s++)
        for (size_t r = 0; r < g->runs[s]; r++) {
            const rt_profile *p = st->runs[s][r];
            double n = 0, steps = st->per_step ? steps_of(p) : 1;
            for (size_t i = 0; i < p->n_kernels; i++)
                n += p->kernels[i].invocations;
            n /= steps;
            mean[s] += n / (double)g->runs[s];
            if (s == 0)
                hi = fmax(hi, n);
            else
                lo = fmin(lo, n);
        }
    rt_gate_row *r = add_row(g, RT_GATE_LAUNCHES, RT_GATE_TOTAL, "total", NULL);
    r->before = mean[0];
    r->after = mean[1];
    r->ratio = mean[0] > 0 ? mean[1] / mean[0] : NAN;
    r->margin = lo - hi;
    r->state = r->margin > g->o.launches ? RT_GATE_FAIL : RT_GATE_PASS;
    r->detail = launch_gainers(st);
    if (!st->per_step)
        note(g, rt_strdup("launches are counted per run: not every profile records its steps "
                          "(notes.steps: `profile --torch --steps`)"));
}

static int row_cmp(const void *a_, const void *b_)
{
    const rt_gate_row *a = a_, *b = b_;
    if (a->state != b->state)
        return a->state < b->state ? -1 : 1;
    if (a->subject != b->subject)
        return a->subject > b->subject ? -1 : 1; /* the total first, then configs, kernels */
    double ma = isnan(a->margin) ? -INFINITY : a->margin,
           mb = isnan(b->margin) ? -INFINITY : b->margin;
    if (ma != mb)
        return ma > mb ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* Every key, config and the total that matter enough to judge. */
static void judge_all(gstate *st)
{
    rt_gate *g = st->g;
    /* a share of the time by the bands' high ends: the time of a kernel's typical invocations,
     * not of one that waited for the processor */
    rt_time_band tot[2];
    for (int s = 0; s < 2; s++)
        rt_time_band_over_runs(st->c[0].band[s], g->runs[s], &tot[s]);
    double floor_t = g->o.min_share * fmax(tot[0].hi, tot[1].hi);
    judge_time(st, RT_GATE_TOTAL, "total", NULL, st->c[0].band);
    if (st->nc > 2) /* one config is the total again */
        for (size_t c = 1; c < st->nc; c++) {
            gsum *cs = &st->c[c];
            if (!cs->seen[0] || !cs->seen[1])
                continue;
            rt_time_band side[2];
            for (int s = 0; s < 2; s++)
                rt_time_band_over_runs(cs->band[s], g->runs[s], &side[s]);
            if (fmax(side[0].hi, side[1].hi) >= floor_t)
                judge_time(st, RT_GATE_CONFIG, cs->name, NULL, cs->band);
        }
    for (size_t i = 0; i < st->nk; i++) {
        gkey *k = &st->k[i];
        if (!k->seen[0] || !k->seen[1])
            continue;
        rt_time_band side[2];
        for (int s = 0; s < 2; s++)
            rt_time_band_over_runs(k->band[s], g->runs[s], &side[s]);
        if (fmax(side[0].hi, side[1].hi) < floor_t)
            continue;
        size_t at = g->n;
        judge_time(st, RT_GATE_KERNEL, k->key, where_of(k), k->band);
        if (g->o.m)
            judge_efficiency(st, k, &g->rows[at]);
    }
    judge_launches(st);
    for (size_t i = 0; i < g->n; i++) {
        g->n_fail += g->rows[i].state == RT_GATE_FAIL;
        g->n_unjudged += g->rows[i].state == RT_GATE_UNJUDGED;
    }
    qsort(g->rows, g->n, sizeof *g->rows, row_cmp);
    for (size_t i = 0; i < g->n; i++)
        g->rows[i].line = gate_row_line(g, &g->rows[i]);
}

static void state_release(gstate *st)
{
    for (size_t i = 0; i < st->nk; i++) {
        free(st->k[i].key);
        free(st->k[i].where[0]);
        free(st->k[i].where[1]);
        for (int s = 0; s < 2; s++) {
            free(st->k[i].band[s]);
            rt_kernel_release(&st->k[i].sum[s]);
        }
    }
    for (size_t i = 0; i < st->nc; i++) {
        free(st->c[i].name);
        free(st->c[i].band[0]);
        free(st->c[i].band[1]);
    }
    free(st->k);
    free(st->c);
    rt_name_index_release(&st->kix);
    rt_name_index_release(&st->cix);
}

int rt_gate_judge(rt_gate *g, const rt_profile *const *before, size_t nb,
                  const rt_profile *const *after, size_t na, const rt_gate_opts *o)
{
    memset(g, 0, sizeof *g);
    g->o = *o;
    g->runs[0] = nb;
    g->runs[1] = na;
    gstate st = {.g = g, .runs = {before, after}};
    if ((g->refused = refusal(&st)) != NULL)
        return 0;
    if (nb == 1 || na == 1)
        note(g, rt_asprintf("%s: the noise between runs is not measured there, only each "
                            "kernel's spread within its run, so a time or efficiency beyond that "
                            "spread is unjudged (--strict fails it); on a shared machine give "
                            "each side several runs (BEFORE as a comma list: docs/ci-gate.md)",
                            nb == 1 && na == 1 ? "one run on each side"
                            : nb == 1          ? "one run BEFORE"
                                               : "one run AFTER"));
    gather(&st);
    g->per_step = st.per_step;
    judge_all(&st);
    state_release(&st);
    return 0;
}

void rt_gate_release(rt_gate *g)
{
    for (size_t i = 0; i < g->n; i++) {
        free(g->rows[i].name);
        free(g->rows[i].where);
        free(g->rows[i].detail);
        free(g->rows[i].line);
    }
    free(g->rows);
    free(g->refused);
    for (size_t i = 0; i < g->n_notes; i++)
        free(g->notes[i]);
    free(g->notes);
    memset(g, 0, sizeof *g);
}

int rt_gate_status(const rt_gate *g)
{
    return g->refused || g->n_fail > 0;
}

void gate_mean_kernel(rt_kernel *out, const rt_kernel *sum, double runs)
{
    rt_kernel_init(out, sum->name);
    out->time = sum->time / runs;
    out->invocations = sum->invocations / runs;
    for (size_t i = 0; i < sum->flops.n; i++)
        rt_values_add(&out->flops, sum->flops.v[i].key, sum->flops.v[i].value / runs);
    for (size_t i = 0; i < sum->bytes.n; i++)
        rt_values_add(&out->bytes, sum->bytes.v[i].key, sum->bytes.v[i].value / runs);
    rt_tags_copy(&out->tags, &sum->tags);
    if (runs == 1)
        out->spread = sum->spread;
}

rt_profile *rt_gate_mean_profile(const rt_profile *const *runs, size_t n)
{
    rt_profile *sum = rt_profile_new(), *p = rt_profile_new();
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < runs[r]->n_kernels; i++) {
            const rt_kernel *k = &runs[r]->kernels[i];
            rt_kernel *s = rt_profile_find_or_add(sum, k->name, &k->tags);
            rt_kernel_accumulate(s, k);
        }
    for (size_t i = 0; i < sum->n_kernels; i++) {
        rt_kernel *k = rt_profile_add_kernel(p, sum->kernels[i].name);
        rt_kernel_release(k);
        gate_mean_kernel(k, &sum->kernels[i], (double)n);
    }
    rt_profile_free(sum);
    const rt_profile *first = runs[0];
    p->tool = first->tool ? rt_strdup(first->tool) : NULL;
    p->command = first->command ? rt_strdup(first->command) : NULL;
    p->machine = first->machine ? rt_strdup(first->machine) : NULL;
    p->time_kind = first->time_kind;
    p->overhead = first->overhead ? rt_strdup(first->overhead) : NULL;
    rt_tags_copy(&p->tags, &first->tags);
    return p;
}
