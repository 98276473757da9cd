/* A second look at the read curves' points inside a core's own caches that read slow: measured
 * again once every curve is swept, seconds later, and kept when the new figure is better. */
#define _GNU_SOURCE
#include "measure-internal.h"
#include "rooftime/probe/measure-plateau.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The private levels' plateaus of one read curve: out[i] for cache i (found = 0 elsewhere). */
static void private_plateaus(const rt_levels *lv, int smt, const rt_bw_swept *c, rt_plateau *out)
{
    double xs[512], ys[512], lim[8];
    const char *names[8];
    size_t np = c->n < 512 ? c->n : 512;
    for (size_t i = 0; i < np; i++) {
        xs[i] = c->pts[i].bytes;
        ys[i] = c->pts[i].bw.best;
    }
    for (int i = 0; i < lv->ncache; i++) {
        int share = lv->caches[i].shared_by < c->threads ? lv->caches[i].shared_by : c->threads;
        lim[i] = lv->caches[i].size / (share > 0 ? share : 1);
        names[i] = "L";
    }
    rt_plateau pls[9];
    memset(pls, 0, sizeof pls);
    rt_warnings w = {0};
    rt_error e;
    int rc = rt_plateau_detect(xs, ys, np, lim, names, (size_t)lv->ncache, pls, &w, &e);
    rt_warnings_release(&w);
    for (int i = 0; i < lv->ncache; i++) {
        out[i] = pls[i];
        if (rc != 0 || lv->caches[i].shared_by > smt)
            out[i].found = 0;
        if (out[i].found)
            rt_plateau_from_clean(c->pts, c->n, &out[i], true);
    }
}

/* Whether the new figure of a point beats the old one: a clean trial over none, else higher. */
static bool better(const rt_bw_point *now, const rt_bw_point *was)
{
    if ((now->bw.clean > 0) != (was->bw.clean > 0))
        return now->bw.clean > 0;
    return now->bw.best > was->bw.best;
}

/* Measure c's points idx[0..n) again with the kernel `read` and keep what is better; *kept counts
 * them. 1 when the kernel computed a wrong result (rt_bw_points). */
static int measure_again(const rt_levels_plan *pl, const rt_bw_kernel *read, rt_bw_swept *c,
                         const size_t *idx, size_t n, const rt_bw_ref *ref, int *kept,
                         rt_error *err)
{
    size_t *sizes = rt_xcalloc(n, sizeof *sizes);
    rt_bw_point *again = rt_xcalloc(n, sizeof *again);
    for (size_t k = 0; k < n; k++)
        sizes[k] = (size_t)c->pts[idx[k]].bytes;
    int rc = rt_bw_points(read, c->threads, sizes, n, pl->trials, pl->seconds, ref, again, NULL,
                          NULL, err);
    for (size_t k = 0; rc == 0 && k < n; k++)
        if (better(&again[k], &c->pts[idx[k]])) {
            c->pts[idx[k]] = again[k];
            (*kept)++;
        }
    free(sizes);
    free(again);
    return rc;
}

/*
 * The rate below which a point of level i on curve c reads slow: RT_SLOW_SAME of what the
 * plateau's points reach (rt_plateau_top), and RT_SLOW_UP of the level's best rate per thread on
 * the other curves whose threads have cores of their own times c's threads. (With more threads a
 * lower all-core clock reads below that too: such points are measured again for nothing, and the
 * better figure kept.)
 */
static double floor_of(const rt_bw_swept *cv, rt_plateau (*pl_of)[8], size_t ncv, size_t c, int i)
{
    const rt_plateau *p = &pl_of[c][i];
    double other = 0;
    for (size_t o = 0; o < ncv; o++)
        if (o != c && cv[o].kind == RT_BW_READ && pl_of[o][i].found &&
            rt_team_distinct_cores(cv[o].threads))
            other = fmax(other, pl_of[o][i].bw / cv[o].threads);
    return fmax(RT_SLOW_SAME * rt_plateau_top(cv[c].pts, cv[c].n, p->from_bytes, p->to_bytes),
                RT_SLOW_UP * other * cv[c].threads);
}

/* Whether point j of curve c lies on plateau p. */
static bool on(const rt_bw_swept *c, size_t j, const rt_plateau *p)
{
    return c->pts[j].bytes >= p->from_bytes && c->pts[j].bytes <= p->to_bytes;
}

/*
 * The points of plateau p on curve c to measure again, appended to idx[*n]: those that read slow,
 * below `floor` (floor_of) or with no clean trial. When none did, the whole stretch may have been
 * slowed alike (the host slows a core for seconds at a time): its middle point is measured again
 * first, and when it now reads RT_REVISIT_GAIN times the level or more, every other point is
 * added. 1 when the kernel computed a wrong result (rt_bw_points).
 */
static int level_points(const rt_levels_plan *pl, const rt_bw_kernel *read, rt_bw_swept *c,
                        const rt_plateau *p, double floor, const rt_bw_ref *ref, size_t *idx,
                        size_t *n, int *revisited, int *kept, rt_error *err)
{
    size_t n0 = *n, first = c->n, last = 0;
    for (size_t j = 0; j < c->n; j++) {
        if (!on(c, j, p))
            continue;
        first = j < first ? j : first;
        last = j;
        if (c->pts[j].bw.best < floor || c->pts[j].bw.clean == 0)
            idx[(*n)++] = j;
    }
    if (*n > n0 || first > last)
        return 0;
    size_t mid = (first + last) / 2;
    (*revisited)++;
    int rc = measure_again(pl, read, c, &mid, 1, ref, kept, err);
    if (rc != 0)
        return rc;
    if (c->pts[mid].bw.best >= RT_REVISIT_GAIN * p->bw)
        for (size_t j = first; j <= last; j++)
            if (j != mid && on(c, j, p))
                idx[(*n)++] = j;
    return 0;
}

int rt_levels_revisit(const rt_levels_plan *pl, const rt_bw_kernel *read, const rt_levels *lv,
                      double private_bytes, rt_bw_swept *cv, size_t ncv, int *revisited, int *kept,
                      rt_error *err)
{
    *revisited = *kept = 0;
    int smt = rt_team_smt_width();
    rt_plateau(*pl_of)[8] = rt_xcalloc(ncv ? ncv : 1, sizeof *pl_of);
    for (size_t c = 0; c < ncv; c++)
        if (cv[c].kind == RT_BW_READ)
            private_plateaus(lv, smt, &cv[c], pl_of[c]);
    const rt_bw_swept *one = NULL;
    int rc = 0;
    for (size_t c = 0; c < ncv && rc == 0; c++) { /* one thread first: the others' reference */
        if (cv[c].kind != RT_BW_READ)
            continue;
        size_t *idx = rt_xcalloc(cv[c].n ? cv[c].n : 1, sizeof *idx), n = 0;
        rt_bw_ref ref = {private_bytes, one ? one->pts : NULL, one ? one->n : 0};
        for (int i = 0; i < lv->ncache && i < 8 && rc == 0; i++) {
            const rt_plateau *p = &pl_of[c][i];
            if (p->found)
                rc = level_points(pl, read, &cv[c], p, floor_of(cv, pl_of, ncv, c, i), &ref, idx,
                                  &n, revisited, kept, err);
        }
        if (n > 0 && rc == 0) {
            *revisited += (int)n;
            rc = measure_again(pl, read, &cv[c], idx, n, &ref, kept, err);
        }
        if (cv[c].threads == 1)
            one = &cv[c];
        free(idx);
    }
    free(pl_of);
    return rc;
}
