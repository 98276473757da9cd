/* PyTorch GPU traces, the launch side: how much of the step the device was busy, what each of its
 * idle gaps waited for (the host's operator before its launch, the launch itself, the host outside
 * any operator, or work already launched), and tau, the launch latency measured in the run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"
#include "torch-internal.h"

typedef struct at_time {
    double t;
    size_t i;
} at_time;

static int at_cmp(const void *a_, const void *b_)
{
    const at_time *a = a_, *b = b_;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static int dbl_cmp(const void *a_, const void *b_)
{
    double a = *(const double *)a_, b = *(const double *)b_;
    return a < b ? -1 : a > b;
}

/* The launch time of event e, or NAN when it has none. */
static double launch_of(const reader *r, const gpu_ev *e)
{
    return e->rt >= 0 ? r->gpu.rt[e->rt].ts : NAN;
}

/* tau: the median, over kernels launched while the device had nothing left to run, of the time
 * from the launch call's start to the kernel's start (the paper's empty kernel between events,
 * here every such kernel of the run). s: the kept events in start order. */
static void measure_tau(const reader *r, const at_time *s, size_t n, gpu_timeline *tl)
{
    double *v = rt_xmalloc((n ? n : 1) * sizeof *v);
    size_t m = 0;
    double busy_until = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        const gpu_ev *e = &r->gpu.ev[s[i].i];
        double l = launch_of(r, e);
        if (e->kind == GK_KERNEL && isfinite(l) && l >= busy_until && e->ts >= l)
            v[m++] = e->ts - l;
        if (e->end > busy_until)
            busy_until = e->end;
    }
    if (m > 0) {
        qsort(v, m, sizeof *v, dbl_cmp);
        tl->tau = m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
    }
    tl->n_tau = m;
    free(v);
}

/* One idle gap [g0, g1] before event e (the first of the work that ends it), by cause. */
static void classify_gap(const reader *r, const gpu_ev *e, double g0, double g1, gpu_timeline *tl)
{
    double l = launch_of(r, e), gap = g1 - g0;
    tl->n_gaps++;
    if (!isfinite(l) || l >= g1) {
        tl->other += gap;
        return;
    }
    /* the launch: its call (a first launch may load code for milliseconds) and tau after it */
    double tau = tl->n_tau > 0 ? tl->tau : 0, le = r->gpu.rt[e->rt].end;
    double launch_end = fmin(g1, fmax(le, l + tau));
    if (l <= g0) { /* launched before the device went idle: the rest of its launch, then waiting */
        double lat = launch_end > g0 ? launch_end - g0 : 0;
        tl->latency += lat;
        tl->other += gap - lat;
        return;
    }
    /* the device waited for the host to launch: inside the launching operator, or outside any */
    double os = e->op >= 0 ? r->evs[e->op].ts : l;
    double from = os > g0 ? os : g0;
    tl->dispatch += l - from;
    tl->outside += from - g0;
    tl->latency += launch_end - l;
    tl->other += g1 - launch_end;
}

void rt_torch_gpu_timeline(reader *r)
{
    torch_gpu *g = &r->gpu;
    gpu_timeline *tl = &g->tl;
    memset(tl, 0, sizeof *tl);
    at_time *s = rt_xmalloc((g->n ? g->n : 1) * sizeof *s);
    size_t n = 0;
    double first = INFINITY;
    for (size_t i = 0; i < g->n; i++) {
        const gpu_ev *e = &g->ev[i];
        if (!e->inside || e->device != g->device)
            continue;
        s[n++] = (at_time){e->ts, i};
        double l = launch_of(r, e);
        first = fmin(first, isfinite(l) && l < e->ts ? l : e->ts);
        if (e->rt >= 0 && e->op >= 0 && l >= r->evs[e->op].ts) {
            tl->host_dispatch += l - r->evs[e->op].ts;
            tl->n_dispatch++;
        }
    }
    qsort(s, n, sizeof *s, at_cmp);
    measure_tau(r, s, n, tl);
    double end = -INFINITY, start = INFINITY;
    for (size_t i = 0; i < n; i++) {
        const gpu_ev *e = &g->ev[s[i].i];
        if (e->ts > end) { /* a new busy interval: the gap before it, then its start */
            if (isfinite(end))
                classify_gap(r, e, end, e->ts, tl);
            else if (e->ts > first) /* before the first: from the first launch */
                classify_gap(r, e, first, e->ts, tl);
            if (isfinite(end))
                tl->busy += end - start;
            start = e->ts;
            end = e->end;
        } else if (e->end > end) {
            end = e->end;
        }
    }
    if (n > 0) {
        tl->busy += end - start;
        tl->step = end - first;
    }
    free(s);
}

static void note_seconds(rt_profile *p, const char *key, double us)
{
    char b[48];
    snprintf(b, sizeof b, "%.9g", us * 1e-6);
    rt_tags_set(&p->provenance.notes, key, b);
}

void rt_torch_gpu_timeline_notes(const reader *r, rt_profile *p)
{
    const gpu_timeline *tl = &r->gpu.tl;
    if (!(tl->step > 0))
        return;
    note_seconds(p, "gpu_step", tl->step);
    note_seconds(p, "gpu_busy", tl->busy);
    note_seconds(p, "gpu_idle_dispatch", tl->dispatch);
    note_seconds(p, "gpu_idle_latency", tl->latency);
    note_seconds(p, "gpu_idle_outside", tl->outside);
    note_seconds(p, "gpu_idle_other", tl->other);
    double idle = tl->step - tl->busy, bound = tl->dispatch + tl->latency + tl->outside;
    char st[32], bt[32], it[32], lt[32], dt[32], at[32], ot[32], xt[32], tt[32], ht[32];
    rt_fmt_time(st, sizeof st, tl->step * 1e-6);
    rt_fmt_time(bt, sizeof bt, tl->busy * 1e-6);
    rt_fmt_time(it, sizeof it, idle * 1e-6);
    rt_fmt_time(lt, sizeof lt, bound * 1e-6);
    rt_fmt_time(dt, sizeof dt, tl->dispatch * 1e-6);
    rt_fmt_time(at, sizeof at, tl->latency * 1e-6);
    rt_fmt_time(ot, sizeof ot, tl->outside * 1e-6);
    rt_fmt_time(xt, sizeof xt, tl->other * 1e-6);
    rt_fmt_time(ht, sizeof ht, tl->host_dispatch * 1e-6);
    char buf[1024];
    snprintf(buf, sizeof buf,
             "GPU busy %s of the %s step (%.1f%%); idle %s, of which %s (%.1f%%) launch-bound "
             "(operator dispatch before the launch %s, launch latency %s, host outside the "
             "launching operators %s) and %s with the next work already launched (dependencies, "
             "synchronization); launch overhead (dispatch and latency) %.1f%% of the step; host "
             "time from each operator's start to its launch %s over %.0f launches",
             bt, st, 100 * tl->busy / tl->step, it, lt, idle > 0 ? 100 * bound / idle : 0, dt, at,
             ot, xt, 100 * (tl->dispatch + tl->latency) / tl->step, ht, tl->n_dispatch);
    rt_tags_set(&p->provenance.notes, "torch_launch_side", buf);
    snprintf(buf, sizeof buf, "%.4f", (tl->dispatch + tl->latency) / tl->step);
    rt_tags_set(&p->provenance.notes, "launch_overhead_share", buf);
    if (tl->n_tau > 0) {
        note_seconds(p, "overhead_seconds", tl->tau);
        free(p->overhead);
        p->overhead = rt_strdup(RT_OVERHEAD_TORCH_GPU);
        rt_fmt_time(tt, sizeof tt, tl->tau * 1e-6);
        snprintf(buf, sizeof buf,
                 "tau %s, measured in the run: the median time from the launch call to the "
                 "kernel's start over the %zu kernels launched onto an idle GPU",
                 tt, tl->n_tau);
        rt_tags_set(&p->provenance.notes, "overhead_method", buf);
    }
}
