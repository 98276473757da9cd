/* PyTorch GPU traces, the link: each kernel, memcpy and memset to the runtime call that launched
 * it (by correlation id), that call to the operator around it (by the shared External id, or the
 * innermost operator whose span holds it on the same thread), and the operator's work from the
 * cost model to its kernels by the split rule. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/comm.h"
#include "rooftime/util/strings.h"
#include "torch-internal.h"

void rt_torch_gpu_add_event(reader *r, double ts, double dur, int64_t corr, double bytes,
                            uint32_t name, const char *pid, int kind)
{
    torch_gpu *g = &r->gpu;
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 256;
        g->ev = rt_xrealloc(g->ev, g->cap * sizeof *g->ev);
    }
    gpu_ev *e = &g->ev[g->n++];
    memset(e, 0, sizeof *e);
    e->ts = ts;
    e->end = ts + dur;
    e->dur = dur;
    e->bytes = bytes;
    e->corr = corr;
    e->name = name;
    e->kind = (uint8_t)kind;
    e->rt = e->op = e->owner = -1;
    /* the device is the process id Kineto gives the GPU's rows ("0/7": device 0, stream 7) */
    char *end;
    long d = strtol(pid, &end, 10);
    e->device = end != pid && *end == '/' && d >= 0 && d < 1 << 20 ? (uint32_t)d : 0;
    if (kind == GK_MEMCPY) {
        const char *nm = r->names[name];
        e->copy = strstr(nm, "DtoD")                         ? GC_DTOD
                  : strstr(nm, "HtoD") || strstr(nm, "DtoH") ? GC_HOST
                                                             : GC_OTHER;
    }
}

void rt_torch_gpu_add_call(reader *r, double ts, double dur, int64_t corr, int64_t ext,
                           uint32_t thread)
{
    torch_gpu *g = &r->gpu;
    if (g->n_rt == g->cap_rt) {
        g->cap_rt = g->cap_rt ? 2 * g->cap_rt : 256;
        g->rt = rt_xrealloc(g->rt, g->cap_rt * sizeof *g->rt);
    }
    g->rt[g->n_rt++] = (rt_call){ts, ts + dur, corr, ext, thread};
}

void rt_torch_gpu_note_call(call_work *cw, int composite, const struct rt_torch_cost *c)
{
    memset(cw, 0, sizeof *cw);
    cw->status = (uint8_t)c->status;
    if (composite) {
        cw->state = CW_COMPOSITE;
        return;
    }
    switch (c->status) {
    case RT_TC_NONE:
        cw->state = CW_NONE;
        break;
    case RT_TC_COSTED:
        cw->flops_known = (uint8_t)c->flops_known;
        cw->bytes_known = (uint8_t)c->bytes_known;
        cw->flops = c->flops_known ? c->flops : 0;
        cw->bytes = c->bytes_known ? c->bytes : 0;
        cw->unit = c->unit;
        cw->precision = c->precision;
        cw->lower = (uint8_t)c->lower_bound;
        cw->state = cw->flops > 0 || cw->bytes > 0 ? CW_WORK : CW_NONE;
        break;
    case RT_TC_UNCOUNTED: /* known, and known to have no count: its kernels' verdicts say so */
        cw->state = CW_UNCOUNTED;
        cw->klass = c->klass;
        break;
    default:
        cw->state = CW_UNCOVERED;
    }
}

void rt_torch_gpu_free(torch_gpu *g)
{
    rt_torch_gpu_units_free(g->units);
    free(g->row);
    free(g->comm);
    free(g->ev);
    free(g->rt);
    free(g->calls);
    json_decref(g->device_props);
    json_decref(g->dist_info);
    memset(g, 0, sizeof *g);
}

/* ---- lookups: runtime calls by correlation, operators by External id, spans by thread ---- */

typedef struct idkey {
    int64_t id;
    size_t at;
} idkey;

static int idkey_cmp(const void *a_, const void *b_)
{
    const idkey *a = a_, *b = b_;
    if (a->id != b->id)
        return a->id < b->id ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* The first entry with this id, or -1. */
static int64_t find_id(const idkey *v, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].id == id ? (int64_t)v[lo].at : -1;
}

/* The last event of thread th starting at or before t (the reader's events are sorted by thread,
 * then start), or -1. */
static int64_t last_at(const reader *r, uint32_t th, double t)
{
    size_t lo = 0, hi = r->n_evs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const ev *e = &r->evs[mid];
        if (e->thread < th || (e->thread == th && e->ts <= t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && r->evs[lo - 1].thread == th ? (int64_t)lo - 1 : -1;
}

/* The innermost operator on thread th whose span holds t, or -1. */
static int64_t op_holding(const reader *r, uint32_t th, double t)
{
    for (int64_t i = last_at(r, th, t); i >= 0 && r->evs[i].thread == th; i--) {
        if (r->evs[i].kind == EV_WITHIN)
            continue; /* a --within range is no operator and nests nothing */
        for (size_t p = (size_t)i; p != (size_t)-1; p = r->parent[p])
            if (r->evs[p].ts <= t && t <= r->evs[p].end)
                return (int64_t)p;
        return -1;
    }
    return -1;
}

/* The --within ranges of each thread, overlapping ones merged, sorted by thread and start. */
typedef struct span {
    uint32_t thread;
    double ts, end;
} span;

static span *within_spans(const reader *r, size_t *n)
{
    span *w = rt_xmalloc((r->n_evs ? r->n_evs : 1) * sizeof *w);
    *n = 0;
    for (size_t i = 0; i < r->n_evs; i++) { /* the events are in thread, then start order */
        const ev *e = &r->evs[i];
        if (e->kind != EV_WITHIN)
            continue;
        if (*n > 0 && w[*n - 1].thread == e->thread && e->ts <= w[*n - 1].end) {
            if (e->end > w[*n - 1].end)
                w[*n - 1].end = e->end;
        } else {
            w[(*n)++] = (span){e->thread, e->ts, e->end};
        }
    }
    return w;
}

/* Whether t on thread th lies inside one of the spans. */
static int within_holds(const span *w, size_t n, uint32_t th, double t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w[mid].thread < th || (w[mid].thread == th && w[mid].ts <= t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && w[lo - 1].thread == th && t <= w[lo - 1].end;
}

/* The operator whose work a kernel launched inside op carries: op itself when the cost model
 * gave it work; through views, allocations and dispatchers to their caller; none inside a
 * composite (its callees carry its work) or an uncovered operator. Without the cost model, the
 * nearest operator with torch's own args.flops. */
static int64_t owner_of(const reader *r, int64_t op)
{
    for (size_t p = (size_t)op; p != (size_t)-1; p = r->parent[p]) {
        if (!r->ops) {
            if (r->evs[p].flops > 0)
                return (int64_t)p;
            continue;
        }
        const call_work *cw = &r->gpu.calls[p];
        if (cw->state == CW_WORK)
            return (int64_t)p;
        if (cw->state != CW_NONE || cw->status != RT_TC_NONE)
            return -1; /* a composite, uncovered, or costed at no work */
    }
    return -1;
}

/* Each GPU event's runtime call, operator and owner; whether it is kept (--within). */
static void link_events(reader *r, const idkey *calls, size_t n_calls, const idkey *exts,
                        size_t n_exts, size_t *linked_ext)
{
    torch_gpu *g = &r->gpu;
    size_t n_w;
    span *w = within_spans(r, &n_w);
    for (size_t i = 0; i < g->n; i++) {
        gpu_ev *e = &g->ev[i];
        e->rt = e->corr >= 0 ? find_id(calls, n_calls, e->corr) : -1;
        e->inside = !r->within;
        if (e->rt < 0)
            continue;
        const rt_call *c = &g->rt[e->rt];
        e->inside = !r->within || within_holds(w, n_w, c->thread, c->ts);
        int64_t op = c->ext >= 0 ? find_id(exts, n_exts, c->ext) : -1;
        /* the shared External id (newer Kineto) names the operator when that operator holds
         * the call on its thread; else (older Kineto: the call's id is its correlation) the
         * innermost operator whose span holds it */
        if (op >= 0 && r->evs[op].thread == c->thread && r->evs[op].ts <= c->ts &&
            c->ts <= r->evs[op].end)
            (*linked_ext)++;
        else
            op = op_holding(r, c->thread, c->ts);
        e->op = op;
        if (op >= 0 && e->kind == GK_KERNEL)
            e->owner = owner_of(r, op);
        if (op >= 0 && e->owner < 0 && r->ops) { /* an operator whose work no count measures */
            size_t p = (size_t)op;
            while (r->gpu.calls[p].state == CW_NONE && r->gpu.calls[p].status == RT_TC_NONE &&
                   r->parent[p] != (size_t)-1)
                p = r->parent[p];
            e->uncounted = r->gpu.calls[p].state == CW_UNCOUNTED ? r->gpu.calls[p].klass : NULL;
        }
    }
    free(w);
}

/* The matrix row of kernel name n (looked up once per name). */
static int row_of(reader *r, uint32_t n)
{
    torch_gpu *g = &r->gpu;
    if (g->row[n] == -2)
        g->row[n] = rt_torch_gpu_match(g->units, r->names[n]);
    return g->row[n];
}

int rt_torch_gpu_is_comm(reader *r, uint32_t n)
{
    torch_gpu *g = &r->gpu;
    if (!g->comm[n])
        g->comm[n] = r->opt->comm && rt_comm_library(r->opt->comm, r->names[n]) ? 1 : 2;
    return g->comm[n] == 1;
}

/* One owner's work over its kept kernels k[0, n): FLOPs to its matrix kernels when it launched
 * any, else to all of them, bytes to all of them, each in proportion to its device time (in equal
 * parts when they took none). A matrix kernel's FLOPs count on the matrix unit its row maps the
 * data's precision to; the others' where the operator's arithmetic runs (the cost model's unit:
 * fp32 for bf16 elementwise work). */
static void split_work(reader *r, const size_t *k, size_t n)
{
    torch_gpu *g = &r->gpu;
    const ev *op = &r->evs[g->ev[k[0]].owner];
    double flops = r->ops ? g->calls[g->ev[k[0]].owner].flops : op->flops;
    double bytes = r->ops ? g->calls[g->ev[k[0]].owner].bytes : 0;
    const char *unit = r->ops ? g->calls[g->ev[k[0]].owner].unit : r->k[op->key].unit;
    const char *precision = r->ops ? g->calls[g->ev[k[0]].owner].precision : unit;
    unsigned char lower = r->ops && g->calls[g->ev[k[0]].owner].lower;
    if (!unit)
        unit = precision = flops > 0 ? "fp32" : NULL;
    double t_all = 0, t_mat = 0;
    size_t n_mat = 0;
    unsigned char *mat = rt_xcalloc(n, 1);
    for (size_t i = 0; i < n; i++) {
        const gpu_ev *e = &g->ev[k[i]];
        mat[i] = row_of(r, e->name) >= 0;
        t_all += e->dur;
        t_mat += mat[i] ? e->dur : 0;
        n_mat += mat[i];
    }
    for (size_t i = 0; i < n; i++) {
        gpu_ev *e = &g->ev[k[i]];
        double t = e->dur;
        double share_all = t_all > 0 ? t / t_all : 1.0 / (double)n;
        double share_mat = !mat[i] ? 0 : t_mat > 0 ? t / t_mat : 1.0 / (double)n_mat;
        e->wbytes = bytes * share_all;
        e->lower = lower;
        e->flops = flops * (n_mat ? share_mat : share_all);
        const char *matrix =
            mat[i] ? rt_torch_gpu_row_unit(g->units, row_of(r, e->name), precision) : NULL;
        e->unit = !(e->flops > 0)                 ? NULL
                  : matrix && matrix != precision ? matrix /* the row maps the precision */
                                                  : unit;
    }
    free(mat);
}

/* The device the profile is of: the one with the most device time (a process may drive several);
 * how many there are. */
static void pick_device(torch_gpu *g)
{
    idkey *d = rt_xmalloc((g->n ? g->n : 1) * sizeof *d);
    for (size_t i = 0; i < g->n; i++)
        d[i] = (idkey){g->ev[i].device, i};
    qsort(d, g->n, sizeof *d, idkey_cmp);
    double best = -1;
    g->n_devices = 0;
    for (size_t i = 0; i < g->n;) {
        size_t j = i;
        double t = 0;
        for (; j < g->n && d[j].id == d[i].id; j++)
            t += g->ev[d[j].at].dur;
        g->n_devices++;
        if (t > best) {
            best = t;
            g->device = (uint32_t)d[i].id;
        }
        i = j;
    }
    free(d);
}

void rt_torch_gpu_link(reader *r)
{
    torch_gpu *g = &r->gpu;
    g->row = rt_xmalloc((r->n_k ? r->n_k : 1) * sizeof *g->row);
    for (size_t i = 0; i < r->n_k; i++)
        g->row[i] = -2;
    g->comm = rt_xcalloc(r->n_k ? r->n_k : 1, 1);
    pick_device(g);
    idkey *calls = rt_xmalloc((g->n_rt ? g->n_rt : 1) * sizeof *calls);
    for (size_t i = 0; i < g->n_rt; i++)
        calls[i] = (idkey){g->rt[i].corr, i};
    qsort(calls, g->n_rt, sizeof *calls, idkey_cmp);
    size_t n_exts = 0;
    idkey *exts = rt_xmalloc((r->n_evs ? r->n_evs : 1) * sizeof *exts);
    for (size_t i = 0; i < r->n_evs; i++)
        if (r->evs[i].kind == EV_CPU && r->evs[i].ext >= 0)
            exts[n_exts++] = (idkey){r->evs[i].ext, i};
    qsort(exts, n_exts, sizeof *exts, idkey_cmp);
    g->n_linked_ext = 0;
    link_events(r, calls, g->n_rt, exts, n_exts, &g->n_linked_ext);
    free(calls);
    free(exts);

    /* the kept kernels of each owner, together: its work split among them */
    size_t n_own = 0;
    idkey *own = rt_xmalloc((g->n ? g->n : 1) * sizeof *own);
    for (size_t i = 0; i < g->n; i++)
        if (g->ev[i].owner >= 0 && g->ev[i].inside && g->ev[i].device == g->device &&
            !rt_torch_gpu_is_comm(r, g->ev[i].name))
            own[n_own++] = (idkey){g->ev[i].owner, i};
    qsort(own, n_own, sizeof *own, idkey_cmp);
    size_t *k = rt_xmalloc((n_own ? n_own : 1) * sizeof *k);
    for (size_t i = 0; i < n_own;) {
        size_t j = i;
        for (; j < n_own && own[j].id == own[i].id; j++)
            k[j - i] = own[j].at;
        split_work(r, k, j - i);
        i = j;
    }
    free(k);
    free(own);
}
