/* Which kernel each bandwidth sweep uses: of a kind's kernels up to the ISA asked for, the best
 * whose trial run passed (guarded-run.c), and the next one when it faults or computes a wrong
 * result, each left out with a line that says so. */
#define _GNU_SOURCE
#include "measure-internal.h"
#include "rooftime/util/error.h"

#include <stdint.h>
#include <stdio.h>

/* A trial: a few passes over a buffer of 12 KiB (inside L1: microseconds; the fork costs more). */
#define RT_BW_TRIAL_BYTES (8 * RT_BW_GRAIN)
#define RT_BW_TRIAL_PASSES 4

typedef struct bw_trial {
    const rt_bw_kernel *k[RT_BW_NKINDS]; /* the kernels to try (NULL: none of that kind) */
    _Alignas(64) unsigned char buf[RT_BW_TRIAL_BYTES];
} bw_trial;

/* In the trial's child: memory writes and the kernels only (async-signal-safe); 0 when every
 * kernel computed right. */
static int bw_trial_run(long arg)
{
    bw_trial *t = (bw_trial *)(intptr_t)arg;
    for (int i = 0; i < RT_BW_NKINDS; i++)
        if (t->k[i]) {
            rt_bw_fill(t->k[i]->kind, t->buf, RT_BW_TRIAL_BYTES);
            if (rt_bw_run(t->k[i], t->buf, RT_BW_TRIAL_BYTES, RT_BW_TRIAL_PASSES) != 0)
                return -1;
        }
    return 0;
}

void rt_bw_variants_init(rt_bw_variants *v, const rt_bw_kernel *ks, size_t n, rt_isa isa)
{
    *v = (rt_bw_variants){.isa = isa};
    for (int kind = 0; kind < RT_BW_NKINDS; kind++) {
        rt_isa below = isa; /* best first: each next one the best below the one before */
        const rt_bw_kernel *k;
        while (v->n[kind] < 8 && (k = rt_bw_kernel_find(ks, n, (rt_bw_kind)kind, below))) {
            v->cand[kind][v->n[kind]++] = k;
            if (k->isa == RT_ISA_SCALAR)
                break;
            below = (rt_isa)(k->isa - 1);
        }
    }
}

/* Trial runs from the kernel in use down, until one passes; each that fails is out, its reason in
 * whys (the caller's count *nw). */
static void try_down(rt_bw_variants *v, rt_bw_kind kind, char whys[][200], size_t *nw,
                     rt_warnings *sk)
{
    bw_trial t = {{NULL}, {0}};
    for (; v->cur[kind] < v->n[kind]; v->cur[kind]++) {
        t.k[kind] = v->cand[kind][v->cur[kind]];
        char how[160];
        if (rt_guarded_trial(bw_trial_run, (long)(intptr_t)&t, "bandwidth kernels", &v->unguarded,
                             sk, how, sizeof how) == 0)
            break;
        snprintf(whys[(*nw)++], 200, "the trial run %s", how);
    }
}

/* The first time a kernel is asked for, one trial of every kind's best kernel in one child: where
 * it passes (wherever nothing goes wrong) they all have; where not, each kind has trials of its
 * own (try_down), which say which kernel failed. */
static void try_all(rt_bw_variants *v, rt_warnings *sk)
{
    bw_trial t = {{NULL}, {0}};
    for (int kind = 0; kind < RT_BW_NKINDS; kind++)
        if (!v->tried[kind] && v->cur[kind] < v->n[kind])
            t.k[kind] = v->cand[kind][v->cur[kind]];
    char how[160];
    v->tried_all = true;
    if (rt_guarded_trial(bw_trial_run, (long)(intptr_t)&t, "bandwidth kernels", &v->unguarded, sk,
                         how, sizeof how) == 0)
        for (int kind = 0; kind < RT_BW_NKINDS; kind++)
            v->tried[kind] |= t.k[kind] != NULL;
}

const rt_bw_kernel *rt_bw_variant(rt_bw_variants *v, rt_bw_kind kind, const char *why,
                                  rt_warnings *sk)
{
    size_t *cur = &v->cur[kind], n = v->n[kind], first = *cur, nw = 0;
    if (!why && !v->tried_all)
        try_all(v, sk);
    if (!why && v->tried[kind])
        return *cur < n ? v->cand[kind][*cur] : NULL;
    char whys[9][200];
    if (why && *cur < n) {
        snprintf(whys[nw++], sizeof whys[0], "%s", why);
        (*cur)++;
    }
    try_down(v, kind, whys, &nw, sk);
    if (n == 0 && !v->tried[kind])
        rt_warnings_add(sk, "%s kernel: none up to %s in this build: %s not measured",
                        rt_bw_kind_name(kind), rt_isa_name(v->isa), rt_bw_kind_name(kind));
    v->tried[kind] = true;
    const rt_bw_kernel *use = *cur < n ? v->cand[kind][*cur] : NULL;
    const char *name = rt_bw_kind_name(kind);
    for (size_t i = 0; i < nw; i++) {
        char then[64];
        if (use)
            snprintf(then, sizeof then, "%s measured with %s instead", name, rt_isa_name(use->isa));
        else
            snprintf(then, sizeof then, "%s not measured", name);
        rt_warnings_add(sk, "%s kernel (%s): %s: %s", name,
                        rt_isa_name(v->cand[kind][first + i]->isa), whys[i], then);
    }
    return use;
}

rt_isa rt_bw_variant_isa(const rt_bw_variants *v, rt_bw_kind kind)
{
    size_t cur = v->cur[kind];
    if (cur == 0 || cur >= v->n[kind])
        return v->isa;
    return v->cand[kind][cur]->isa;
}
