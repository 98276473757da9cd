/* The study's findings, computed from the analysis of its profiles: overhead-bound configs,
 * matrix-unit use, zero-AI time, jumps in AI within families, recoverable seconds. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study-consistency.h"
#include "study-names.h"
#include "study-outliers.h"
#include "study-xformer-findings.h"
#include "xformer-internal.h"
#include "rooftime/core/analysis-findings.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/study/study-findings.h"
#include "rooftime/study/study-flops.h"
#include "rooftime/study/study-run.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

static const char *tag(const rt_tags *t, const char *k)
{
    const char *v = rt_tags_get(t, k);
    return v ? v : "";
}

/* " (torch 2.15.0+cu132, its kineto profiler, 2 threads)": which torch the study's client ran, as
 * its profiles' notes say (the study runs one python for every torch case); "" when none says. */
static void torch_ran(const rt_study_result *r, char *buf, size_t n)
{
    buf[0] = 0;
    for (size_t i = 0; i < r->n_profiles; i++) {
        const rt_tags *notes = &r->profiles[i]->provenance.notes;
        const char *v = rt_tags_get(notes, "torch_version");
        if (!v)
            continue;
        const char *prof = rt_tags_get(notes, "torch_profiler");
        const char *threads = rt_tags_get(notes, "torch_threads");
        char pr[64] = "", th[32] = "";
        if (prof)
            snprintf(pr, sizeof pr, ", its %s profiler", prof);
        if (threads)
            snprintf(th, sizeof th, ", %s threads", threads);
        snprintf(buf, n, " (torch %s%s%s)", v, pr, th);
        return;
    }
}

/* Whether no kernel of implementation impl carries a byte count: such kernels have no AI and no
 * bandwidth bound. */
static bool impl_without_bytes(const rt_analysis *a, const char *impl)
{
    bool seen = false;
    for (size_t i = 0; i < a->n_items; i++) {
        const rt_item *it = &a->items[i];
        if (strcmp(tag(&it->tags, "implementation"), impl) != 0)
            continue;
        seen = true;
        for (size_t l = 0; l < it->kernel->bytes.n; l++)
            if (it->kernel->bytes.v[l].value > 0)
                return false;
    }
    return seen;
}

/* The implementations without byte counts, joined ("pytorch"); "" when none. */
static void impls_without_bytes(const rt_analysis *a, char *buf, size_t n)
{
    rt_study_strset s = {0};
    for (size_t i = 0; i < a->n_items; i++)
        rt_study_strset_add(&s, tag(&a->items[i].tags, "implementation"));
    buf[0] = '\0';
    for (size_t i = 0; i < s.n; i++)
        if (impl_without_bytes(a, s.v[i]))
            snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? ", " : "", s.v[i]);
    rt_study_strset_release(&s);
}

static double dram_ai(const rt_kernel *k)
{
    double q = rt_values_get(&k->bytes, "DRAM", NAN);
    return q > 0 ? rt_values_sum(&k->flops) / q : NAN;
}

/* The nominal AI of the operation at a config (its FLOPs over its compulsory bytes), from the
 * sweep points of the run: what the parameter alone changes. NAN when the config is unknown. */
static double nominal_ai(const rt_study_result *r, const rt_tags *t)
{
    rt_study_op op;
    if (rt_study_op_parse(tag(t, "operation"), &op, NULL) < 0)
        return NAN;
    size_t n, np;
    rt_study_point *pts = rt_study_points(op, r->quick, r->scale, &n);
    const char *const *params = rt_study_params(op, &np);
    double ai = NAN;
    for (size_t i = 0; i < n && isnan(ai); i++) {
        bool match = true;
        for (size_t p = 0; p < np && match; p++) {
            char buf[32];
            snprintf(buf, sizeof buf, "%ld", rt_study_point_param(&pts[i], params[p]));
            match = strcmp(buf, tag(t, params[p])) == 0;
        }
        if (!match)
            continue;
        if (rt_study_op_is_xformer(op))
            ai = rt_xformer_nominal_ai(&pts[i]);
        else if (op == RT_OP_CONV2D)
            ai = 2 * rt_conv_macs_valid(&pts[i].conv) /
                 rt_conv_pass_bytes(&pts[i].conv, RT_PASS_FWD, 1);
        else
            ai = rt_lstm_flops(&pts[i].lstm, RT_PASS_FWD) /
                 rt_lstm_pass_bytes(&pts[i].lstm, RT_PASS_FWD, 1);
    }
    free(pts);
    return ai;
}

/* The distinct "impl" tags of a config's kernels, joined; "" when none. */
static char *config_impls(const rt_analysis *a, const rt_config *c, const char *skip_prefix)
{
    rt_study_strset s = {0};
    for (size_t i = 0; i < c->n_items; i++) {
        const rt_item *it = &a->items[c->items[i]];
        const char *v = rt_tags_get(&it->kernel->tags, "impl");
        if (v && !(skip_prefix && strncmp(it->kernel->name, skip_prefix, strlen(skip_prefix)) == 0))
            rt_study_strset_add(&s, v);
    }
    size_t len = 1;
    for (size_t i = 0; i < s.n; i++)
        len += strlen(s.v[i]) + 2;
    char *out = rt_xcalloc(len, 1);
    for (size_t i = 0; i < s.n; i++) {
        if (i)
            strcat(out, ", ");
        strcat(out, s.v[i]);
    }
    rt_study_strset_release(&s);
    return out;
}

/* The time of config b over config a for a sentence, against the spread of both: "x1.95 (IQR
 * ±3%)", "within noise (IQR ±12%)", "x76.53 (from 3 invocations, spread unknown)". */
static void time_ratio(char *buf, size_t n, const rt_analysis *a, const rt_config *ca,
                       const rt_config *cb)
{
    rt_noise za = rt_study_config_noise(a, ca), zb = rt_study_config_noise(a, cb);
    rt_noise_ratio_text(buf, n, cb->v.time / ca->v.time, 2, &za, &zb);
}

static void section_run(rt_findings *o, const rt_analysis *a, const rt_study_result *r)
{
    rt_findings_section_add(o, "Run");
    rt_findings_list(o);
    double kernels = 0;
    for (size_t i = 0; i < a->n_items; i++)
        kernels += a->items[i].kernel->invocations;
    rt_findings_item(
        o,
        "%zu profiles, %zu configs, %zu kernels, %.0f timed invocations; the study took %.1f s "
        "(%s sweeps, %d warm-up + %d measured iterations%s).",
        r->n_profiles, a->n_configs, a->n_items, kernels, r->seconds, r->quick ? "quick" : "full",
        r->warmup, r->iters, r->scale < 1 ? ", shapes scaled down" : "");
    rt_findings_item(o, "oneDNN dispatches to ISA %s on this CPU.", r->isa ? r->isa : "?");
    rt_findings_item(o, "One clock read takes %.0f ns here; each timed invocation contains one.",
                     r->clock_cost * 1e9);
    if (r->load_start > 0.5 * r->ncpu || r->load_end > 0.5 * r->ncpu)
        rt_findings_item(
            o,
            "The machine was busy: load average %.1f at the start and %.1f at the end on %ld "
            "CPUs. Other processes shared the cores, so times are inflated, most for "
            "multi-threaded kernels (a thread descheduled at an OpenMP barrier stalls its "
            "team); rerun on an idle machine for the machine's own numbers.",
            r->load_start, r->load_end, r->ncpu);
    else
        rt_findings_item(o, "Load average %.1f at the start and %.1f at the end on %ld CPUs.",
                         r->load_start, r->load_end, r->ncpu);
    char nb[128];
    impls_without_bytes(a, nb, sizeof nb);
    if (nb[0])
        rt_findings_item(
            o,
            "%s: no byte counts (the kernels carry time and FLOPs only), so these kernels have "
            "no AI and no bandwidth bound: they are left out of the AI comparisons below, a "
            "kernel with FLOPs gets a partial verdict (a compute bound only), a kernel without "
            "FLOPs gets none (unknown), and neither counts as overhead-bound.",
            nb);
    for (size_t i = 0; i < a->n_items; i++)
        if (strcmp(tag(&a->items[i].tags, "implementation"), "pytorch") == 0) {
            char which[160];
            torch_ran(r, which, sizeof which);
            rt_findings_item(
                o,
                "pytorch%s: torch's operators from the PyTorch profiler's traces (self time; "
                "FLOPs and bytes from their shapes by the cost model of `rooftime profile "
                "--torch`, convolutions by the taps inside the input), not checked against "
                "the reference (torch draws its own inputs); its conv2d backward is "
                "aten::convolution_backward split by output_mask (backward-data: the input "
                "gradient; backward-weights: the weight and bias gradients), its LSTM backward "
                "one autograd pass.",
                which);
            break;
        }
    for (size_t i = 0; i < r->skipped.n; i++)
        rt_findings_item(o, "Skipped: %s", r->skipped.msg[i]);
}

static void section_checks(rt_findings *o, const rt_study_result *r)
{
    rt_findings_section_add(
        o, "Correctness against the reference (small shapes, fresh random inputs)");
    if (!r->n_checks) {
        rt_findings_paragraph(o, "No checks ran.");
        return;
    }
    const char *head[] = {"implementation precision operation pass", "relative difference", "bound",
                          "result"};
    rt_findings_table(o, 4, head);
    for (size_t i = 0; i < r->n_checks; i++) {
        char d[32], b[32];
        snprintf(d, sizeof d, "%.3g", r->checks[i].rel_diff);
        snprintf(b, sizeof b, "%.0e", r->checks[i].bound);
        rt_findings_row(
            o, (const char *const[]){r->checks[i].what, d, b, r->checks[i].ok ? "ok" : "FAILED"});
    }
}

/* " (no byte counts)" after the share of a series whose implementation counts no bytes. */
static const char *share_note(const rt_analysis *a, const char *series)
{
    char impl[64];
    snprintf(impl, sizeof impl, "%.*s", (int)strcspn(series, " "), series);
    return impl_without_bytes(a, impl) ? " (no byte counts)" : "";
}

static void section_overhead(rt_findings *o, const rt_analysis *a)
{
    rt_findings_section_add(
        o, "Overhead-bound configs (inside the overhead box: max(T_compute, T_bw) < n tau)");
    size_t total_ob = rt_analysis_overhead_series(
        o, a, &(rt_overhead_series){rt_study_series_of, true, share_note});
    rt_findings_list(o);
    rt_findings_item(o,
                     "%zu of %zu configs are overhead-bound (tau: the overhead each implementation "
                     "pays on this machine, %.3g µs per launch on average).",
                     total_ob, a->n_configs, a->tau_mean * 1e6);
    char nb[128];
    impls_without_bytes(a, nb, sizeof nb);
    if (nb[0])
        rt_findings_item(
            o,
            "%s (no byte counts): no config of theirs is called overhead-bound, since the "
            "missing bytes could bound it harder; their verdicts are partial (FLOPs) or unknown "
            "(no FLOPs).",
            nb);
}

static void section_matrix_unit(rt_findings *o, const rt_analysis *a, const rt_study_result *r)
{
    rt_findings_section_add(o, "Matrix unit");
    rt_study_strset impls = {0}, units = {0};
    bool amx = false;
    for (size_t i = 0; i < a->n_items; i++) {
        const rt_item *it = &a->items[i];
        const char *impl = rt_tags_get(&it->kernel->tags, "impl"), *who = "oneDNN";
        if (strcmp(tag(&it->tags, "implementation"), "onednn") != 0 ||
            strncmp(it->kernel->name, "reorder", 7) == 0)
            impl = NULL;
        if (!impl && strcmp(tag(&it->tags, "implementation"), "pytorch") == 0) {
            impl = rt_tags_get(&it->kernel->tags, "onednn"); /* the primitives it ran */
            who = "PyTorch through oneDNN";
        }
        if (impl) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s %s %s %s: %s", who, tag(&it->tags, "precision"),
                     tag(&it->tags, "operation"), tag(&it->tags, "pass"), impl);
            rt_study_strset_add(&impls, buf);
            amx |= strstr(impl, "amx") != NULL;
        }
        for (size_t u = 0; u < it->kernel->flops.n; u++)
            if (it->kernel->flops.v[u].value > 0)
                rt_study_strset_add(&units, it->kernel->flops.v[u].key);
    }
    rt_findings_list(o);
    char ulist[256] = "";
    for (size_t i = 0; i < units.n; i++)
        snprintf(ulist + strlen(ulist), sizeof ulist - strlen(ulist), "%s%s", i ? ", " : "",
                 units.v[i]);
    if (amx)
        rt_findings_item(o,
                         "oneDNN chose AMX kernels (a matrix unit) for some configs, its own or "
                         "PyTorch's; FLOPs ran on: %s.",
                         ulist);
    else
        rt_findings_item(
            o,
            "No kernel used a matrix unit: no oneDNN implementation name contains \"amx\" "
            "(oneDNN's or PyTorch's; oneDNN's ISA here is %s). FLOPs ran on: %s.",
            r->isa ? r->isa : "?", ulist[0] ? ulist : "none");
    for (size_t i = 0; i < impls.n; i++)
        rt_findings_item(o, "%s", impls.v[i]);
    rt_study_strset_release(&impls);
    rt_study_strset_release(&units);
}

static void section_zero_ai(rt_findings *o, const rt_analysis *a)
{
    rt_findings_section_add(o, "Time in zero-AI kernels (no FLOPs: reorders, im2col, zeroing)");
    rt_study_strset keys = {0};
    for (size_t i = 0; i < a->n_items; i++) {
        char k[96];
        snprintf(k, sizeof k, "%s %s", tag(&a->items[i].tags, "implementation"),
                 tag(&a->items[i].tags, "precision"));
        rt_study_strset_add(&keys, k);
    }
    const char *head[] = {"implementation precision", "zero-AI time", "total time", "share",
                          "zero-AI kernels"};
    rt_findings_table(o, 5, head);
    for (size_t ki = 0; ki < keys.n; ki++) {
        double t = 0, tz = 0;
        rt_study_strset names = {0};
        for (size_t i = 0; i < a->n_items; i++) {
            char k[96];
            snprintf(k, sizeof k, "%s %s", tag(&a->items[i].tags, "implementation"),
                     tag(&a->items[i].tags, "precision"));
            if (strcmp(k, keys.v[ki]) != 0)
                continue;
            t += a->items[i].v.time;
            if (a->items[i].v.zero_ai) {
                tz += a->items[i].v.time;
                char bn[128];
                rt_study_base_name(a->items[i].kernel->name, bn, sizeof bn);
                rt_study_strset_add(&names, bn);
            }
        }
        char impl[64];
        snprintf(impl, sizeof impl, "%.*s", (int)strcspn(keys.v[ki], " "), keys.v[ki]);
        char c1[32], c2[32], c3[96], c4[256] = "";
        rt_fmt_time(c1, sizeof c1, tz);
        rt_fmt_time(c2, sizeof c2, t);
        /* without byte counts, "zero AI" means only that no FLOPs were recorded: torch records
         * none for elementwise operators, which do compute */
        snprintf(c3, sizeof c3, "%.1f%%%s", t > 0 ? 100 * tz / t : 0,
                 impl_without_bytes(a, impl) ? " (no FLOPs recorded; no byte counts)" : "");
        for (size_t i = 0; i < names.n; i++)
            snprintf(c4 + strlen(c4), sizeof c4 - strlen(c4), "%s%s", i ? ", " : "", names.v[i]);
        rt_findings_row(o, (const char *const[]){keys.v[ki], c1, c2, c3, names.n ? c4 : "none"});
        rt_study_strset_release(&names);
    }
    rt_study_strset_release(&keys);
}

static void section_jumps(rt_findings *o, const rt_analysis *a, const rt_study_result *r)
{
    rt_findings_section_add(
        o, "Jumps in AI within a family (algorithm changes, staging buffers): the DRAM AI "
           "moving more than 1.5x away from the operation's own AI");
    rt_findings_list(o);
    size_t found = 0;
    for (size_t f = 0; f < a->n_families; f++) {
        const rt_family *fam = &a->families[f];
        for (size_t j = 1; j < fam->n; j++) {
            const rt_config *ca = &a->configs[fam->configs[j - 1]],
                            *cb = &a->configs[fam->configs[j]];
            double ra = dram_ai(&cb->sum) / dram_ai(&ca->sum);
            double rn = nominal_ai(r, &cb->tags) / nominal_ai(r, &ca->tags);
            double x = ra / rn;
            if (!(x > 1.5 || x < 1 / 1.5))
                continue;
            char *ia = config_impls(a, ca, "reorder"), *ib = config_impls(a, cb, "reorder");
            char s[160];
            rt_study_series_of(&ca->tags, s, sizeof s);
            rt_findings_item(
                o,
                "%s, %s %s -> %s: DRAM AI x%.2f where the operation's own AI changes x%.2f%s%s%s%s",
                s, fam->param, tag(&ca->tags, fam->param), tag(&cb->tags, fam->param), ra, rn,
                strcmp(ia, ib) != 0 ? "; implementation " : "", strcmp(ia, ib) != 0 ? ia : "",
                strcmp(ia, ib) != 0 ? " -> " : "", strcmp(ia, ib) != 0 ? ib : "");
            free(ia);
            free(ib);
            found++;
        }
    }
    if (!found)
        rt_findings_item(
            o, "None: within every family the AI follows the operation's own AI within a factor "
               "of 1.5.");
    char nb[128];
    impls_without_bytes(a, nb, sizeof nb);
    if (nb[0])
        rt_findings_item(o, "Not compared: %s (no byte counts, so no AI).", nb);
    /* oneDNN may switch algorithms (direct, Winograd, gemm) between configs without the
     * counted AI showing it, since the FLOPs follow the formula of the algorithm's family */
    rt_findings_section_add(o, "Implementation changes within a family");
    rt_findings_list(o);
    size_t changes = 0;
    for (size_t f = 0; f < a->n_families; f++) {
        const rt_family *fam = &a->families[f];
        for (size_t j = 1; j < fam->n; j++) {
            const rt_config *ca = &a->configs[fam->configs[j - 1]];
            const rt_config *cb = &a->configs[fam->configs[j]];
            char *ia = config_impls(a, ca, "reorder"), *ib = config_impls(a, cb, "reorder");
            if (strcmp(ia, ib) != 0) {
                char s[160], rt[160];
                rt_study_series_of(&ca->tags, s, sizeof s);
                time_ratio(rt, sizeof rt, a, ca, cb);
                rt_findings_item(o, "%s, %s %s -> %s: %s -> %s (DRAM AI x%.2f, time %s)", s,
                                 fam->param, tag(&ca->tags, fam->param), tag(&cb->tags, fam->param),
                                 ia, ib, dram_ai(&cb->sum) / dram_ai(&ca->sum), rt);
                changes++;
            }
            free(ia);
            free(ib);
        }
    }
    if (!changes)
        rt_findings_item(o, "None: every family ran one implementation throughout.");
}

static void section_recoverable(rt_findings *o, const rt_analysis *a)
{
    rt_findings_section_add(
        o, "Recoverable time (measured minus the attainable bound, summed over configs)");
    rt_study_strset keys = {0};
    for (size_t c = 0; c < a->n_configs; c++) {
        char k[96];
        snprintf(k, sizeof k, "%s %s", tag(&a->configs[c].tags, "implementation"),
                 tag(&a->configs[c].tags, "precision"));
        rt_study_strset_add(&keys, k);
    }
    const char *head[] = {"implementation precision", "time", "recoverable", "share",
                          "most recoverable config"};
    rt_findings_table(o, 5, head);
    for (size_t ki = 0; ki < keys.n; ki++) {
        double t = 0, rec = 0, best = -1;
        const char *best_label = "";
        for (size_t c = 0; c < a->n_configs; c++) {
            const rt_config *cf = &a->configs[c];
            char k[96];
            snprintf(k, sizeof k, "%s %s", tag(&cf->tags, "implementation"),
                     tag(&cf->tags, "precision"));
            if (strcmp(k, keys.v[ki]) != 0)
                continue;
            t += cf->v.time;
            rec += isnan(cf->v.recoverable) ? 0 : cf->v.recoverable; /* unknown: none known */
            if (cf->v.recoverable > best) {
                best = cf->v.recoverable;
                best_label = cf->label;
            }
        }
        char impl[64];
        snprintf(impl, sizeof impl, "%.*s", (int)strcspn(keys.v[ki], " "), keys.v[ki]);
        char c1[32], c2[32], c3[96];
        rt_fmt_time(c1, sizeof c1, t);
        rt_fmt_time(c2, sizeof c2, rec);
        /* no bytes: the bandwidth bound is unknown (taken as 0), so the bound is low */
        snprintf(c3, sizeof c3, "%.1f%%%s", t > 0 ? 100 * rec / t : 0,
                 impl_without_bytes(a, impl) ? " (upper bound: no byte counts)" : "");
        rt_findings_row(o, (const char *const[]){keys.v[ki], c1, c2, c3, best_label});
    }
    rt_study_strset_release(&keys);
}

/* Families whose parameter is batch or seq: how time, launches and AI scale (the paper's
 * LSTM findings: time flat in batch, launches growing with sequence length at constant AI); a
 * time ratio within the spread of the two configs' per-invocation times is called noise. */
static void section_scaling(rt_findings *o, const rt_analysis *a)
{
    rt_findings_section_add(o, "Scaling along the batch and sequence families");
    rt_findings_list(o);
    for (size_t f = 0; f < a->n_families; f++) {
        const rt_family *fam = &a->families[f];
        if (fam->n < 2 || (strcmp(fam->param, "batch") != 0 && strcmp(fam->param, "seq") != 0))
            continue;
        const rt_config *c0 = &a->configs[fam->configs[0]],
                        *c1 = &a->configs[fam->configs[fam->n - 1]];
        double p0 = atof(tag(&c0->tags, fam->param)), p1 = atof(tag(&c1->tags, fam->param));
        char s[160], ai[64], rt[160];
        rt_study_series_of(&c0->tags, s, sizeof s);
        time_ratio(rt, sizeof rt, a, c0, c1);
        double rai = dram_ai(&c1->sum) / dram_ai(&c0->sum);
        if (isnan(rai))
            snprintf(ai, sizeof ai, "DRAM AI unknown (no byte counts)");
        else
            snprintf(ai, sizeof ai, "DRAM AI x%.2f", rai);
        rt_findings_item(o, "%s: %s x%.0f (%s -> %s) gives time %s, invocations x%.2f, %s", s,
                         fam->param, p1 / p0, tag(&c0->tags, fam->param),
                         tag(&c1->tags, fam->param), rt, c1->v.n / c0->v.n, ai);
    }
}

rt_findings *rt_study_findings(const rt_analysis *a, const rt_study_result *r)
{
    rt_findings *f = rt_findings_new("Findings");
    section_run(f, a, r);
    section_checks(f, r);
    section_overhead(f, a);
    section_matrix_unit(f, a, r);
    section_zero_ai(f, a);
    section_jumps(f, a, r);
    section_scaling(f, a);
    section_recoverable(f, a);
    rt_study_xformer_findings(f, a, r);
    rt_study_section_outliers(f, a);
    rt_study_findings_consistency(f, a);
    return f;
}
