/* PyTorch GPU traces, the device profile: the kept kernels, memcpys and memsets of the device by
 * name and launching operator, timed by device time, with their share of the operator's work;
 * what share of the device time has work, and why the rest has none. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/import/import-check.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"
#include "torch-internal.h"

/* One row of the profile: events of one name, operator call kind and unit. */
typedef struct row_key {
    uint32_t name;
    int64_t op;            /* the launching operator's kernel index (r->k), -1: none */
    const char *unit;      /* FLOPs unit, NULL: no FLOPs */
    const char *uncounted; /* the class of its operator's uncounted work, or NULL */
    int lower;             /* its work is of lower bounds (counts=lower_bound) */
    size_t i;              /* the event */
} row_key;

static int row_cmp(const void *a_, const void *b_)
{
    const row_key *a = a_, *b = b_;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    if (a->op != b->op)
        return a->op < b->op ? -1 : 1;
    int c = strcmp(a->unit ? a->unit : "", b->unit ? b->unit : "");
    if (c)
        return c;
    c = strcmp(a->uncounted ? a->uncounted : "", b->uncounted ? b->uncounted : "");
    if (c)
        return c;
    if (a->lower != b->lower)
        return a->lower < b->lower ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static int same_row(const row_key *a, const row_key *b)
{
    return a->name == b->name && a->op == b->op &&
           strcmp(a->unit ? a->unit : "", b->unit ? b->unit : "") == 0 &&
           strcmp(a->uncounted ? a->uncounted : "", b->uncounted ? b->uncounted : "") == 0 &&
           a->lower == b->lower;
}

/* The operator's name: its kernel key up to the first field separator. */
static char *op_name(const reader *r, uint32_t key)
{
    const char *full = r->names[key], *sep = strchr(full, '\x1f');
    return sep ? rt_strndup(full, (size_t)(sep - full)) : rt_strdup(full);
}

/* The tags of a row: its operator, the operator's shapes, source line and module, precision, and
 * the phase of a generation loop its operator ran in, else its own by its start (torch-phase.c
 * gave each phase's kernels and operators keys of their own). */
static void row_tags(const reader *r, const row_key *k, rt_tags *tags)
{
    const char *phase = k->op >= 0 && r->k[k->op].phase ? r->k[k->op].phase : r->k[k->name].phase;
    if (phase)
        rt_tags_set(tags, "phase", phase);
    if (k->op >= 0) {
        const kern *o = &r->k[k->op];
        char *name = op_name(r, (uint32_t)k->op);
        rt_tags_set(tags, "op", name);
        free(name);
        if (o->dims)
            rt_tags_set(tags, "shapes", o->dims);
        if (o->source)
            rt_tags_set(tags, "source", o->source);
        if (o->module)
            rt_tags_set(tags, "module", o->module);
    }
    if (k->unit)
        rt_tags_set(tags, "precision", k->unit);
    if (k->uncounted) /* its work no count measures: the model says unknown */
        rt_tags_set(tags, RT_TAG_UNCOUNTED, k->uncounted);
    if (k->lower) /* part of its work counted: a partial verdict */
        rt_tags_set(tags, RT_TAG_COUNTS, RT_COUNTS_LOWER_BOUND);
}

/* One event's bytes by level: its share of the operator's compulsory traffic in device memory;
 * a memcpy's or memset's own count (a copy inside the device reads and writes it, one to or from
 * the host crosses the host link). */
static void add_bytes(const gpu_ev *e, rt_kernel *kk)
{
    if (e->wbytes > 0)
        rt_values_add(&kk->bytes, "HBM", e->wbytes);
    if (e->bytes > 0 && e->kind == GK_MEMSET)
        rt_values_add(&kk->bytes, "HBM", e->bytes);
    if (e->bytes > 0 && e->kind == GK_MEMCPY)
        rt_values_add(&kk->bytes, e->copy == GC_HOST ? "PCIe" : "HBM",
                      e->copy == GC_DTOD ? 2 * e->bytes : e->bytes);
}

static void add_rows(reader *r, rt_profile *p, row_key *keys, size_t n)
{
    qsort(keys, n, sizeof *keys, row_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && same_row(&keys[j], &keys[i]))
            j++;
        rt_tags tags = {0};
        row_tags(r, &keys[i], &tags);
        rt_kernel *kk = rt_profile_find_or_add(p, r->names[keys[i].name], &tags);
        if (kk->tags.n == 0)
            rt_tags_copy(&kk->tags, &tags);
        if (!kk->overhead) /* a duration on the device leaves out the launch (docs/model.md) */
            rt_kernel_set_overhead(kk, RT_OVERHEAD_NONE, 0);
        rt_tags_release(&tags);
        for (size_t m = i; m < j; m++) {
            const gpu_ev *e = &r->gpu.ev[keys[m].i];
            kk->invocations += 1;
            kk->time += e->dur * 1e-6;
            rt_kernel_add_sample(kk, e->dur * 1e-6);
            if (e->flops > 0)
                rt_values_add(&kk->flops, e->unit, e->flops);
            add_bytes(e, kk);
        }
        i = j;
    }
}

/* Why an event has no work: the operator where the walk to its owner stopped, or the link. */
static char *why_none(const reader *r, const gpu_ev *e)
{
    if (e->kind != GK_KERNEL)
        return rt_strdup("transfers without their byte count");
    if (e->rt < 0)
        return rt_strdup("no runtime call with its correlation id");
    if (e->op < 0)
        return rt_strdup("launched outside any operator");
    if (e->owner >= 0)
        return rt_strdup("its operator's FLOPs went to its math kernels, and it has no bytes");
    size_t p = (size_t)e->op;
    if (!r->ops) {
        char *name = op_name(r, r->evs[p].key), *why;
        why = rt_asprintf("%s (no cost model, and no args.flops around it)", name);
        free(name);
        return why;
    }
    /* past views, allocations and dispatchers to the operator that decided */
    while (r->gpu.calls[p].state == CW_NONE && r->gpu.calls[p].status == RT_TC_NONE &&
           r->parent[p] != (size_t)-1)
        p = r->parent[p];
    const call_work *cw = &r->gpu.calls[p];
    const kern *k = &r->k[r->evs[p].key];
    const char *why = cw->state == CW_COMPOSITE        ? "a composite: its callees carry its work"
                      : cw->state == CW_UNCOUNTED      ? "work not counted"
                      : cw->status == RT_TC_UNKNOWN    ? "not in the cost model"
                      : cw->status == RT_TC_INCOMPLETE ? k->cost.why
                      : cw->status == RT_TC_COSTED     ? "no work by the cost model"
                                                       : "a view, allocation or dispatcher";
    char *name = op_name(r, r->evs[p].key);
    char *out = rt_asprintf("%s (%s)", name, why);
    free(name);
    return out;
}

typedef struct tally {
    double all, comm, work;
    double lower;      /* of work: lower bounds only (counts=lower_bound) */
    torch_shares none; /* the time without work, by reason */
} tally;

/* The device time with work, communication and without work (by reason) into notes. */
static void coverage_notes(const tally *t, size_t n_events, rt_profile *p)
{
    double rest = t->all - t->comm, base = rest > 0 ? rest : 1, none;
    size_t nw = t->none.why.n;
    char *list = rt_torch_shares_list(&t->none, base, 8, &none);
    char at[32], ct[32], rt_[32], buf[5120], lb[96] = "";
    if (t->lower > 0)
        snprintf(lb, sizeof lb, "; %.1f%% lower bounds, tagged counts=lower_bound",
                 100 * t->lower / base);
    rt_fmt_time(at, sizeof at, t->all * 1e-6);
    rt_fmt_time(ct, sizeof ct, t->comm * 1e-6);
    rt_fmt_time(rt_, sizeof rt_, rest * 1e-6);
    snprintf(buf, sizeof buf,
             "device time %s in %zu GPU events: communication %s (%.1f%%); of the other %s, "
             "%.1f%% with FLOPs or bytes from their operators (or a transfer's own bytes%s), "
             "%.1f%% without%s%s",
             at, n_events, ct, t->all > 0 ? 100 * t->comm / t->all : 0, rt_, 100 * t->work / base,
             lb, 100 * (rest - t->work) / base, nw ? ": " : "", list);
    rt_tags_set(&p->provenance.notes, "torch_device_coverage", buf);
    snprintf(buf, sizeof buf, "%.4f", rest > 0 ? t->work / rest : 0);
    rt_tags_set(&p->provenance.notes, "torch_device_covered_share", buf);
    free(list);
}

/* The profile's rows and the tally of its device time. */
static size_t build(reader *r, rt_profile *p, tally *t)
{
    torch_gpu *g = &r->gpu;
    row_key *keys = rt_xmalloc((g->n ? g->n : 1) * sizeof *keys);
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++) {
        const gpu_ev *e = &g->ev[i];
        if (!e->inside || e->device != g->device)
            continue;
        int64_t op = e->op >= 0 ? (int64_t)r->evs[e->op].key : -1;
        int work = e->flops > 0 || e->wbytes > 0 || e->bytes > 0;
        keys[n++] = (row_key){e->name,          op, e->flops > 0 ? e->unit : NULL, e->uncounted,
                              work && e->lower, i};
        double us = e->dur;
        t->all += us;
        if (rt_torch_gpu_is_comm(r, e->name))
            t->comm += us;
        else if (work) {
            t->work += us;
            t->lower += e->lower ? us : 0;
        } else {
            char *why = why_none(r, e);
            rt_torch_shares_add(&t->none, why, us);
            free(why);
        }
    }
    add_rows(r, p, keys, n);
    free(keys);
    return n;
}

static void link_notes(const reader *r, rt_profile *p, size_t kept, rt_warnings *w)
{
    const torch_gpu *g = &r->gpu;
    size_t n_rt = 0, n_op = 0, n_dev = 0;
    for (size_t i = 0; i < g->n; i++) {
        n_dev += g->ev[i].device == g->device;
        if (g->ev[i].device != g->device)
            continue;
        n_rt += g->ev[i].rt >= 0;
        n_op += g->ev[i].op >= 0;
    }
    char buf[512];
    snprintf(buf, sizeof buf,
             "%zu GPU events of device %u: %zu linked to their launch by correlation id, %zu to "
             "the operator around it (%zu by the shared External id, the others by the "
             "operator whose span holds the launch on its thread)",
             n_dev, g->device, n_rt, n_op, g->n_linked_ext);
    rt_tags_set(&p->provenance.notes, "torch_gpu_link", buf);
    if (r->within)
        rt_tags_set(&p->provenance.notes, "torch_gpu_within", r->within);
    if (n_rt < n_dev)
        rt_warnings_add(w,
                        "'%s': %zu of %zu GPU events have no runtime call with their correlation "
                        "id: their launch and operator are unknown, so they carry no work",
                        r->origin, n_dev - n_rt, n_dev);
    if (g->n_devices > 1)
        rt_warnings_add(w,
                        "'%s': GPU events of %zu devices; the profile is device %u's (the most "
                        "device time): %zu events of the others are left out",
                        r->origin, g->n_devices, g->device, g->n - n_dev);
    if (r->within && kept < n_dev)
        rt_warnings_add(w, "'%s': %zu of %zu GPU events were launched outside ranges named '%s'",
                        r->origin, n_dev - kept, n_dev, r->within);
}

int rt_torch_gpu_profile(reader *r, rt_profile **out, rt_warnings *w, rt_error *err)
{
    *out = NULL;
    if (rt_torch_gpu_units_load(&r->gpu.units, err) != 0)
        return -1;
    rt_torch_gpu_link(r);
    rt_torch_gpu_timeline(r);
    rt_profile *p = rt_profile_new();
    p->tool = rt_strdup("pytorch-profiler");
    p->version = rt_strdup("chrome-trace");
    p->time_kind = RT_TIME_DEVICE;      /* each kernel's duration on the device */
    p->bytes_kind = RT_BYTES_ESTIMATED; /* compulsory traffic: placed where it fits */
    tally t = {0};
    size_t kept = build(r, p, &t);
    if (kept == 0) {
        rt_error_set(err, "'%s': no GPU events of device %u%s%s%s", r->origin, r->gpu.device,
                     r->within ? " launched inside ranges named '" : "", r->within ? r->within : "",
                     r->within ? "'" : "");
        rt_torch_shares_release(&t.none);
        rt_profile_free(p);
        return -1;
    }
    char *method = rt_asprintf(
        "PyTorch profiler chrome trace (%zu events) of a GPU run: the device profile. Kernels, "
        "memcpys and memsets by device time (their durations on the GPU), one invocation each, "
        "grouped by name and the operator that launched them (op, shapes, source); each linked "
        "to its runtime call by correlation id and to the operator around that call (the shared "
        "External id, or the innermost operator whose span holds it on its thread). %s; an "
        "operator's work goes to the kernels it launched itself: FLOPs to its matrix kernels "
        "(%s) when it launched any, else to all of them, bytes to all of them, each in "
        "proportion to its device time; FLOPs of a matrix kernel count on the matrix unit of "
        "the operator's precision. Host operators are not kernels: they are the launch side "
        "(notes.torch_launch_side)",
        r->n_events,
        r->ops ? "FLOPs and bytes (compulsory traffic, in device memory) of each operator call "
                 "from its recorded shapes and types by the cost model of data/torch/ops.json"
               : "FLOPs from the operators' args.flops",
        rt_torch_gpu_units_label(r->gpu.units));
    p->method = rt_strdup_utf8(method);
    free(method);
    rt_profile_finish_spreads(p);
    coverage_notes(&t, kept, p);
    rt_torch_shares_release(&t.none);
    link_notes(r, p, kept, w);
    rt_torch_gpu_timeline_notes(r, p);
    rt_torch_window_notes(r, p); /* profile --torch --steps: the window the GPU ran in */
    rt_torch_version_notes(r, p);
    rt_torch_phase_notes(r, p, w); /* a generation loop's phases (torch-phase.c) */
    if (r->ops)
        rt_tags_set(&p->provenance.notes, "torch_cost_model", rt_torch_ops_label(r->ops));
    if (rt_torch_device_describe(r, p, w, err) != 0) {
        rt_profile_free(p);
        return -1;
    }
    *out = p;
    return rt_import_check(out, r->origin, err); /* what no profile may hold (sums past limits) */
}
