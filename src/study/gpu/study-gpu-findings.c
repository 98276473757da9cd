/* The GPU study's findings, computed from the analysis of its profiles: the paper's questions
 * asked of the GPU at hand (overhead-bound LSTMs and CUDA Graphs, compute or bandwidth bound,
 * Tensor Core share, AMP's speed-up against the roofline's, kernels without FLOPs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study-names.h"
#include "study-xformer-findings.h"
#include "rooftime/core/analysis-findings.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/study/study-gpu-findings.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

/* The swept parameters of a config, "batch=16 seq=32 ...". */
static const char *tag(const rt_tags *t, const char *k)
{
    const char *v = rt_tags_get(t, k);
    return v ? v : "";
}

/* "IMPLEMENTATION PRECISION" of t into k (96 bytes): the rows of the per-implementation tables. */
static void impl_precision(const rt_tags *t, char k[96])
{
    char im[64];
    rt_study_impl_of(t, im, sizeof im);
    snprintf(k, 96, "%s %s", im, tag(t, "precision"));
}

static void params_of(const rt_tags *t, char *buf, size_t n)
{
    static const char *const ps[] = {"batch",    "filters", "kernel", "stride",   "seq",
                                     "features", "hidden",  "heads",  "head_dim", "causal",
                                     "tokens",   "gated",   "cache"};
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        if (*tag(t, ps[i]))
            snprintf(buf + strlen(buf), n - strlen(buf), "%s%s=%s", buf[0] ? " " : "", ps[i],
                     tag(t, ps[i]));
}

void rt_study_gpu_result_free(rt_study_gpu_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_profiles; i++)
        rt_profile_free(r->profiles[i]);
    free(r->profiles);
    rt_warnings_release(&r->skipped);
    rt_warnings_release(&r->notes);
    rt_warnings_release(&r->crosscheck);
    free(r->check_report);
    free(r->device);
    free(r);
}

static void section_run(rt_findings *o, const rt_analysis *a, const rt_study_gpu_result *r)
{
    rt_findings_section_add(o, "Run");
    rt_findings_list(o);
    double launches = 0;
    for (size_t i = 0; i < a->n_items; i++)
        launches += a->items[i].kernel->invocations;
    rt_findings_item(o,
                     "GPU %s: %zu client processes, %zu profiles, %zu configs, %zu kernels, %.0f "
                     "measured launches; the study took %.1f s (%s sweeps).",
                     r->device ? r->device : "?", r->clients, r->n_profiles, a->n_configs,
                     a->n_items, launches, r->seconds, r->quick ? "quick" : "full");
    rt_findings_item(
        o,
        "Times: the trace run, %d warm-up + %d measured iterations per point and pass "
        "(device time per kernel, CUPTI activity records). FLOPs and bytes: the counter "
        "run, %d warm-up + %d measured iterations (%s), per invocation, joined by "
        "kernel name and configuration.",
        r->warmup, r->iters, r->c_warmup, r->c_iters,
        r->c_iters >= r->iters ? "every measured iteration"
                               : "a sample of the measured iterations");
    for (size_t i = 0; i < r->skipped.n; i++)
        rt_findings_item(o, "Skipped: %s", r->skipped.msg[i]);
    for (size_t i = 0; i < r->notes.n; i++)
        rt_findings_item(o, "%s", r->notes.msg[i]);
}

static void section_check(rt_findings *o, const rt_study_gpu_result *r)
{
    rt_findings_section_add(o, "Correctness against rooftime's direct NVRTC convolution (small "
                               "shapes, deterministic inputs)");
    if (r->check_status == -2 || !r->check_report) {
        rt_findings_paragraph(o, "The check did not run.");
        return;
    }
    rt_findings_list(o);
    const char *s = r->check_report;
    while (*s) {
        size_t n = strcspn(s, "\n");
        if (n)
            rt_findings_item(o, "%.*s", (int)n, s);
        s += n + (s[n] == '\n');
    }
    if (r->check_status >= 0) /* -1: the report's line says why the reference could not run */
        rt_findings_item(o, "%s",
                         r->check_status == 0 ? "Every output checked agrees."
                                              : "A check FAILED: its kernels' figures measure a "
                                                "wrong computation.");
}

/* Overhead-bound configs per series; the LSTM ones by name; CUDA Graphs against eager. */
static void section_overhead(rt_findings *o, const rt_analysis *a)
{
    rt_findings_section_add(o, "Overhead-bound configs (max(T_compute, T_bw) < n tau)");
    rt_analysis_overhead_series(o, a, &(rt_overhead_series){rt_study_series_of, false, NULL});
    rt_findings_list(o);
    size_t nl = 0, unknown = 0;
    for (size_t c = 0; c < a->n_configs; c++) {
        const rt_config *cf = &a->configs[c];
        if (strcmp(tag(&cf->tags, "operation"), "lstm") != 0)
            continue;
        unknown += cf->v.bound == RT_BOUND_UNKNOWN;
        if (!cf->v.overhead_bound)
            continue;
        char s[160], p[128];
        rt_study_series_of(&cf->tags, s, sizeof s);
        params_of(&cf->tags, p, sizeof p);
        rt_findings_item(o,
                         "Overhead-bound LSTM: %s %s (%.0f launches, %.3g µs of kernel time "
                         "each on average, tau %.3g µs)",
                         s, p, cf->v.n, cf->v.time / cf->v.n * 1e6, cf->v.tau * 1e6);
        nl++;
    }
    if (unknown)
        rt_findings_item(o,
                         "%zu LSTM configs have no FLOPs and no bytes (no counters): whether "
                         "they are overhead-bound is unknown.",
                         unknown);
    if (!nl)
        rt_findings_item(o, "No LSTM config is known to be overhead-bound.");
    /* CUDA Graphs: the same LSTM config eager and captured */
    size_t pairs = 0, eager_ob = 0, graph_ob = 0;
    double t_eager = 0, t_graph = 0;
    for (size_t c = 0; c < a->n_configs; c++) {
        const rt_config *g = &a->configs[c];
        if (strcmp(tag(&g->tags, "variant"), "graphs") != 0)
            continue;
        for (size_t e = 0; e < a->n_configs; e++) {
            const rt_config *x = &a->configs[e];
            if (*tag(&x->tags, "variant") ||
                strcmp(tag(&x->tags, "implementation"), tag(&g->tags, "implementation")) != 0)
                continue;
            bool same = true;
            for (size_t k = 0; k < g->tags.n && same; k++)
                same = strcmp(g->tags.v[k].key, "variant") == 0 ||
                       strcmp(tag(&x->tags, g->tags.v[k].key), g->tags.v[k].value) == 0;
            if (!same)
                continue;
            if (x->v.bound == RT_BOUND_UNKNOWN || g->v.bound == RT_BOUND_UNKNOWN)
                break; /* no counters on one side: nothing to compare */
            pairs++;
            eager_ob += x->v.overhead_bound;
            graph_ob += g->v.overhead_bound;
            t_eager += x->v.time;
            t_graph += g->v.time;
            break;
        }
    }
    if (pairs)
        rt_findings_item(o,
                         "CUDA Graphs: over %zu LSTM configs run both ways, %zu are overhead-bound "
                         "eager and %zu captured in a graph (tau per graph node instead of per "
                         "launch); kernel time x%.2f captured against eager. %s",
                         pairs, eager_ob, graph_ob, t_eager > 0 ? t_graph / t_eager : NAN,
                         graph_ob < eager_ob ? "Graphs lift the overhead bound of "
                                               "the configs that leave it."
                         : eager_ob          ? "Graphs do not lift the overhead bound here."
                                             : "No config was overhead-bound to begin with.");
    else
        rt_findings_item(o, "CUDA Graphs: no LSTM config with known verdicts ran both eager "
                            "and captured.");
}

/* Configs by the side of the roofline their verdict lies on, per implementation and precision. */
static void section_bounds(rt_findings *o, const rt_analysis *a)
{
    rt_findings_section_add(o, "Compute- against bandwidth-bound, per implementation and "
                               "precision (configs)");
    rt_study_strset keys = {0};
    for (size_t c = 0; c < a->n_configs; c++) {
        char k[96];
        impl_precision(&a->configs[c].tags, k);
        rt_study_strset_add(&keys, k);
    }
    const char *head[] = {"implementation precision", "compute-bound", "bandwidth-bound",
                          "overhead-bound",           "unknown",       "median efficiency"};
    rt_findings_table(o, 6, head);
    for (size_t ki = 0; ki < keys.n; ki++) {
        size_t nc = 0, nb = 0, no = 0, nu = 0, ne = 0;
        double *eff = rt_xcalloc(a->n_configs + 1, sizeof *eff);
        for (size_t c = 0; c < a->n_configs; c++) {
            const rt_config *cf = &a->configs[c];
            char k[96];
            impl_precision(&cf->tags, k);
            if (strcmp(k, keys.v[ki]) != 0)
                continue;
            if (cf->v.overhead_bound)
                no++;
            else if (strncmp(cf->v.bound_label, "compute", 7) == 0)
                nc++;
            else if (strncmp(cf->v.bound_label, "bandwidth", 9) == 0)
                nb++;
            else
                nu++;
            if (isfinite(cf->v.efficiency))
                eff[ne++] = cf->v.efficiency;
        }
        for (size_t i = 1; i < ne; i++) /* insertion sort: a few dozen configs */
            for (size_t j = i; j > 0 && eff[j - 1] > eff[j]; j--) {
                double t = eff[j];
                eff[j] = eff[j - 1];
                eff[j - 1] = t;
            }
        char c[5][32];
        snprintf(c[0], 32, "%zu", nc);
        snprintf(c[1], 32, "%zu", nb);
        snprintf(c[2], 32, "%zu", no);
        snprintf(c[3], 32, "%zu", nu);
        if (ne)
            snprintf(c[4], 32, "%.0f%%",
                     100 * (ne % 2 ? eff[ne / 2] : (eff[ne / 2 - 1] + eff[ne / 2]) / 2));
        else
            snprintf(c[4], 32, "unknown");
        rt_findings_row(o, (const char *const[]){keys.v[ki], c[0], c[1], c[2], c[3], c[4]});
        free(eff);
    }
    rt_study_strset_release(&keys);
}

/* Tensor Core share of FLOPs per precision: units tensor_* against the vector units. */
static void section_tensor(rt_findings *o, const rt_analysis *a)
{
    rt_findings_section_add(o, "Tensor Core share of FLOPs per precision");
    rt_study_strset precs = {0};
    for (size_t i = 0; i < a->n_items; i++)
        rt_study_strset_add(&precs, tag(&a->items[i].tags, "precision"));
    const char *head[] = {"precision", "FLOPs", "on Tensor Cores", "share", "units"};
    rt_findings_table(o, 5, head);
    for (size_t p = 0; p < precs.n; p++) {
        double all = 0, tc = 0;
        rt_study_strset units = {0};
        for (size_t i = 0; i < a->n_items; i++) {
            const rt_item *it = &a->items[i];
            if (strcmp(tag(&it->tags, "precision"), precs.v[p]) != 0)
                continue;
            for (size_t u = 0; u < it->kernel->flops.n; u++) {
                const rt_value *v = &it->kernel->flops.v[u];
                if (!(v->value > 0))
                    continue;
                all += v->value;
                if (strncmp(v->key, "tensor_", 7) == 0)
                    tc += v->value;
                rt_study_strset_add(&units, v->key);
            }
        }
        char c1[32], c2[32], c3[32], c4[256] = "";
        rt_fmt_si(c1, sizeof c1, all, "FLOP");
        rt_fmt_si(c2, sizeof c2, tc, "FLOP");
        if (all > 0)
            snprintf(c3, sizeof c3, "%.1f%%", 100 * tc / all);
        else
            snprintf(c3, sizeof c3, "unknown (no FLOPs counted)");
        for (size_t u = 0; u < units.n; u++)
            snprintf(c4 + strlen(c4), sizeof c4 - strlen(c4), "%s%s", u ? ", " : "", units.v[u]);
        rt_findings_row(o, (const char *const[]){precs.v[p], c1, c2, c3, units.n ? c4 : "none"});
        rt_study_strset_release(&units);
    }
    rt_study_strset_release(&precs);
}

/* A config's key without its precision: "pytorch  conv2d forward batch=16 ...". */
static void key_without_precision(const rt_tags *t, char *buf, size_t n)
{
    char p[128];
    params_of(t, p, sizeof p);
    snprintf(buf, n, "%s|%s|%s|%s|%s", tag(t, "implementation"), tag(t, "variant"),
             tag(t, "operation"), tag(t, "pass"), p);
}

/* AMP: the speed-up of each lower precision over fp32 on the same configs, against the speed-up
 * the roofline allows (the ratio of their bounds). */
static void section_amp(rt_findings *o, const rt_analysis *a)
{
    rt_findings_section_add(o, "Mixed precision: measured speed-up over fp32 against the "
                               "roofline's (same configs, summed)");
    static const char *const lower[] = {"tf32", "fp16", "bf16"};
    rt_study_strset series = {0};
    for (size_t c = 0; c < a->n_configs; c++) {
        char im[64], s[160];
        rt_study_impl_of(&a->configs[c].tags, im, sizeof im);
        snprintf(s, sizeof s, "%s %s %s", im, tag(&a->configs[c].tags, "operation"),
                 tag(&a->configs[c].tags, "pass"));
        rt_study_strset_add(&series, s);
    }
    const char *head[] = {"implementation operation pass",
                          "precision",
                          "configs",
                          "measured speed-up",
                          "roofline speed-up",
                          "of what was possible"};
    rt_findings_table(o, 6, head);
    size_t rows = 0;
    for (size_t si = 0; si < series.n; si++)
        for (size_t l = 0; l < sizeof lower / sizeof lower[0]; l++) {
            size_t n = 0;
            double t32 = 0, tl = 0, b32 = 0, bl = 0;
            for (size_t c = 0; c < a->n_configs; c++) {
                const rt_config *x = &a->configs[c];
                char im[64], s[160];
                rt_study_impl_of(&x->tags, im, sizeof im);
                snprintf(s, sizeof s, "%s %s %s", im, tag(&x->tags, "operation"),
                         tag(&x->tags, "pass"));
                if (strcmp(s, series.v[si]) != 0 || strcmp(tag(&x->tags, "precision"), lower[l]))
                    continue;
                char kx[256];
                key_without_precision(&x->tags, kx, sizeof kx);
                for (size_t d = 0; d < a->n_configs; d++) {
                    const rt_config *y = &a->configs[d];
                    char ky[256];
                    if (strcmp(tag(&y->tags, "precision"), "fp32") != 0)
                        continue;
                    key_without_precision(&y->tags, ky, sizeof ky);
                    if (strcmp(kx, ky) != 0)
                        continue;
                    n++;
                    t32 += y->v.time;
                    tl += x->v.time;
                    b32 += y->v.t_bound;
                    bl += x->v.t_bound;
                    break;
                }
            }
            if (!n)
                continue;
            char c1[16], c2[32], c3[32], c4[32];
            snprintf(c1, sizeof c1, "%zu", n);
            snprintf(c2, sizeof c2, "x%.2f", t32 / tl);
            bool known = b32 > 0 && bl > 0;
            snprintf(c3, sizeof c3, known ? "x%.2f" : "unknown", b32 / bl);
            snprintf(c4, sizeof c4, known ? "%.0f%%" : "unknown", 100 * (t32 / tl) / (b32 / bl));
            rt_findings_row(o, (const char *const[]){series.v[si], lower[l], c1, c2, c3, c4});
            rows++;
        }
    rt_study_strset_release(&series);
    if (!rows)
        rt_findings_paragraph(o, "No config ran at fp32 and at a lower precision.");
}

/* Kernels without FLOPs (layout transforms, casts, copies): their share of time. */
static void section_no_flops(rt_findings *o, const rt_analysis *a)
{
    rt_findings_section_add(o, "Time in kernels without FLOPs (layout transforms, casts, "
                               "copies; DeepCAM, seed 003: about half the time)");
    rt_study_strset keys = {0};
    for (size_t i = 0; i < a->n_items; i++) {
        char k[96];
        impl_precision(&a->items[i].tags, k);
        rt_study_strset_add(&keys, k);
    }
    const char *head[] = {"implementation precision", "time without FLOPs", "total time", "share",
                          "longest such kernels"};
    rt_findings_table(o, 5, head);
    for (size_t ki = 0; ki < keys.n; ki++) {
        double t = 0, tz = 0;
        rt_study_strset names = {0}; /* the kernels without FLOPs, their time summed by name */
        double *nt = rt_xcalloc(a->n_items + 1, sizeof *nt);
        for (size_t i = 0; i < a->n_items; i++) {
            const rt_item *it = &a->items[i];
            char k[96];
            impl_precision(&it->tags, k);
            if (strcmp(k, keys.v[ki]) != 0)
                continue;
            t += it->v.time;
            if (rt_values_sum(&it->kernel->flops) > 0 || rt_values_sum(&it->kernel->bytes) <= 0)
                continue; /* FLOPs, or no counters at all: not known to be FLOP-free */
            tz += it->v.time;
            nt[rt_study_strset_add(&names, it->kernel->name)] += it->v.time;
        }
        char c1[32], c2[32], c3[32], c4[400] = "";
        rt_fmt_time(c1, sizeof c1, tz);
        rt_fmt_time(c2, sizeof c2, t);
        snprintf(c3, sizeof c3, "%.1f%%", t > 0 ? 100 * tz / t : 0);
        for (int j = 0; j < 3; j++) { /* the three longest by name */
            size_t best = names.n;
            for (size_t q = 0; q < names.n; q++)
                if (nt[q] >= 0 && (best == names.n || nt[q] > nt[best]))
                    best = q;
            if (best == names.n)
                break;
            char tb[32];
            rt_fmt_time(tb, sizeof tb, nt[best]);
            snprintf(c4 + strlen(c4), sizeof c4 - strlen(c4), "%s%.100s (%s)", j ? "; " : "",
                     names.v[best], tb);
            nt[best] = -1;
        }
        free(nt);
        rt_study_strset_release(&names);
        rt_findings_row(o, (const char *const[]){keys.v[ki], c1, c2, c3, c4[0] ? c4 : "none"});
    }
    rt_study_strset_release(&keys);
}

static void section_crosscheck(rt_findings *o, const rt_study_gpu_result *r)
{
    rt_findings_section_add(o, "Cross-check against Nsight Compute (FLOPs and bytes of the five "
                               "longest kernels, within 5%)");
    rt_findings_list(o);
    if (!r->crosscheck.n)
        rt_findings_item(o, "Not run.");
    for (size_t i = 0; i < r->crosscheck.n; i++)
        rt_findings_item(o, "%s", r->crosscheck.msg[i]);
}

rt_findings *rt_study_gpu_findings(const rt_analysis *a, const rt_study_gpu_result *r)
{
    rt_findings *f = rt_findings_new("Findings");
    section_run(f, a, r);
    section_check(f, r);
    section_overhead(f, a);
    section_bounds(f, a);
    section_tensor(f, a);
    section_amp(f, a);
    section_no_flops(f, a);
    rt_study_xformer_gpu_findings(f, a);
    section_crosscheck(f, r);
    return f;
}
