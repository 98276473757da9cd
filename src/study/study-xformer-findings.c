/* The transformer study's findings, computed from the analysis on this machine's ceilings: decode
 * along the batch (the overhead box, the machine balance), attention along the sequence (where it
 * turns compute-bound), and what fusion recovers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study-names.h"
#include "study-outliers.h"
#include "study-xformer-findings.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/time-spread.h"
#include "rooftime/study/study-run.h"
#include "rooftime/study/xformer-shapes.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

static const char *tag(const rt_tags *t, const char *k)
{
    const char *v = rt_tags_get(t, k);
    return v ? v : "";
}

static double dram_ai(const rt_kernel *k)
{
    double q = rt_values_get(&k->bytes, "DRAM", NAN);
    return q > 0 ? rt_values_sum(&k->flops) / q : NAN;
}

/* The unit with the most FLOPs in k, or NULL. */
static const char *main_unit(const rt_kernel *k)
{
    const char *u = NULL;
    double best = 0;
    for (size_t i = 0; i < k->flops.n; i++)
        if (k->flops.v[i].value > best) {
            best = k->flops.v[i].value;
            u = k->flops.v[i].key;
        }
    return u;
}

/* The machine balance of unit u at DRAM: its peak over the DRAM bandwidth; NAN when either is
 * missing. *peak and *bw get them. */
static double balance(const rt_machine *m, const char *u, double *peak, double *bw)
{
    *peak = *bw = NAN;
    int ui = u ? rt_machine_resolve_unit(m, u, NULL) : -1;
    const rt_level *l = rt_machine_level(m, "DRAM");
    if (ui < 0 || !l || !(l->bytes_per_s > 0))
        return NAN;
    *peak = m->units[ui].flops;
    *bw = l->bytes_per_s;
    return *peak / *bw;
}

/* The families of op along param, in the analysis's order. */
static size_t families_of(const rt_analysis *a, const char *op, const char *param, size_t *out,
                          size_t cap)
{
    size_t n = 0;
    for (size_t f = 0; f < a->n_families && n < cap; f++) {
        const rt_family *fam = &a->families[f];
        if (fam->n >= 2 && strcmp(fam->param, param) == 0 &&
            strcmp(tag(&a->configs[fam->configs[0]].tags, "operation"), op) == 0)
            out[n++] = f;
    }
    return n;
}

/* "onednn bf16", or with the GPU study's variant "pytorch sdpa_flash fp16". */
static void series(const rt_config *c, char *buf, size_t n)
{
    char im[64];
    rt_study_impl_of(&c->tags, im, sizeof im);
    snprintf(buf, n, "%s %s", im, tag(&c->tags, "precision"));
}

/* "1: overhead (AI 0.49), 4: bandwidth:DRAM (AI 1.9)": the family's trajectory. */
static void trajectory(const rt_analysis *a, const rt_family *fam, char *buf, size_t n)
{
    buf[0] = '\0';
    for (size_t j = 0; j < fam->n; j++) {
        const rt_config *c = &a->configs[fam->configs[j]];
        size_t len = strlen(buf);
        snprintf(buf + len, n - len, "%s%s: %s (AI %.3g)", j ? ", " : "", tag(&c->tags, fam->param),
                 c->v.bound_label, dram_ai(&c->sum));
    }
}

/* The first member from which every later one satisfies pred, or fam->n when the last does not;
 * 0 when all do. */
static size_t from_on(const rt_analysis *a, const rt_family *fam, bool (*pred)(const rt_config *))
{
    size_t j = fam->n;
    while (j > 0 && pred(&a->configs[fam->configs[j - 1]]))
        j--;
    return j;
}

/* The class of the config's summed counts: a partial verdict (a member with time and no counts:
 * torch's views and dispatch) keeps the class of what was counted, which is what these findings
 * read; its bound label says "(partial)". */
static bool outside_box(const rt_config *c)
{
    return c->v.bound == RT_BOUND_COMPUTE || c->v.bound == RT_BOUND_BANDWIDTH;
}

static bool compute_bound(const rt_config *c)
{
    return c->v.bound == RT_BOUND_COMPUTE;
}

static void decode_series(rt_findings *o, const rt_analysis *a, const rt_family *fam)
{
    const rt_config *c0 = &a->configs[fam->configs[0]];
    char s[96], traj[1024];
    series(c0, s, sizeof s);
    trajectory(a, fam, traj, sizeof traj);
    rt_findings_item(o, "%s decode (cache %s), by batch: %s.", s, tag(&c0->tags, "cache"), traj);
    size_t box = from_on(a, fam, outside_box);
    const char *first = tag(&c0->tags, fam->param);
    if (box == 0)
        rt_findings_item(o, "%s: outside the overhead box from batch %s on.", s, first);
    else if (box < fam->n)
        rt_findings_item(o, "%s: leaves the overhead box at batch %s (overhead-bound up to %s).", s,
                         tag(&a->configs[fam->configs[box]].tags, fam->param),
                         tag(&a->configs[fam->configs[box - 1]].tags, fam->param));
    else
        rt_findings_item(o, "%s: overhead-bound at every batch up to %s.", s,
                         tag(&a->configs[fam->configs[fam->n - 1]].tags, fam->param));
    double peak, bw, b = balance(a->machine, main_unit(&c0->sum), &peak, &bw);
    if (isnan(b)) {
        rt_findings_item(o,
                         "%s: no machine balance (this machine has no %s peak or no DRAM "
                         "bandwidth).",
                         s, main_unit(&c0->sum) ? main_unit(&c0->sum) : "FLOP");
        return;
    }
    size_t j = 0;
    while (j < fam->n && !(dram_ai(&a->configs[fam->configs[j]].sum) >= b))
        j++;
    char bal[160];
    snprintf(bal, sizeof bal,
             "the machine balance of %s, %.3g GFLOP/s over %.3g GB/s = %.3g FLOP/B",
             main_unit(&c0->sum), peak * 1e-9, bw * 1e-9, b);
    const rt_config *last = &a->configs[fam->configs[fam->n - 1]];
    if (j == fam->n)
        rt_findings_item(o,
                         "%s: its AI stays below %s at every batch (at most %.3g at batch %s): "
                         "the KV cache's traffic grows with the batch as its FLOPs do.",
                         s, bal, dram_ai(&last->sum), tag(&last->tags, fam->param));
    else if (j == 0)
        rt_findings_item(o, "%s: its AI is above %s from batch %s on.", s, bal, first);
    else
        rt_findings_item(o,
                         "%s: the crossover: its AI crosses %s between batch %s (AI %.3g) and "
                         "batch %s (AI %.3g).",
                         s, bal, tag(&a->configs[fam->configs[j - 1]].tags, fam->param),
                         dram_ai(&a->configs[fam->configs[j - 1]].sum),
                         tag(&a->configs[fam->configs[j]].tags, fam->param),
                         dram_ai(&a->configs[fam->configs[j]].sum));
    size_t cb = from_on(a, fam, compute_bound);
    if (cb < fam->n)
        rt_findings_item(o, "%s: compute-bound by its verdict from batch %s on.", s,
                         tag(&a->configs[fam->configs[cb]].tags, fam->param));
}

static void section_decode(rt_findings *o, const rt_analysis *a)
{
    size_t fams[32], n = families_of(a, "decode", "batch", fams, 32);
    if (!n)
        return;
    rt_findings_section_add(o, "Decode along the batch: the overhead box and the machine balance");
    rt_findings_list(o);
    for (size_t i = 0; i < n; i++)
        decode_series(o, a, &a->families[fams[i]]);
}

static void section_attention(rt_findings *o, const rt_analysis *a)
{
    size_t fams[32], n = families_of(a, "attention", "seq", fams, 32);
    if (!n)
        return;
    rt_findings_section_add(o, "Attention along the sequence: where prefill turns compute-bound");
    rt_findings_list(o);
    for (size_t i = 0; i < n; i++) {
        const rt_family *fam = &a->families[fams[i]];
        const rt_config *c0 = &a->configs[fam->configs[0]];
        char s[96], traj[1024];
        series(c0, s, sizeof s);
        trajectory(a, fam, traj, sizeof traj);
        rt_findings_item(o, "%s attention, by sequence: %s.", s, traj);
        size_t cb = from_on(a, fam, compute_bound);
        if (cb == 0)
            rt_findings_item(o, "%s: compute-bound at every sequence length, from %s.", s,
                             tag(&c0->tags, "seq"));
        else if (cb < fam->n)
            rt_findings_item(o, "%s: compute-bound from sequence %s on (%s up to %s).", s,
                             tag(&a->configs[fam->configs[cb]].tags, "seq"),
                             a->configs[fam->configs[cb - 1]].v.bound_label,
                             tag(&a->configs[fam->configs[cb - 1]].tags, "seq"));
        else
            rt_findings_item(o, "%s: not compute-bound at the longest sequence (%s: %s).", s,
                             tag(&a->configs[fam->configs[fam->n - 1]].tags, "seq"),
                             a->configs[fam->configs[fam->n - 1]].v.bound_label);
    }
}

/* Whether configs x and y have the same tags but key (absent reads as ""). */
static bool same_but(const rt_config *x, const rt_config *y, const char *key)
{
    for (int side = 0; side < 2; side++) {
        const rt_config *a = side ? y : x, *b = side ? x : y;
        for (size_t i = 0; i < a->tags.n; i++) {
            if (strcmp(a->tags.v[i].key, key) == 0)
                continue;
            const char *v = rt_tags_get(&b->tags, a->tags.v[i].key);
            if (!v || strcmp(v, a->tags.v[i].value) != 0)
                return false;
        }
    }
    return true;
}

/* One row: pair p at precision prec over the configs both sides ran; false when there are none. */
static bool pair_row(rt_findings *o, const rt_analysis *a, const rt_xf_pair *p, const char *prec)
{
    double tu = 0, tf = 0, best = -INFINITY;
    size_t n = 0;
    char where[160] = "", ratio[96] = "";
    for (size_t i = 0; i < a->n_configs; i++) {
        const rt_config *u = &a->configs[i];
        if (strcmp(tag(&u->tags, "operation"), p->op) != 0 ||
            strcmp(tag(&u->tags, "precision"), prec) != 0 ||
            strcmp(tag(&u->tags, p->key), p->from) != 0)
            continue;
        for (size_t j = 0; j < a->n_configs; j++) {
            const rt_config *f = &a->configs[j];
            if (strcmp(tag(&f->tags, p->key), p->to) != 0 || !same_but(u, f, p->key))
                continue;
            n++;
            tu += u->v.time;
            tf += f->v.time;
            if (u->v.time - f->v.time > best) {
                best = u->v.time - f->v.time;
                snprintf(where, sizeof where, "%s", f->label);
                rt_noise zu = rt_study_config_noise(a, u), zf = rt_study_config_noise(a, f);
                rt_noise_ratio_text(ratio, sizeof ratio, u->v.time / f->v.time, 2, &zf, &zu);
            }
        }
    }
    if (!n)
        return false;
    char c1[32], c2[32], c3[64], c4[16], cw[320], rec[32], what[128];
    snprintf(c4, sizeof c4, "%zu", n);
    rt_fmt_time(c1, sizeof c1, tu);
    rt_fmt_time(c2, sizeof c2, tf);
    rt_fmt_time(rec, sizeof rec, tu - tf);
    snprintf(c3, sizeof c3, "%s (%.1f%%)", rec, tu > 0 ? 100 * (tu - tf) / tu : 0);
    snprintf(cw, sizeof cw, "%s: before %s", where, ratio);
    snprintf(what, sizeof what, "%s %s: %s -> %s", p->op, prec, *p->from ? p->from : "eager",
             p->to);
    rt_findings_row(o, (const char *const[]){what, c4, c1, c2, c3, cw});
    return true;
}

void rt_study_xformer_pairs(rt_findings *o, const rt_analysis *a, const char *heading,
                            const rt_xf_pair *pairs, size_t n, const char *note)
{
    static const char *const precs[] = {"fp32", "tf32", "bf16", "fp16"};
    bool any_op = false;
    for (size_t i = 0; i < a->n_configs && !any_op; i++)
        for (size_t p = 0; p < n && !any_op; p++)
            any_op = strcmp(tag(&a->configs[i].tags, "operation"), pairs[p].op) == 0;
    if (!any_op)
        return;
    rt_findings_section_add(o, heading);
    const char *head[] = {"operation precision: before -> after",
                          "configs",
                          "before",
                          "after",
                          "recoverable",
                          "most recovered at"};
    rt_findings_table(o, 6, head);
    size_t rows = 0;
    for (size_t p = 0; p < n; p++)
        for (size_t q = 0; q < sizeof precs / sizeof precs[0]; q++)
            rows += pair_row(o, a, &pairs[p], precs[q]);
    rt_findings_list(o);
    if (!rows)
        rt_findings_item(o, "Not measured: no configuration ran both ways.");
    rt_findings_item(o, "%s A negative recoverable time: the second was slower.", note);
}

void rt_study_xformer_phases(rt_findings *f, const rt_analysis *a)
{
    section_decode(f, a);
    section_attention(f, a);
}

/* How the transformer ops ran, and how to read a partial verdict. */
static void section_how(rt_findings *o, const rt_analysis *a, const rt_study_result *r)
{
    bool any = false, partial = false;
    for (size_t c = 0; c < a->n_configs; c++) {
        const char *op = tag(&a->configs[c].tags, "operation");
        if (strcmp(op, "attention") && strcmp(op, "mlp") && strcmp(op, "decode"))
            continue;
        any = true;
        partial |= a->configs[c].v.evidence == RT_EVIDENCE_PARTIAL;
    }
    if (!any)
        return;
    rt_findings_section_add(o, "Transformer layer: how it ran");
    rt_findings_list(o);
    rt_findings_item(o,
                     "%d warm-up + %d measured iterations per config (inference, forward only); "
                     "attention over q, k, v [batch, heads, seq, head_dim]; the MLP over [tokens, "
                     "hidden] to 4 x hidden and back; decode: one token per sequence through one "
                     "layer of hidden %ld, %ld heads, ffn %ld, against a KV cache of `cache` "
                     "tokens (the projections, attention over cache + 1 positions, the MLP).",
                     r->xf_warmup, r->xf_iters, rt_decode_default().hidden,
                     rt_decode_default().heads, rt_decode_default().ffn);
    if (partial)
        rt_findings_item(o, "A \"(partial)\" verdict (pytorch, sdpa): some of the config's "
                            "operators have time and no counts (torch's views, dispatch and "
                            "allocation), so its bound holds for the rest; the findings below "
                            "read the class of what was counted.");
}

void rt_study_xformer_findings(rt_findings *f, const rt_analysis *a, const rt_study_result *r)
{
    section_how(f, a, r);
    static const rt_xf_pair fusion[] = {{"attention", "implementation", "pytorch", "sdpa"},
                                        {"decode", "implementation", "pytorch", "sdpa"},
                                        {"mlp", "implementation", "unfused", "onednn"}};
    rt_study_xformer_phases(f, a);
    rt_study_xformer_pairs(
        f, a,
        "Fusion: the time a fused kernel recovers from the unfused ones (same configs, summed)",
        fusion, sizeof fusion / sizeof fusion[0],
        "attention and decode: torch's math path (matmul, softmax, matmul, the scores through "
        "memory) against its scaled_dot_product_attention (sdpa: torch 2; not measured where "
        "sdpa was skipped); mlp: OpenBLAS GEMMs and a C activation kernel against oneDNN "
        "matmuls with the activation (and the gate's multiply) as post-ops, so the library "
        "differs too.");
}
