/* PyTorch traces, the backward pass's source lines: a backward node (an operator named
 * "...Backward0" or "...Backward1" with args."Sequence number") and the operators inside it take
 * the source line and nn.Module of the latest forward operator before it with that sequence
 * number, as the runner gives them (data/torch/runner/rooftime_torch_events.py): torch 2.x's
 * Python frames around the backward pass name only the loss.backward() line, or nothing on
 * autograd's own threads. One sort of the forward operators, one of all, a binary search each. */
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/strings.h"
#include "torch-internal.h"

#define NONE UINT32_MAX

typedef struct fwd {
    int64_t seq;
    double ts;
    uint32_t src, mod;
} fwd;

static int fwd_cmp(const void *a_, const void *b_)
{
    const fwd *a = a_, *b = b_;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/* Whether kernel key's operator (its name up to the first '\x1f') is a backward node. */
static int is_backward(const char *key)
{
    const char *e = strchr(key, '\x1f');
    size_t n = e ? (size_t)(e - key) : strlen(key);
    return n >= 9 && memcmp(key + n - 9, "Backward", 8) == 0 &&
           (key[n - 1] == '0' || key[n - 1] == '1');
}

void rt_torch_seq_add(reader *r, size_t ev_index, int64_t seq)
{
    if (r->py.n_seq == r->py.cap_seq) {
        r->py.cap_seq = r->py.cap_seq ? 2 * r->py.cap_seq : 256;
        r->py.seq = rt_xrealloc(r->py.seq, r->py.cap_seq * sizeof *r->py.seq);
    }
    r->py.seq[r->py.n_seq++] = (rt_torch_seq){ev_index, seq};
}

/* The latest forward operator with sequence number seq that began before ts, or NULL. */
static const fwd *latest(const fwd *f, size_t n, int64_t seq, double ts)
{
    size_t lo = 0, hi = n; /* the first record (seq, >= ts) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f[mid].seq < seq || (f[mid].seq == seq && f[mid].ts < ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && f[lo - 1].seq == seq ? &f[lo - 1] : NULL;
}

typedef struct op_item {
    double ts, end;
    uint32_t thread;
    uint32_t idx;
    uint32_t src, mod; /* a linked backward node's: its forward's; NONE: not one */
    uint8_t linked;
} op_item;

static int op_cmp(const void *a_, const void *b_)
{
    const op_item *a = a_, *b = b_;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

void rt_torch_backward_link(reader *r, uint32_t *src, uint32_t *mod, double rounding)
{
    if (r->py.n_seq == 0)
        return;
    fwd *f = rt_xmalloc(r->py.n_seq * sizeof *f);
    size_t nf = 0;
    for (size_t i = 0; i < r->py.n_seq; i++) {
        size_t x = r->py.seq[i].ev;
        if (!is_backward(r->names[r->evs[x].key]) && (src[x] != NONE || mod[x] != NONE))
            f[nf++] = (fwd){r->py.seq[i].seq, r->evs[x].ts, src[x], mod[x]};
    }
    qsort(f, nf, sizeof *f, fwd_cmp);
    unsigned char *node = rt_xcalloc(r->n_evs ? r->n_evs : 1, 1);
    int64_t *node_seq = rt_xmalloc((r->n_evs ? r->n_evs : 1) * sizeof *node_seq);
    for (size_t i = 0; i < r->py.n_seq; i++) {
        size_t x = r->py.seq[i].ev;
        if (is_backward(r->names[r->evs[x].key])) {
            node[x] = 1;
            node_seq[x] = r->py.seq[i].seq;
        }
    }
    size_t n = 0;
    for (size_t i = 0; i < r->n_evs; i++)
        n += r->evs[i].kind == EV_CPU;
    op_item *it = rt_xmalloc((n ? n : 1) * sizeof *it);
    size_t m = 0;
    for (size_t i = 0; i < r->n_evs; i++) {
        const ev *e = &r->evs[i];
        if (e->kind != EV_CPU)
            continue;
        op_item o = {e->ts, e->end, e->thread, (uint32_t)i, NONE, NONE, 0};
        const fwd *w = node[i] ? latest(f, nf, node_seq[i], e->ts) : NULL;
        if (w) {
            o.src = w->src;
            o.mod = w->mod;
            o.linked = 1;
        }
        it[m++] = o;
    }
    qsort(it, m, sizeof *it, op_cmp);
    op_item **st = rt_xmalloc((m ? m : 1) * sizeof *st);
    size_t sp = 0;
    for (size_t i = 0; i < m; i++) {
        if (i > 0 && it[i].thread != it[i - 1].thread)
            sp = 0;
        while (sp > 0 && st[sp - 1]->end <= it[i].ts)
            sp--;
        const op_item *by = it[i].linked                                        ? &it[i]
                            : sp > 0 && it[i].end <= st[sp - 1]->end + rounding ? st[sp - 1]
                                                                                : NULL;
        if (by) {
            src[it[i].idx] = by->src;
            mod[it[i].idx] = by->mod;
            r->py.linked++;
        }
        if (it[i].linked)
            st[sp++] = &it[i];
    }
    free(st);
    free(it);
    free(node_seq);
    free(node);
    free(f);
}
