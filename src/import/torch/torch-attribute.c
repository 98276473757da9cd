/* PyTorch traces, what each operator call is credited with: FLOPs and bytes from the cost model
 * (the innermost working operator of a subtree keeps them), the coverage of the self time, and
 * the user's source line and nn.Module from the recorded call stack. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torch-internal.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

/* A frame of library code rather than the user's: torch itself, installed packages, the
 * interpreter, rooftime's runner, built-in functions. */
int rt_torch_library_frame(const char *f, size_t n)
{
    static const char *const lib[] = {"torch/",           "/site-packages/", "/dist-packages/",
                                      "/lib/python",      "rooftime_torch",  "runpy.py",
                                      "sitecustomize.py", "<frozen",         "importlib/"};
    if (n == 0 || f[0] == '<')
        return 1;
    for (size_t i = 0; i < sizeof lib / sizeof lib[0]; i++) {
        size_t l = strlen(lib[i]);
        for (size_t k = 0; k + l <= n; k++)
            /* a file name (*.py) matches as the last part of a path too: the runner loaded
             * by the Python package (rooftime.torch.profile) has its absolute path */
            if (memcmp(f + k, lib[i], l) == 0 &&
                (lib[i][0] == '/' || k == 0 ||
                 (f[k - 1] == '/' && l > 3 && memcmp(lib[i] + l - 3, ".py", 3) == 0)))
                return 1;
    }
    return 0;
}

void rt_torch_source_of(const char *stack, char **source, char **module)
{
    *source = *module = NULL;
    int known = 0;
    const char *p = stack;
    while (*p) {
        while (*p == ' ' || *p == ';' || *p == '\n')
            p++;
        const char *e = p;
        while (*e && *e != ';' && *e != '\n')
            e++;
        size_t n = (size_t)(e - p);
        static const char modp[] = "nn.Module: ";
        if (n > sizeof modp - 1 && memcmp(p, modp, sizeof modp - 1) == 0) {
            if (!*module)
                *module = rt_strndup(p + sizeof modp - 1, n - (sizeof modp - 1));
        } else if (!*source && !known && !rt_torch_library_frame(p, n)) {
            /* "path/file.py(12): fn" -> "path/file.py:12"; a line that is not a number from 1
             * up (torch 1.x on Python 3.11 writes 0) is not known: no source, not an outer
             * frame's line */
            const char *lp = memchr(p, '(', n);
            const char *rp = lp ? memchr(lp, ')', (size_t)(e - lp)) : NULL;
            if (lp && rp && rp > lp + 1) {
                size_t digits = strspn(lp + 1, "0123456789");
                if (digits == (size_t)(rp - lp - 1) && lp[1] != '0')
                    *source =
                        rt_asprintf("%.*s:%.*s", (int)(lp - p), p, (int)(rp - lp - 1), lp + 1);
            } else {
                *source = rt_strndup(p, n);
            }
            known = 1; /* the innermost user frame decides */
        }
        p = e;
    }
}

/* "float->c10::BFloat16" when a copy's two recorded tensor types differ (a dtype conversion), else
 * NULL. */
char *rt_torch_conversion(const char *name, const char *types)
{
    if (!types || strcmp(name, "aten::copy_") != 0)
        return NULL;
    const char *t[2] = {NULL, NULL};
    size_t n[2] = {0, 0};
    const char *p = types;
    for (int i = 0; i < 2; i++) {
        const char *q = strchr(p, '"');
        const char *e = q ? strchr(q + 1, '"') : NULL;
        if (!e)
            return NULL;
        t[i] = q + 1;
        n[i] = (size_t)(e - q - 1);
        p = e + 1;
    }
    if (n[0] == 0 || n[1] == 0 || (n[0] == n[1] && memcmp(t[0], t[1], n[0]) == 0))
        return NULL;
    /* copy_(self, src): src is converted into self's type */
    return rt_asprintf("%.*s->%.*s", (int)n[1], t[1], (int)n[0], t[0]);
}

/* The cost of one call of kernel k (cached per recorded FLOPs count, which only a convolution's
 * window convention reads). */
static const rt_torch_cost *cost_of(reader *r, uint32_t key, double flops_arg)
{
    kern *k = &r->k[key];
    if (k->cost_done && k->cost_flops_arg == flops_arg)
        return &k->cost;
    const char *full = r->names[key];
    const char *sep = strchr(full, '\x1f');
    char *name = sep ? rt_strndup(full, (size_t)(sep - full)) : rt_strdup(full);
    rt_torch_call c = {name, k->dims, k->types, k->concrete, flops_arg};
    rt_torch_ops_cost(r->ops, &c, r->opt->conv, &k->cost);
    free(name);
    k->cost_done = 1;
    k->cost_flops_arg = flops_arg;
    return &k->cost;
}

static int is_class(const rt_torch_cost *c, const char *klass)
{
    return c && c->klass && strcmp(c->klass, klass) == 0;
}

static void uncovered(reader *r, uint32_t key, const char *why, double us)
{
    const char *full = r->names[key];
    const char *sep = strchr(full, '\x1f');
    char *what =
        rt_asprintf("%.*s (%s)", (int)(sep ? sep - full : (ptrdiff_t)strlen(full)), full, why);
    rt_torch_shares_add(&r->cov.why, what, us);
    free(what);
}

void rt_torch_apply_costs(reader *r, const size_t *parent, const double *self,
                          const unsigned char *inside, rt_warnings *w)
{
    (void)w;
    size_t n = r->n_evs;
    unsigned char *work = rt_xcalloc(n ? n : 1, 1), *composite = rt_xcalloc(n ? n : 1, 1);
    const rt_torch_cost **cost = rt_xcalloc(n ? n : 1, sizeof *cost);
    for (size_t i = 0; i < n; i++) {
        const ev *e = &r->evs[i];
        if (e->kind != EV_CPU)
            continue;
        double fa = e->flops > 0 ? e->flops : -1;
        for (size_t p = parent[i]; fa < 0 && p != (size_t)-1; p = parent[p])
            if (r->evs[p].flops > 0)
                fa = r->evs[p].flops;
        cost[i] = cost_of(r, e->key, fa);
        work[i] = cost[i]->status == RT_TC_COSTED || cost[i]->status == RT_TC_INCOMPLETE ||
                  cost[i]->status == RT_TC_UNCOUNTED;
    }
    /* a dispatcher or an unknown operator that calls a working operator is a composite in this
     * call: its callees carry the work (a working operator keeps its own cost, and its callees
     * theirs: addmm's copy of the bias is traffic of its own); torch.compile's wrappers are the
     * framework's time, not their callees' */
    unsigned char *below = rt_xcalloc(n ? n : 1, 1);
    for (size_t i = 0; i < n; i++)
        if (work[i])
            for (size_t p = parent[i]; p != (size_t)-1 && !below[p]; p = parent[p]) {
                below[p] = 1;
                if (cost[p] &&
                    (cost[p]->status == RT_TC_NONE || cost[p]->status == RT_TC_UNKNOWN) &&
                    !is_class(cost[p], "framework"))
                    composite[p] = 1;
            }
    /* a compiled region whose kernels were recorded below it (inductor's kernel profiling): its
     * own time is the framework's, not its kernels' */
    memset(below, 0, n ? n : 1);
    for (size_t i = 0; i < n; i++)
        if (cost[i] && is_class(cost[i], "compiled"))
            for (size_t p = parent[i]; p != (size_t)-1 && !below[p]; p = parent[p])
                below[p] = 1;
    /* ... and so is a working operator whose costed callee does its work (the table's 'defer':
     * aten::embedding's aten::index_select, a _foreach_ operator's per-tensor ones): the nearest
     * working caller of each costed call is asked */
    char **op = rt_xcalloc(r->n_k ? r->n_k : 1, sizeof *op);
    int legacy = rt_torch_legacy_export(r);
    for (size_t i = 0; i < n; i++) {
        if (!cost[i] || cost[i]->status != RT_TC_COSTED)
            continue;
        size_t p = parent[i];
        while (p != (size_t)-1 && !work[p])
            p = parent[p];
        if (p == (size_t)-1 || composite[p])
            continue;
        uint32_t key[2] = {r->evs[p].key, r->evs[i].key};
        for (int j = 0; j < 2; j++)
            if (!op[key[j]]) {
                const char *full = r->names[key[j]], *sep = strchr(full, '\x1f');
                op[key[j]] = sep ? rt_strndup(full, (size_t)(sep - full)) : rt_strdup(full);
            }
        if (rt_torch_ops_defers(r->ops, op[key[0]], op[key[1]]))
            composite[p] = 1;
    }
    for (size_t k = 0; k < r->n_k; k++)
        free(op[k]);
    free(op);
    for (size_t i = 0; i < n; i++) {
        const ev *e = &r->evs[i];
        if (e->kind == EV_CPU && r->gpu.calls) /* each call's work, for its GPU kernels */
            rt_torch_gpu_note_call(&r->gpu.calls[i], composite[i], cost[i]);
        if (e->kind != EV_CPU || !inside[i])
            continue;
        double s = self[i] > 0 ? self[i] : 0;
        int aten = strncmp(r->names[e->key], "aten::", 6) == 0;
        r->cov.busy += s;
        r->cov.aten_busy += aten ? s : 0;
        const rt_torch_cost *c = cost[i];
        kern *k = &r->k[e->key];
        if (is_class(c, "framework") || (is_class(c, "region") && below[i])) {
            k->compiled = is_class(c, "framework") ? "wrapper" : "region";
            r->cov.zero += s;
            continue;
        }
        if (composite[i]) {
            r->cov.composite += s;
            continue;
        }
        const char *why = legacy && !k->dims ? "no shapes in torch's legacy trace format" : c->why;
        switch (c->status) {
        case RT_TC_NONE:
            r->cov.zero += s;
            break;
        case RT_TC_COSTED:
            if (c->flops_known) {
                k->cflops += c->flops;
                k->has_cflops = 1;
                if (c->unit) {
                    k->cunit = c->unit;
                    k->cprecision = c->precision;
                }
            }
            if (c->bytes_known) {
                k->cbytes += c->bytes;
                k->has_cbytes = 1;
                if (c->working_set > k->cws)
                    k->cws = c->working_set;
            }
            k->lower_bound |= c->lower_bound;
            if ((c->flops_known && c->flops > 0) || (c->bytes_known && c->bytes > 0)) {
                r->cov.work += s;
                r->cov.aten_work += aten ? s : 0;
            } else
                r->cov.zero += s;
            break;
        case RT_TC_INCOMPLETE:
            uncovered(r, e->key, why, s);
            break;
        case RT_TC_UNCOUNTED: /* known, and known to have no count: its verdict says so */
            k->uncounted = c->klass;
            r->cov.uncounted += s;
            break;
        case RT_TC_UNKNOWN:
            uncovered(r, e->key, "not in the cost model", s);
            break;
        }
    }
    free(below);
    free(work);
    free(composite);
    free(cost);
}

int rt_torch_legacy_export(const reader *r)
{
    return r->n_cpu > 0 && r->n_cpu_dims == 0 && r->n_cpu_uncat == r->n_cpu;
}

void rt_torch_warn_legacy(const reader *r, rt_warnings *w)
{
    int flops = r->n_cpu_flops > 0;
    rt_warnings_add(w,
                    "'%s': this trace carries no input shapes%s: torch's own export_chrome_trace "
                    "of the legacy torch.autograd.profiler.profile (a torch without Kineto) "
                    "writes none, even with record_shapes=True%s, so the operators have %s. "
                    "What records them: `rooftime profile --torch -- python3 script.py`, or "
                    "torch.profiler.profile (Kineto) where the torch build has it "
                    "(torch.autograd.kineto_available())",
                    r->origin, flops ? "" : " and no FLOPs", flops ? "" : " and with_flops=True",
                    flops ? "time, invocations and torch's FLOPs only, no bytes"
                          : "time and invocations only");
}

void rt_torch_source_notes(const reader *r, rt_profile *p)
{
    double all = 0, known = 0;
    for (size_t i = 0; i < r->n_k; i++) {
        const kern *k = &r->k[i];
        if (!k->display || k->calls == 0)
            continue;
        all += k->us;
        known += k->source ? k->us : 0;
    }
    char buf[512];
    int len = snprintf(buf, sizeof buf,
                       "%.1f%% of the operator self time with the user's source line, %.1f%% "
                       "source unknown",
                       all > 0 ? 100 * known / all : 0, all > 0 ? 100 * (all - known) / all : 0);
    if (r->py.n > 0) /* torch 2.x's Python frames (torch-pyframes.c) */
        snprintf(buf + len, sizeof buf - (size_t)len,
                 "; lines and modules from the trace's Python frames (with_stack=True): %zu of "
                 "%zu operator calls inside the user's code, %zu on threads with no Python "
                 "frames (autograd's own threads); %zu in the backward pass tagged as the "
                 "forward call they are the backward of (autograd's sequence number)",
                 r->py.placed, r->py.ops + r->py.bare, r->py.bare, r->py.linked);
    rt_tags_set(&p->provenance.notes, "torch_source_coverage", buf);
}

#define MAX_LISTED 12

void rt_torch_cost_notes(const reader *r, rt_profile *p, rt_warnings *w)
{
    rt_tags_set(&p->provenance.formulas, "flops",
                r->opt->conv == RT_CONV_WINDOW
                    ? "cost model (data/torch/ops.json) from recorded shapes and types; "
                      "convolutions and pooling: whole window"
                    : "cost model (data/torch/ops.json) from recorded shapes and types; "
                      "convolutions and pooling: taps inside the input");
    rt_tags_set(&p->provenance.formulas, "bytes.DRAM",
                "cost model (data/torch/ops.json): compulsory traffic, every tensor input read "
                "and every output written once at its type");
    rt_tags_set(&p->provenance.notes, "torch_cost_model", rt_torch_ops_label(r->ops));
    rt_tags_set(&p->provenance.notes, "torch_conv_flops", rt_conv_flops_name(r->opt->conv));
    double busy = r->cov.busy > 0 ? r->cov.busy : 1, unc;
    size_t nw = r->cov.why.why.n;
    char *list = rt_torch_shares_list(&r->cov.why, busy, MAX_LISTED, &unc);
    char t[64], buf[512];
    rt_fmt_time(t, sizeof t, r->cov.busy * 1e-6);
    snprintf(buf, sizeof buf,
             "operator self time %s: %.1f%% with FLOPs or bytes, %.1f%% views, allocations and "
             "dispatch (no work of their own), %.1f%% composites whose callees carry the work, "
             "%.1f%% uncovered; aten operators: %.1f%% of their self time with FLOPs or bytes",
             t, 100 * r->cov.work / busy, 100 * r->cov.zero / busy, 100 * r->cov.composite / busy,
             100 * unc / busy,
             100 * r->cov.aten_work / (r->cov.aten_busy > 0 ? r->cov.aten_busy : 1));
    if (r->cov.uncounted > 0) {
        size_t len = strlen(buf);
        snprintf(buf + len, sizeof buf - len,
                 "; %.1f%% work no FLOP or byte count measures (random numbers, sorting, "
                 "data-dependent indexing: verdict unknown)",
                 100 * r->cov.uncounted / busy);
    }
    rt_tags_set(&p->provenance.notes, "torch_coverage", buf);
    rt_tags_set(&p->provenance.notes, "torch_covered_share",
                (snprintf(t, sizeof t, "%.4f", r->cov.work / busy), t));
    if (nw > 0) {
        rt_tags_set(&p->provenance.notes, "torch_uncovered", list);
        if (rt_torch_legacy_export(r))
            rt_torch_warn_legacy(r, w); /* one cause for every operator: said once */
        else {
            char sh[32];
            rt_fmt_share(sh, sizeof sh, unc / busy);
            rt_warnings_add(w, "'%s': %s of the operator self time is uncovered (time only): %s",
                            r->origin, sh, list);
        }
    }
    free(list);
}
