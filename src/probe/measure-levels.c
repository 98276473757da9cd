/* The bandwidth stage of a machine measurement: a sweep per kernel and thread count (a kind swept
 * again with the next ISA's kernel when its kernel computes a wrong result), and the memory
 * levels named on each curve from the cache sizes. */
#define _GNU_SOURCE
#include "measure-internal.h"
#include "rooftime/core/measurement.h"
#include "rooftime/probe/measure-plateau.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static rt_spread spread_of(rt_stat s)
{
    return (rt_spread){s.median, s.min, s.max};
}

static void bw_progress(void *ctx, double f)
{
    rt_progress_report(ctx, f);
}

/* The working sets per thread of one curve. */
static rt_bw_grid sweep_grid(const rt_levels_plan *pl, const rt_levels *lv, rt_bw_kind kind, int th)
{
    /*
     * Up to the plan's total, and at least llc_mult times the thread's share of the last-level
     * cache: a victim L3 keeps serving part of a working set a few times its size, so DRAM's
     * plateau starts well beyond it (at twice the share, where the DRAM level's points begin).
     */
    const rt_cache_info *llc = lv->ncache ? &lv->caches[lv->ncache - 1] : NULL;
    double llc_share =
        llc ? llc->size / (llc->shared_by < th ? llc->shared_by : th) : 32.0 * 1024 * 1024;
    rt_bw_grid g = {2 * RT_BW_GRAIN, fmax(pl->total_max / th, pl->llc_mult * llc_share), pl->step,
                    0, 0};
    if (pl->quick && kind != RT_BW_READ) {
        /* --quick: copy, triad and update in steps of 2 up to the plan's total; the levels are
         * read's. */
        g.max = pl->total_max / th;
        g.step = 2;
    } else if (pl->quick && llc) {
        /* --quick: nothing between the last-level share and twice it, where no level lies. */
        g.skip_from = llc_share;
        g.skip_to = 2 * llc_share;
    }
    double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (phys > 0 && g.max * th > phys / 4)
        g.max = phys / 4 / th;
    return g;
}

/* Name the plateaus of one curve and add them to meas; the reference curve's go to lv too. */
/* The plateaus of one curve, into meas; with is_ref, the machine's levels into lv; with got (not
 * NULL), the plateaus and their typical rates into got[0..ncache] and typ. */
static int name_levels(const rt_bw_point *pts, size_t np, rt_bw_kind kind, int th, int is_ref,
                       double priv, rt_measurement *meas, rt_levels *lv, rt_plateau *got,
                       double *typ, rt_warnings *sk, rt_error *err)
{
    double *xs = rt_xcalloc(np ? np : 1, sizeof *xs);
    double *ys = rt_xcalloc(np ? np : 1, sizeof *ys);
    for (size_t i = 0; i < np; i++) {
        xs[i] = pts[i].bytes;
        ys[i] = pts[i].bw.best; /* levels are ceilings: the points' best clean trials */
    }
    /* Capacity per thread: a shared cache is split among the threads using it. */
    double lim[8];
    char names[8][8];
    const char *np_[8];
    for (int i = 0; i < lv->ncache; i++) {
        int share = lv->caches[i].shared_by < th ? lv->caches[i].shared_by : th;
        lim[i] = lv->caches[i].size / (share > 0 ? share : 1);
        snprintf(names[i], sizeof names[i], "L%d", lv->caches[i].level);
        np_[i] = names[i];
    }
    rt_plateau pls[9];
    rt_warnings pw = {0};
    int rc = rt_plateau_detect(xs, ys, np, lim, np_, (size_t)lv->ncache, pls, &pw, err);
    free(xs);
    free(ys);
    if (rc != 0)
        return -1;
    for (size_t i = 0; i < pw.n; i++)
        if (is_ref)
            rt_warnings_add(sk, "memory level %s", pw.msg[i]);
    rt_warnings_release(&pw);
    for (int i = 0; i <= lv->ncache; i++) {
        rt_bw_plateau *l =
            rt_measurement_add_plateau(meas, rt_bw_kind_name(kind), th, pls[i].name, pls[i].note);
        l->found = pls[i].found;
        /* A level of a core's own caches: its slow points are left out (RT_PLATEAU_FLAT). */
        if (pls[i].found)
            rt_plateau_from_clean(pts, np, &pls[i], i < lv->ncache && lv->caches[i].size <= priv);
        if (pls[i].found) {
            l->bw = (rt_spread){pls[i].bw, pls[i].min, pls[i].max};
            l->typical = rt_plateau_typical_over(pts, np, pls[i].from_bytes, pls[i].to_bytes);
            l->from_bytes = pls[i].from_bytes;
            l->to_bytes = pls[i].to_bytes;
        }
        if (is_ref) {
            lv->found[i] = pls[i];
            lv->typical[i] = l->typical;
            lv->kind[i] = kind;
            lv->n = (size_t)i + 1;
        }
        if (got) {
            got[i] = pls[i];
            typ[i] = l->typical;
        }
    }
    return 0;
}

/* A level serves reads and write-backs at once: where the update kernel (each byte read and
 * written back) moved more at a level than read did, that is the level's bandwidth, a bound no
 * kernel's traffic passes for want of write-backs; where and how large the level is stays read's.
 */
static void faster_of(rt_levels *lv, const rt_plateau *upd, const double *typ)
{
    for (size_t i = 0; i < lv->n; i++) {
        rt_plateau *p = &lv->found[i];
        if (!p->found || !upd[i].found || !(upd[i].bw > p->bw))
            continue;
        p->bw = upd[i].bw;
        p->min = upd[i].min;
        p->max = upd[i].max;
        snprintf(p->note, sizeof p->note, "%s", upd[i].note);
        lv->typical[i] = typ[i];
        lv->kind[i] = RT_BW_UPDATE;
    }
}

/* The largest working set per thread that a core's own caches hold, when each thread has a core:
 * the biggest cache shared by no more than one core's SMT siblings (0: none known). */
static double private_bytes(const rt_levels *lv)
{
    int smt = rt_team_smt_width();
    double b = 0;
    for (int i = 0; i < lv->ncache; i++)
        if (lv->caches[i].shared_by <= smt)
            b = fmax(b, lv->caches[i].size);
    return b;
}

/* The bandwidth stage under way: what it sweeps with and the curves so far. */
typedef struct bw_stage {
    const rt_levels_plan *pl;
    const int *tcounts;
    int nt;
    double lo, hi; /* the sweeps' slice of the run's progress */
    double priv;   /* private_bytes */
    rt_run_progress *pr;
    rt_levels *lv;
    rt_bw_variants v;
    rt_bw_swept *cv; /* room for RT_BW_NKINDS x nt */
    size_t ncv;
    rt_warnings *sk;
} bw_stage;

/* The curves of `kind` with kernel k, appended to st->cv: at every thread count, or at the most
 * only (update; under --quick copy and triad too). 0; 1 when k computed a wrong result (err says
 * where); -1 on other errors. */
static int sweep_curves(bw_stage *st, rt_bw_kind kind, const rt_bw_kernel *k, rt_error *err)
{
    const rt_levels_plan *pl = st->pl;
    int nt = st->nt, ncurves = RT_BW_NKINDS * nt;
    const rt_bw_swept *one = NULL; /* this kernel's one-thread curve, the others' reference */
    for (int t = 0; t < nt; t++) {
        int th = st->tcounts[t], curve_i = (int)kind * nt + t;
        /* update at the most threads only (the levels take its plateaus there, nothing else
         * reads it); --quick: copy and triad too, and the levels come from read */
        if (t != nt - 1 && (kind == RT_BW_UPDATE || (pl->quick && kind != RT_BW_READ)))
            continue;
        rt_bw_grid grid = sweep_grid(pl, st->lv, kind, th);
        char sname[64];
        snprintf(sname, sizeof sname, "bandwidth: %s, %d thread%s", rt_bw_kind_name(kind), th,
                 th > 1 ? "s" : "");
        rt_progress_stage(st->pr, sname, st->lo + (st->hi - st->lo) * curve_i / ncurves,
                          st->lo + (st->hi - st->lo) * (curve_i + 1) / ncurves);
        rt_bw_ref ref = {st->priv, one ? one->pts : NULL, one ? one->n : 0};
        rt_bw_swept *c = &st->cv[st->ncv];
        *c = (rt_bw_swept){kind, th, NULL, 0};
        int rc = rt_bw_sweep(k, th, &grid, pl->trials, pl->seconds, &ref, &c->pts, &c->n,
                             bw_progress, st->pr, err);
        if (rc != 0)
            return rc;
        st->ncv++;
        if (th == 1)
            one = c;
    }
    return 0;
}

/* Drop the curves of `kind` (those of a kernel that computed a wrong result). */
static void drop_curves(bw_stage *st, rt_bw_kind kind)
{
    size_t kept = 0;
    for (size_t c = 0; c < st->ncv; c++)
        if (st->cv[c].kind == kind)
            free(st->cv[c].pts);
        else
            st->cv[kept++] = st->cv[c];
    st->ncv = kept;
}

/*
 * The curves of `kind` with its best kernel whose trial run passed (rt_bw_variant; with why, the
 * one in use is out for that reason); a kernel that computes a wrong result in the sweep has its
 * curves dropped, and the next one sweeps the kind again. 0 also when no kernel of the kind is
 * left (rt_bw_variant said so); -1 on other errors.
 */
static int sweep_kind(bw_stage *st, rt_bw_kind kind, const char *why, rt_error *err)
{
    char again[256];
    for (const rt_bw_kernel *k = rt_bw_variant(&st->v, kind, why, st->sk); k;
         k = rt_bw_variant(&st->v, kind, again, st->sk)) {
        int rc = sweep_curves(st, kind, k, err);
        if (rc <= 0)
            return rc;
        drop_curves(st, kind);
        snprintf(again, sizeof again, "computed a wrong result %s", err->msg);
    }
    return 0;
}

/* The second look (rt_levels_revisit) at the read curves, seconds after their sweep, counted in
 * meas; a read kernel that computes a wrong result there has its curves dropped, and the next
 * one sweeps read again and has its own second look. */
static int second_look(bw_stage *st, double from, double to, rt_measurement *meas, rt_error *err)
{
    const rt_bw_kernel *read;
    while ((read = rt_bw_variant(&st->v, RT_BW_READ, NULL, st->sk))) {
        rt_progress_stage(st->pr, "bandwidth: slow points again", from, to);
        int revisited, kept;
        int rc = rt_levels_revisit(st->pl, read, st->lv, st->priv, st->cv, st->ncv, &revisited,
                                   &kept, err);
        meas->revisited_points += revisited;
        meas->revisits_kept += kept;
        if (rc <= 0)
            return rc;
        char why[320];
        snprintf(why, sizeof why, "computed a wrong result on its second look, %s", err->msg);
        drop_curves(st, RT_BW_READ);
        if (sweep_kind(st, RT_BW_READ, why, err) != 0)
            return -1;
    }
    return 0;
}

/* Curves by kernel, then thread count: the order they are swept in, and the file's. */
static int curve_order(const void *a, const void *b)
{
    const rt_bw_swept *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return (x->threads > y->threads) - (x->threads < y->threads);
}

int rt_measure_levels(const rt_levels_plan *pl, rt_isa isa, const int *tcounts, int nt, double lo,
                      double hi, rt_run_progress *pr, rt_measurement *meas, rt_levels *lv,
                      rt_warnings *sk, rt_error *err)
{
    lv->cache_source = "none";
    lv->ncache = rt_cache_detect(lv->caches, 8, &lv->cache_source);
    lv->n = 0;
    if (lv->ncache == 0)
        rt_warnings_add(sk, "cache sizes: neither hwloc nor sysfs reported any; only DRAM named");
    for (int i = 0; i < lv->ncache; i++)
        rt_measurement_add_cache(meas, lv->caches[i].level, lv->caches[i].size,
                                 lv->caches[i].shared_by);
    meas->cache_source = rt_strdup(lv->cache_source);
    double mid = hi - 0.05 * (hi - lo);
    bw_stage st = {
        .pl = pl, .tcounts = tcounts, .nt = nt, .lo = lo, .hi = mid, .pr = pr, .lv = lv, .sk = sk};
    st.priv = private_bytes(lv);
    st.cv = rt_xcalloc((size_t)(RT_BW_NKINDS * nt), sizeof *st.cv);
    rt_bw_variants_init(&st.v, pl->kernels, pl->n_kernels, isa);
    int rc = 0;
    /* read first: without it no level can be named, and nothing else is swept */
    for (int kind = 0; kind < RT_BW_NKINDS && rc == 0; kind++)
        if ((rc = sweep_kind(&st, (rt_bw_kind)kind, NULL, err)) == 0 && kind == RT_BW_READ &&
            !rt_bw_variant(&st.v, RT_BW_READ, NULL, sk))
            break;
    /* Seconds after their sweep, a second look at the read points of a core's own caches that
     * read slow. */
    if (rc == 0)
        rc = second_look(&st, mid, hi, meas, err);
    if (rc == 0 && !rt_bw_variant(&st.v, RT_BW_READ, NULL, sk)) {
        rt_error_set(err, "bandwidth: no read kernel ran right (see the skipped lines): no memory "
                          "level can be named");
        rc = -1;
    }
    rt_bw_swept *cv = st.cv;
    size_t ncv = st.ncv;
    qsort(cv, ncv, sizeof *cv, curve_order);
    for (int kind = 0; kind < RT_BW_NKINDS; kind++)
        lv->isa[kind] = rt_bw_variant_isa(&st.v, (rt_bw_kind)kind);
    rt_plateau upd[9];
    double upd_typ[9] = {0};
    bool have_upd = false;
    double priv = st.priv;
    for (size_t c = 0; c < ncv && rc == 0; c++) {
        int th = cv[c].threads;
        bool most = th == tcounts[nt - 1];
        rt_bw_curve *curve = rt_measurement_add_curve(
            meas, rt_bw_kind_name(cv[c].kind), rt_isa_name(lv->isa[cv[c].kind]), th, cv[c].n);
        for (size_t i = 0; i < cv[c].n; i++) {
            curve->bytes[i] = cv[c].pts[i].bytes;
            curve->bw[i] = spread_of(cv[c].pts[i].bw);
            curve->ceil[i] = cv[c].pts[i].bw.best;
        }
        bool upd_ref = most && cv[c].kind == RT_BW_UPDATE;
        rc = name_levels(cv[c].pts, cv[c].n, cv[c].kind, th, most && cv[c].kind == RT_BW_READ, priv,
                         meas, lv, upd_ref ? upd : NULL, upd_typ, sk, err);
        have_upd |= upd_ref && rc == 0;
    }
    if (rc == 0 && have_upd)
        faster_of(lv, upd, upd_typ);
    for (size_t c = 0; c < ncv; c++)
        free(cv[c].pts);
    free(cv);
    if (rc != 0)
        return -1;
    meas->bw_isa = rt_strdup(rt_isa_name(lv->isa[RT_BW_READ]));
    meas->bw_method = rt_strdup("read (64-bit integer sums), copy, triad (x = y + s z) and "
                                "update (x = s x + t in place, the Empirical Roofline Toolkit's) "
                                "with aligned vector loads, each thread over its own buffer; "
                                "working sets in geometric steps; bytes per pass = the working "
                                "set (STREAM counting, no write-allocate traffic), twice it for "
                                "update (read and written back); a point's "
                                "ceiling = the 0.9 quantile of its undisturbed trials; a level = "
                                "the median ceiling of the run of near-equal points (3-point "
                                "median, within 30%) with the most points between its cache "
                                "size and the one below, per thread, on read's curve at the "
                                "most threads, its bandwidth update's where update's plateau "
                                "there is faster; typical = the median of the points' medians "
                                "there");
    return 0;
}
