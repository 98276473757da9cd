/* Nsight Compute import: finishing a launch once every file has given its metrics. Its metrics are
 * checked (missing ones, n/a ones), its time and formulas evaluated into its kernel's totals, or
 * into a kernel of its own with --per-launch. */
#define _GNU_SOURCE
#include <stdio.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ncu-internal.h"
#include "rooftime/util/strings.h"

static ktotal *ncu_total(ncu_import *im, uint32_t kname)
{
    if (kname >= im->nk) {
        size_t nn = im->nk ? im->nk : 64;
        while (nn <= kname)
            nn *= 2;
        im->k = rt_xrealloc(im->k, nn * sizeof *im->k);
        for (size_t i = im->nk; i < nn; i++) {
            memset(&im->k[i], 0, sizeof im->k[i]);
            im->k[i].q = NULL;
        }
        im->nk = nn;
    }
    ktotal *t = &im->k[kname];
    if (!t->q)
        t->q = rt_xcalloc(im->nchosen ? im->nchosen : 1, sizeof(double));
    return t;
}

const char *rt_ncu_short(const char *name, char *buf, size_t n)
{
    size_t l = strlen(name);
    if (l < n)
        return name;
    snprintf(buf, n, "%.*s...", (int)(n - 4), name);
    return buf;
}

/* Metrics n/a in this launch (ncu: not collected on this GPU) that its time or a formula reads:
 * the time is then unknown, an error; a formula's quantity is left out of the kernel, with
 * --allow-missing (never counted as 0), else an error. */
static int ncu_check_na(ncu_import *im, const pending *p, uint64_t na)
{
    if (!na)
        return 0;
    char sbuf[160];
    int slot = __builtin_ctzll(na & im->tmask ? na & im->tmask : na);
    im->na_seen |= na;
    if (!((na & im->tmask) == 0 && im->opt->allow_missing)) {
        rt_error_set(im->err,
                     "%s: line %lu: launch %ld of process %ld (kernel '%s'): metric '%s' is n/a "
                     "(ncu did not collect it on this GPU): %s",
                     im->f[p->first_file].path, p->first_line, p->id, p->pid,
                     rt_ncu_short(im->names.key[p->kname], sbuf, sizeof sbuf), im->map.metric[slot],
                     na & im->tmask ? "the launch has no time"
                                    : "--allow-missing leaves the quantities that read it out of "
                                      "the kernel");
        return -1;
    }
    return 0;
}

/* Every metric a file had in its first launch must be there for this launch too (n/a ones are
 * ncu_check_na's): an error, or with --allow-missing a warning and 0. */
static int ncu_check_missing(ncu_import *im, const pending *p)
{
    char sbuf[160];
    for (size_t fi = 0; fi < im->nf; fi++) {
        uint64_t want = im->f[fi].metrics & im->needed;
        uint64_t miss = want & ~p->present & ~p->na;
        if (!miss)
            continue;
        int slot = __builtin_ctzll(miss);
        int in_file = (p->files >> fi) & 1;
        char msg[1200];
        if (in_file)
            snprintf(msg, sizeof msg,
                     "launch %ld of process %ld (kernel '%s', %s line %lu): metric '%s' missing "
                     "from %s",
                     p->id, p->pid, rt_ncu_short(im->names.key[p->kname], sbuf, sizeof sbuf),
                     im->f[p->first_file].path, p->first_line, im->map.metric[slot],
                     im->f[fi].path);
        else
            snprintf(msg, sizeof msg,
                     "launch %ld of process %ld (kernel '%s') is in %s (line %lu) but missing "
                     "from %s (metric '%s')",
                     p->id, p->pid, rt_ncu_short(im->names.key[p->kname], sbuf, sizeof sbuf),
                     im->f[p->first_file].path, p->first_line, im->f[fi].path,
                     im->map.metric[slot]);
        if (!im->opt->allow_missing) {
            rt_error_set(im->err, "%s (--allow-missing counts it as 0)", msg);
            return -1;
        }
        rt_ncu_warn_limited(im, &im->missing, msg);
        break;
    }
    return 0;
}

/* The launch's own time: cycles / rate, or the mapping's duration where the inputs lack them. */
static int ncu_launch_time(ncu_import *im, const pending *p, const double *v, const double *cst,
                           double *cycles, double *rate, double *lt)
{
    if (im->by_duration) {
        *cycles = *rate = 0;
        *lt = rt_ncu_formula_eval(&im->map.duration, v, cst, 0);
    } else {
        *cycles = rt_ncu_formula_eval(&im->map.cycles, v, cst, 0);
        *rate = rt_ncu_formula_eval(&im->map.rate, v, cst, 0);
        *lt = *rate > 0 ? *cycles / *rate : 0;
    }
    if (isfinite(*lt) && *lt >= 0)
        return 0;
    if (im->by_duration)
        rt_error_set(im->err, "%s: line %lu: launch %ld: time = %s = %g is not a finite duration",
                     im->f[p->first_file].path, p->first_line, p->id, im->map.duration.e.text, *lt);
    else
        rt_error_set(im->err,
                     "%s: line %lu: launch %ld: time = cycles / rate = %g / %g is not finite",
                     im->f[p->first_file].path, p->first_line, p->id, *cycles, *rate);
    return -1;
}

/* --per-launch: the launch as a kernel of its own, tagged with its launch and process. */
static void ncu_add_launch(ncu_import *im, const pending *p, const ktotal *t, double lt)
{
    rt_kernel *k = rt_profile_add_kernel(im->per_launch, im->names.key[p->kname]);
    k->invocations = 1;
    k->time = lt;
    for (size_t i = 0; i < im->nchosen; i++) {
        if (im->chosen[i] < 0 || !((t->applied >> i) & 1) || ((t->unknown >> i) & 1))
            continue;
        const char *q = im->map.q[im->chosen[i]].quantity;
        rt_values_add(q[0] == 'f' ? &k->flops : &k->bytes, q + 6, t->q[i]);
    }
    char num[32];
    snprintf(num, sizeof num, "%ld", p->id);
    rt_tags_set(&k->tags, "launch", num);
    snprintf(num, sizeof num, "%ld", p->pid);
    rt_tags_set(&k->tags, "process", num);
}

int rt_ncu_finish(ncu_import *im, pending *p)
{
    char sbuf[160];
    if (p->failed_files && p->failed_files == p->files) {
        im->failed++; /* a failed launch in every file that has it: dropped */
        return 0;
    }
    uint64_t na = p->na & ~p->present & im->needed;
    if (ncu_check_na(im, p, na) != 0 || ncu_check_missing(im, p) != 0)
        return -1;
    double v[NCU_MAX_METRICS];
    for (size_t s = 0; s < im->map.n_metric; s++) {
        double x = ((p->present >> s) & 1) ? p->value[s] : 0;
        if (isnan(x)) {
            if ((im->needed >> s) & 1) {
                char msg[1200];
                snprintf(msg, sizeof msg,
                         "launch %ld (kernel '%s'): metric '%s' is nan, counted as 0", p->id,
                         rt_ncu_short(im->names.key[p->kname], sbuf, sizeof sbuf),
                         im->map.metric[s]);
                rt_ncu_warn_limited(im, &im->nan_values, msg);
            }
            x = 0;
        }
        v[s] = x;
    }
    /* --tensor-factor was written into every architecture's constants at the start. */
    const double *cst = rt_ncu_map_constants(&im->map, p->sm);
    double cycles, rate, lt;
    if (ncu_launch_time(im, p, v, cst, &cycles, &rate, &lt) != 0)
        return -1;
    ktotal *t;
    ktotal one = {0};
    if (im->per_launch) {
        t = &one;
        one.q = im->launch_q;
        memset(one.q, 0, (im->nchosen ? im->nchosen : 1) * sizeof *one.q);
    } else {
        t = ncu_total(im, p->kname);
    }
    t->n += 1;
    t->cycles += cycles;
    t->rate += rate;
    t->time_sum += lt;
    if (!im->per_launch)
        rt_time_samples_add(&t->launch_times, lt);
    if (im->on_sm != p->sm) {
        im->on_sm = p->sm;
        im->on_mask = rt_ncu_map_applying(&im->map, im->chosen, im->nchosen, p->sm,
                                          im->opt->tensor_factor > 0);
    }
    im->used |= im->on_mask;
    int unknown = 0;
    for (size_t i = 0; i < im->nchosen; i++) {
        if (!((im->on_mask >> i) & 1))
            continue; /* out of its scope on this architecture */
        t->applied |= (uint64_t)1 << i;
        const rt_ncu_formula *f = &im->map.q[im->chosen[i]].f;
        if (f->metrics & na) { /* reads a metric n/a here: unknown, never 0 */
            t->unknown |= (uint64_t)1 << i;
            unknown = 1;
            continue;
        }
        double x = rt_ncu_formula_eval(f, v, cst, lt);
        if (isnan(x)) {
            /* A constant the mapping lacks for this architecture. */
            char msg[512];
            snprintf(msg, sizeof msg,
                     "%s of launch %ld is undefined on sm_%d (a constant the mapping "
                     "lacks?), counted as 0",
                     im->map.q[im->chosen[i]].quantity, p->id, p->sm);
            rt_ncu_warn_limited(im, &im->nan_values, msg);
            x = 0;
        }
        if (!isfinite(x) || x < 0) {
            rt_error_set(im->err, "%s: line %lu: launch %ld: %s = %g (%s) is not a finite count",
                         im->f[p->first_file].path, p->first_line, p->id,
                         im->map.q[im->chosen[i]].quantity, x, f->e.text);
            return -1;
        }
        t->q[i] += x;
    }
    if (unknown) {
        t->na_launches++;
        im->na_values++;
    }
    if (im->per_launch)
        ncu_add_launch(im, p, t, lt);
    im->launches++;
    return 0;
}
