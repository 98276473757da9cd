/* PyTorch traces of a generation loop: each operator's phase, prefill (attention over more than
 * one query token: the prompt) or decode (one query token per step), from the user's marks (ranges
 * named rooftime:phase=NAME, any name) or else from the attention operators' query length. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/strings.h"
#include "torch-internal.h"

#define MARK_PREFIX "rooftime:phase="

/* The operators whose first input is the attention's query [..., L, E] (softmax's scores [...,
 * L, S]): L > 1 is a prefill, L = 1 a decode step. The fused kernels' own layouts ([B, L, H, E])
 * are left out: they run inside one of these. */
static const char *const attention_ops[] = {"aten::scaled_dot_product_attention",
                                            "aten::_scaled_dot_product_attention_math",
                                            "aten::_scaled_dot_product_flash_attention",
                                            "aten::_scaled_dot_product_flash_attention_for_cpu",
                                            "aten::_scaled_dot_product_efficient_attention",
                                            "aten::_scaled_dot_product_cudnn_attention",
                                            "aten::_native_multi_head_attention",
                                            "aten::softmax",
                                            "aten::_softmax",
                                            "aten::_safe_softmax"};

static bool phase_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 32)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.'))
            return false;
    }
    return true;
}

bool rt_torch_phase_mark(reader *r, const char *name, double ts, double dur)
{
    if (strncmp(name, MARK_PREFIX, strlen(MARK_PREFIX)) != 0)
        return false;
    const char *phase = name + strlen(MARK_PREFIX);
    if (!phase_name_ok(phase)) {
        r->phases.bad++;
        return true;
    }
    if (r->phases.n == r->phases.cap) {
        r->phases.cap = r->phases.cap ? 2 * r->phases.cap : 16;
        r->phases.marks = rt_xrealloc(r->phases.marks, r->phases.cap * sizeof *r->phases.marks);
    }
    r->phases.marks[r->phases.n++] =
        (rt_torch_phase_range){.ts = ts, .end = ts + dur, .phase = rt_strdup(phase)};
    return true;
}

/* The operator name of kernel key (its interned key up to the unit separator or a space). */
static size_t op_len(const char *key)
{
    return strcspn(key, "\x1f ");
}

/* The query length of an attention call from its input shapes ("[[1,8,128,64],...]"): the
 * second-to-last dimension of the first input when it has three or more; -1 otherwise. */
static long query_length(const char *dims)
{
    if (!dims)
        return -1;
    const char *p = dims;
    while (*p == ' ')
        p++;
    if (*p++ != '[')
        return -1;
    while (*p == ' ')
        p++;
    if (*p++ != '[')
        return -1;
    long d[64];
    int n = 0;
    while (*p && *p != ']') {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || n == 64)
            return -1;
        d[n++] = v;
        p = end;
        while (*p == ' ' || *p == ',')
            p++;
    }
    return *p == ']' && n >= 3 ? d[n - 2] : -1;
}

/* The recorded shapes of kernel i: the cost model's, or the "name dims" key's. */
static const char *dims_of(const reader *r, size_t i)
{
    if (r->k[i].dims)
        return r->k[i].dims;
    const char *sp = strchr(r->names[i], ' ');
    return sp && sp[1] == '[' ? sp + 1 : NULL;
}

/* -1 when kernel i is not an attention operator, else its query length (0 when unknown). */
static long attention_query(const reader *r, size_t i)
{
    const char *key = r->names[i];
    size_t n = op_len(key);
    for (size_t j = 0; j < sizeof attention_ops / sizeof attention_ops[0]; j++)
        if (strlen(attention_ops[j]) == n && strncmp(key, attention_ops[j], n) == 0) {
            long l = query_length(dims_of(r, i));
            return l > 0 ? l : 0;
        }
    return -1;
}

/* By start, and of two that start together the longer first: an operator before the operators it
 * calls (a profiler of microseconds gives a softmax and its _softmax one start). */
static int by_start(const void *x, const void *y)
{
    const rt_torch_phase_range *a = x, *b = y;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    return a->end > b->end ? -1 : a->end < b->end;
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* The start times of the aten::embedding calls, in order (*n of them): where a forward begins. */
static double *embedding_starts(const reader *r, size_t *n)
{
    double *v = NULL;
    size_t m = 0, cap = 0;
    for (size_t i = 0; i < r->n_evs; i++) {
        const ev *e = &r->evs[i];
        if (e->kind != EV_CPU)
            continue;
        const char *key = r->names[e->key];
        if (op_len(key) != strlen("aten::embedding") || strncmp(key, "aten::embedding", 15) != 0)
            continue;
        if (m == cap) {
            cap = cap ? 2 * cap : 64;
            v = rt_xrealloc(v, cap * sizeof *v);
        }
        v[m++] = e->ts;
    }
    if (m > 1)
        qsort(v, m, sizeof *v, by_value);
    *n = m;
    return v;
}

/* The first of the n sorted starts in [from, to), or to (a binary search). */
static double step_start(const double *starts, size_t n, double from, double to)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (starts[mid] < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && starts[lo] < to ? starts[lo] : to;
}

/* Segments of the run from the attention calls: runs of calls of one phase; a run begins at the
 * first embedding lookup after the previous run's last call (the next forward's start), else at
 * its own first call; the first run likewise, so that what comes before the first forward (the
 * model's set-up) has no phase. 0 when there is no decode call (no generation loop). */
static size_t auto_segments(reader *r, rt_torch_phase_range **out)
{
    rt_torch_phase_range *calls = NULL;
    size_t nc = 0, cap = 0, decode = 0, prefill = 0;
    for (size_t i = 0; i < r->n_evs; i++) {
        const ev *e = &r->evs[i];
        long l = e->kind == EV_CPU ? attention_query(r, e->key) : -1;
        if (l <= 0)
            continue;
        if (nc == cap) {
            cap = cap ? 2 * cap : 64;
            calls = rt_xrealloc(calls, cap * sizeof *calls);
        }
        calls[nc++] = (rt_torch_phase_range){e->ts, e->end, l == 1 ? "decode" : "prefill"};
    }
    if (nc > 1)
        qsort(calls, nc, sizeof *calls, by_start);
    /* counted once: a softmax inside an attention operator is the same call, one that starts
     * before the last counted one ends (torch 1.13 rounds starts and durations to microseconds
     * apart, so an inner call may seem to end a microsecond after its caller) */
    double outer_end = -INFINITY;
    for (size_t i = 0; i < nc; i++) {
        if (calls[i].ts < outer_end) {
            outer_end = fmax(outer_end, calls[i].end);
            continue;
        }
        outer_end = calls[i].end;
        decode += calls[i].phase[0] == 'd';
        prefill += calls[i].phase[0] == 'p';
    }
    r->phases.decode_calls = decode;
    r->phases.prefill_calls = prefill;
    if (!decode) {
        free(calls);
        return 0;
    }
    rt_torch_phase_range *seg = rt_xcalloc(nc, sizeof *seg);
    size_t ns = 0, n_emb;
    double *emb = embedding_starts(r, &n_emb);
    double last_end = -INFINITY;
    for (size_t i = 0; i < nc; i++) {
        if (ns == 0 || strcmp(seg[ns - 1].phase, calls[i].phase) != 0) {
            double start = step_start(emb, n_emb, last_end, calls[i].ts);
            seg[ns++] = (rt_torch_phase_range){start, INFINITY, calls[i].phase};
            if (ns > 1)
                seg[ns - 2].end = start;
        }
        last_end = fmax(last_end, calls[i].end);
    }
    free(emb);
    free(calls);
    *out = seg;
    return ns;
}

/* The phase of an event starting at ts: the last segment (or mark) that begins at or before it
 * and has not ended; NULL when none. */
static const char *phase_at(const rt_torch_phase_range *seg, size_t n, double ts)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (seg[mid].ts <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;)
        if (ts < seg[i].end)
            return seg[i].phase;
    return NULL;
}

/* Kernel i under phase: a kernel of its own (the same call, counted apart), made once. */
static uint32_t phase_kernel(reader *r, uint32_t i, const char *phase)
{
    char *key = rt_asprintf("%s\x1e%s", r->names[i], phase);
    size_t before = r->n_k;
    uint32_t j = rt_torch_intern(r, key, strlen(key), r->k[i].gpu);
    free(key);
    if (r->n_k > before) {
        kern *src = &r->k[i], *dst = &r->k[j];
        free(r->names[j]);
        r->names[j] = rt_strdup(r->names[i]);
        dst->unit = src->unit;
        dst->dims = src->dims ? rt_strdup(src->dims) : NULL;
        dst->types = src->types ? rt_strdup(src->types) : NULL;
        dst->concrete = src->concrete ? rt_strdup(src->concrete) : NULL;
        dst->source = src->source ? rt_strdup(src->source) : NULL;
        dst->module = src->module ? rt_strdup(src->module) : NULL;
        dst->display = src->display ? rt_strdup(src->display) : NULL;
        dst->cost_flops_arg = src->cost_flops_arg;
        dst->phase = phase;
    }
    return j;
}

void rt_torch_phases(reader *r)
{
    rt_torch_phase_range *seg = NULL;
    size_t ns = 0;
    if (r->phases.n) {
        if (r->phases.n > 1)
            qsort(r->phases.marks, r->phases.n, sizeof *r->phases.marks, by_start);
        seg = r->phases.marks;
        ns = r->phases.n;
        r->phases.source = "marks";
    } else if ((ns = auto_segments(r, &seg)) > 0) {
        r->phases.source = "attention";
    }
    for (size_t i = 0; i < r->n_evs && ns; i++) {
        ev *e = &r->evs[i];
        const char *p = e->kind == EV_WITHIN ? NULL : phase_at(seg, ns, e->ts);
        if (p) {
            e->key = phase_kernel(r, e->key, p);
            r->phases.tagged++;
        }
    }
    if (seg != r->phases.marks)
        free(seg);
}

void rt_torch_phase_notes(const reader *r, rt_profile *p, rt_warnings *w)
{
    if (r->phases.bad)
        rt_warnings_add(w,
                        "'%s': %zu ranges named rooftime:phase=NAME with a name that is not 1 to "
                        "32 letters, digits, '_', '-' or '.': ignored",
                        r->origin, r->phases.bad);
    char *note = NULL;
    if (r->phases.source && strcmp(r->phases.source, "marks") == 0)
        note = rt_asprintf("from the %zu ranges named rooftime:phase=NAME (the user's marks): "
                           "each operator and kernel takes the phase of the range it starts in; "
                           "%zu of them tagged",
                           r->phases.n, r->phases.tagged);
    else if (r->phases.source)
        note = rt_asprintf(
            "prefill and decode from the attention operators' query length (%zu calls over more "
            "than one query token, %zu over one): a phase begins at the first embedding lookup "
            "after the other phase's last attention call (the next forward's start), or, without "
            "one, at its own first attention call; what runs before the first has none; %zu "
            "operators and kernels tagged (GPU kernels by their start time)",
            r->phases.prefill_calls, r->phases.decode_calls, r->phases.tagged);
    if (note) {
        rt_tags_set(&p->provenance.notes, "phases", note);
        free(note);
    }
}

rt_kernel *rt_torch_phase_kernel(rt_profile *p, const char *name, const char *phase)
{
    if (!phase)
        return rt_profile_add_kernel(p, name);
    rt_tags t = {0};
    rt_tags_set(&t, "phase", phase);
    rt_kernel *k = rt_profile_find_or_add(p, name, &t);
    rt_tags_release(&t);
    return k;
}

void rt_torch_phase_release(reader *r)
{
    for (size_t i = 0; i < r->phases.n; i++)
        free((char *)r->phases.marks[i].phase);
    free(r->phases.marks);
    memset(&r->phases, 0, sizeof r->phases);
}
