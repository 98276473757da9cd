/* PyTorch profiler chrome traces, the aggregation: the events read by torch.c, sorted per thread,
 * into self times and FLOPs per operator (the costs credited by torch-attribute.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/strings.h"
#include "torch-internal.h"

static int ev_cmp(const void *a_, const void *b_)
{
    const ev *a = a_, *b = b_;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;
    /* a `within` range encloses the operators it starts with */
    return (int)b->kind - (int)a->kind;
}

/*
 * Self time of every operator (its duration minus its direct children's on the same thread) and
 * FLOPs: an operator recording FLOPs hands them to the operator of its subtree that holds the most
 * self time (aten::conv2d records them, aten::mkldnn_convolution spends the time), so FLOPs and
 * time meet in one kernel; FLOPs recorded inside a subtree that already has them are not added.
 */
void rt_torch_aggregate(reader *r, rt_warnings *w)
{
    size_t n = r->n_evs;
    if (n > 0)
        qsort(r->evs, n, sizeof *r->evs, ev_cmp);
    double *self = rt_xcalloc(n ? n : 1, sizeof *self);
    size_t *parent = rt_xmalloc((n ? n : 1) * sizeof *parent);
    size_t *subtree_end = rt_xmalloc((n ? n : 1) * sizeof *subtree_end);
    unsigned char *inside = rt_xcalloc(n ? n : 1, 1);
    size_t *stack = rt_xmalloc((n ? n : 1) * sizeof *stack);
    size_t sp = 0;
    double within_end = -1;
    uint32_t within_thread = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        ev *e = &r->evs[i];
        if (i > 0 && e->thread != r->evs[i - 1].thread) {
            while (sp > 0)
                subtree_end[stack[--sp]] = i;
        }
        if (e->kind == EV_WITHIN) {
            if (e->thread != within_thread || e->end > within_end) {
                within_thread = e->thread;
                within_end = e->end;
            }
            parent[i] = (size_t)-1;
            subtree_end[i] = i + 1;
            continue;
        }
        inside[i] = !r->within || (e->thread == within_thread && e->end <= within_end);
        if (e->kind == EV_GPU) {
            self[i] = e->end - e->ts;
            parent[i] = (size_t)-1;
            subtree_end[i] = i + 1;
            continue;
        }
        while (sp > 0 && r->evs[stack[sp - 1]].end <= e->ts)
            subtree_end[stack[--sp]] = i;
        self[i] = e->end - e->ts;
        parent[i] = sp > 0 ? stack[sp - 1] : (size_t)-1;
        if (sp > 0) {
            ev *p = &r->evs[stack[sp - 1]];
            double overlap = (e->end < p->end ? e->end : p->end) - e->ts;
            /* torch 1.13's legacy profiler rounds to whole microseconds: a child may end
             * up to 1 us after its parent without anything being wrong */
            if (e->end > p->end + 1.0)
                r->n_partial++;
            self[stack[sp - 1]] -= overlap;
        }
        stack[sp++] = i;
    }
    while (sp > 0)
        subtree_end[stack[--sp]] = n;

    double *flops = rt_xcalloc(n ? n : 1, sizeof *flops);
    if (r->ops)
        rt_torch_apply_costs(r, parent, self, inside, w);
    for (size_t i = 0; i < n && !r->ops; i++) {
        if (r->evs[i].kind != EV_CPU || r->evs[i].flops <= 0)
            continue;
        int covered = 0;
        for (size_t p = parent[i]; p != (size_t)-1; p = parent[p])
            if (r->evs[p].flops > 0) {
                covered = 1;
                break;
            }
        if (covered)
            continue;
        size_t best = i;
        for (size_t j = i + 1; j < subtree_end[i]; j++)
            if (r->evs[j].kind == EV_CPU && self[j] > self[best])
                best = j;
        flops[best] += r->evs[i].flops;
        if (!r->k[r->evs[best].key].unit)
            r->k[r->evs[best].key].unit = r->k[r->evs[i].key].unit;
    }
    for (size_t i = 0; i < n; i++) {
        const ev *e = &r->evs[i];
        if (e->kind == EV_WITHIN || !inside[i])
            continue;
        kern *k = &r->k[e->key];
        k->calls += 1;
        k->us += self[i] > 0 ? self[i] : 0;
        rt_time_samples_add(&k->samples, (self[i] > 0 ? self[i] : 0) * 1e-6);
        k->flops += flops[i];
    }
    if (r->n_partial)
        rt_warnings_add(w,
                        "'%s': %zu operators end more than 1 us after their parent on the same "
                        "thread; only the overlapping part is taken from the parent's self time",
                        r->origin, r->n_partial);
    free(self);
    r->parent = parent; /* the GPU link walks up from the operator around a launch */
    free(subtree_end);
    free(inside);
    free(stack);
    free(flops);
}
