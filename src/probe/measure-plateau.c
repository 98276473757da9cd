/* Finds the flat stretches of a bandwidth curve and names them L1, L2, L3, DRAM from the cache
 * sizes. */
#define _GNU_SOURCE
#include "measure-internal.h"
#include "rooftime/probe/measure-plateau.h"
#include "rooftime/util/error.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rooftime-config.h"

#ifdef RT_HAVE_HWLOC
#include <hwloc.h>
#endif

/* ---- cache sizes ---- */

#ifdef RT_HAVE_HWLOC
static int caches_hwloc(rt_cache_info *c, int max)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return 0;
    int n = 0;
    if (hwloc_topology_load(topo) == 0) {
        const hwloc_obj_type_t types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
                                          HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE};
        for (int i = 0; i < 5 && n < max; i++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(topo, types[i], 0);
            if (!o || !o->attr || o->attr->cache.size == 0 ||
                o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION)
                continue;
            c[n].level = (int)o->attr->cache.depth;
            c[n].size = (double)o->attr->cache.size;
            int w = o->cpuset ? hwloc_bitmap_weight(o->cpuset) : 1;
            c[n].shared_by = w > 0 ? w : 1;
            int k = hwloc_get_nbobjs_by_type(topo, types[i]);
            c[n].instances = k > 0 ? k : 1;
            n++;
        }
    }
    hwloc_topology_destroy(topo);
    return n;
}
#endif

/* Number of CPUs in a Linux cpu list such as "0-3,8,10-11". */
static int cpulist_count(const char *s)
{
    int n = 0;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s)
            break;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        if (b >= a)
            n += (int)(b - a + 1);
        s = end;
        if (*s == ',')
            s++;
        else
            break;
    }
    return n > 0 ? n : 1;
}

static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

static int caches_sysfs(rt_cache_info *c, int max)
{
    int n = 0;
    for (int idx = 0; idx < 16 && n < max; idx++) {
        char path[128], type[32], level[16], size[32], shared[256];
        const char *base = "/sys/devices/system/cpu/cpu0/cache/index";
        snprintf(path, sizeof path, "%s%d/type", base, idx);
        if (read_line(path, type, sizeof type) != 0)
            break;
        if (strcmp(type, "Instruction") == 0)
            continue;
        snprintf(path, sizeof path, "%s%d/level", base, idx);
        if (read_line(path, level, sizeof level) != 0)
            continue;
        snprintf(path, sizeof path, "%s%d/size", base, idx);
        if (read_line(path, size, sizeof size) != 0)
            continue;
        char *end;
        double bytes = strtod(size, &end);
        if (*end == 'K')
            bytes *= 1024;
        else if (*end == 'M')
            bytes *= 1024 * 1024;
        else if (*end == 'G')
            bytes *= 1024.0 * 1024 * 1024;
        if (bytes <= 0)
            continue;
        snprintf(path, sizeof path, "%s%d/shared_cpu_list", base, idx);
        c[n].level = atoi(level);
        c[n].size = bytes;
        c[n].shared_by = read_line(path, shared, sizeof shared) == 0 ? cpulist_count(shared) : 1;
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        c[n].instances =
            cpus > c[n].shared_by ? (int)((cpus + c[n].shared_by - 1) / c[n].shared_by) : 1;
        n++;
    }
    return n;
}

int rt_cache_detect(rt_cache_info *caches, int max, const char **source)
{
    int n = 0;
    if (source)
        *source = "none";
#ifdef RT_HAVE_HWLOC
    n = caches_hwloc(caches, max);
    if (n > 0 && source)
        *source = "hwloc";
#endif
    if (n == 0) {
        n = caches_sysfs(caches, max);
        if (n > 0 && source)
            *source = "sysfs";
    }
    return n;
}

/* ---- plateaus ---- */

typedef struct segment {
    size_t first, last; /* point indices, inclusive */
} segment;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median3(double a, double b, double c)
{
    if (a > b) {
        double t = a;
        a = b;
        b = t;
    }
    return c < a ? a : c > b ? b : c;
}

/*
 * Split the (smoothed) curve into maximal runs of neighbours whose values stay
 * within RT_PLATEAU_TOLERANCE of each other, scanning left to right. A
 * transition between levels ends up as runs of one or two points.
 */
static size_t segment_curve(const double *ys, size_t n, segment *seg)
{
    size_t ns = 0, start = 0;
    double lo = ys[0], hi = ys[0];
    for (size_t i = 1; i <= n; i++) {
        if (i < n) {
            double nlo = fmin(lo, ys[i]), nhi = fmax(hi, ys[i]);
            if (nhi <= nlo * RT_PLATEAU_TOLERANCE) {
                lo = nlo;
                hi = nhi;
                continue;
            }
        }
        seg[ns].first = start;
        seg[ns].last = i - 1;
        ns++;
        if (i < n) {
            start = i;
            lo = hi = ys[i];
        }
    }
    return ns;
}

/* Fill p from the points of segment s whose working sets lie in (lo, hi]. */
static int level_from(rt_plateau *p, const double *x, const double *y, segment s, double lo,
                      double hi)
{
    double v[512];
    int m = 0;
    for (size_t i = s.first; i <= s.last && m < 512; i++)
        if (x[i] > lo && x[i] <= hi) {
            if (m == 0)
                p->from_bytes = x[i];
            p->to_bytes = x[i];
            v[m++] = y[i];
        }
    if (m < 2)
        return -1;
    qsort(v, (size_t)m, sizeof *v, cmp_double);
    p->found = 1;
    p->n_points = m;
    p->min = v[0];
    p->max = v[m - 1];
    p->bw = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
    return 0;
}

static int count_in(const double *x, segment s, double lo, double hi)
{
    int m = 0;
    for (size_t i = s.first; i <= s.last; i++)
        m += x[i] > lo && x[i] <= hi;
    return m;
}

/* The median of segment s's points in (lo, hi]. */
static double median_in(const double *x, const double *y, segment s, double lo, double hi)
{
    rt_plateau p;
    memset(&p, 0, sizeof p);
    return level_from(&p, x, y, s, lo, hi) == 0 ? p.bw : 0;
}

/*
 * The run of level j's plateau in (lo, hi] (-1: none). The run with the most points inside the
 * range; among equals, the one nearest the middle of the range (the edges are transitions), for
 * DRAM the one at the largest sizes. The first level takes the fastest run of two or more points
 * instead: nothing reads faster than it, and where the host slowed part of its stretch (another
 * virtual machine on the core's SMT sibling) the slowed run can hold more points.
 */
static int pick_run(const double *x, const double *y, const segment *seg, size_t ns, size_t j,
                    size_t k, double lo, double hi)
{
    double mid = j == 0 ? log(hi) - 1.0 : j < k ? 0.5 * (log(lo) + log(hi)) : INFINITY;
    int best = -1, best_n = 0;
    double best_d = INFINITY, best_v = 0;
    for (size_t s = 0; s < ns; s++) {
        int c = count_in(x, seg[s], lo, hi);
        if (j == 0 && k > 0) {
            double v = c >= 2 ? median_in(x, y, seg[s], lo, hi) : 0;
            if (v > best_v) {
                best = (int)s;
                best_v = v;
            }
            continue;
        }
        double center = 0.5 * (log(x[seg[s].first]) + log(x[seg[s].last]));
        double d = isinf(mid) ? -center : fabs(center - mid);
        if (c > best_n || (c == best_n && c > 0 && d < best_d)) {
            best = (int)s;
            best_n = c;
            best_d = d;
        }
    }
    return best;
}

int rt_plateau_detect(const double *x, const double *y, size_t n, const double *limits,
                      const char *const *names, size_t k, rt_plateau *out, rt_warnings *warnings,
                      rt_error *err)
{
    if (n == 0 || !x || !y) {
        rt_error_set(err, "plateau detection: empty curve");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!(y[i] > 0) || !isfinite(y[i]) || (i > 0 && !(x[i] > x[i - 1]))) {
            rt_error_set(err,
                         "plateau detection: point %zu: working sets must increase and "
                         "bandwidths be positive",
                         i + 1);
            return -1;
        }
    for (size_t j = 1; j < k; j++)
        if (!(limits[j] > limits[j - 1])) {
            rt_error_set(err, "plateau detection: cache sizes must increase");
            return -1;
        }
    /* A 3-point running median: one outlier cannot split or join plateaus. */
    double *ys = rt_xmalloc(n * sizeof *ys);
    for (size_t i = 0; i < n; i++)
        ys[i] = (i == 0 || i == n - 1) ? y[i] : median3(y[i - 1], y[i], y[i + 1]);
    segment *seg = rt_xmalloc(n * sizeof *seg);
    size_t ns = segment_curve(ys, n, seg);

    for (size_t j = 0; j <= k; j++) {
        memset(&out[j], 0, sizeof out[j]);
        snprintf(out[j].name, sizeof out[j].name, "%s", j < k ? names[j] : "DRAM");
        out[j].size_bytes = j < k ? limits[j] : 0;
    }

    if (k == 0) {
        /* No sizes: the plateaus (runs of >= 2 points) in order, the last one DRAM. */
        size_t idx[64], m = 0;
        for (size_t s = 0; s < ns && m < 64; s++)
            if (seg[s].last > seg[s].first)
                idx[m++] = s;
        if (m > 0) {
            segment last = seg[idx[m - 1]];
            level_from(&out[0], x, y, last, -INFINITY, INFINITY);
            snprintf(out[0].note, sizeof out[0].note,
                     "cache sizes unknown: the last plateau of the curve");
        }
        rt_warnings_add(warnings, "cache sizes unknown: only the DRAM plateau was named");
        free(ys);
        free(seg);
        return 0;
    }

    for (size_t j = 0; j <= k; j++) {
        /*
         * DRAM starts at twice the last cache: caches that are not strict LRU
         * (AMD's victim L3) keep serving part of a working set somewhat larger
         * than they are.
         */
        double lo = j == 0 ? -INFINITY : j < k ? limits[j - 1] : 2 * limits[j - 1];
        double hi = j < k ? limits[j] : INFINITY;
        int best = pick_run(x, y, seg, ns, j, k, lo, hi);
        char a[32], b[32];
        rt_fmt_bytes(a, sizeof a, j == 0 ? 0 : lo);
        if (j < k)
            rt_fmt_bytes(b, sizeof b, hi);
        if (best < 0 || level_from(&out[j], x, y, seg[best], lo, hi) != 0) {
            snprintf(out[j].note, sizeof out[j].note,
                     "no plateau of two or more points between %s and %s", a,
                     j < k ? b : "the end");
            rt_warnings_add(warnings, "%s: %s on the curve", out[j].name, out[j].note);
            continue;
        }
        /* Say so when two levels read off one flat run: no step between them on this machine. */
        const char *shared = NULL;
        if (j > 0 && count_in(x, seg[best], -INFINITY, lo) >= 2)
            shared = out[j - 1].name;
        char c1[32], c2[32];
        rt_fmt_bytes(c1, sizeof c1, out[j].from_bytes);
        rt_fmt_bytes(c2, sizeof c2, out[j].to_bytes);
        snprintf(out[j].note, sizeof out[j].note,
                 "median of %d points from %s to %s per thread%s%s%s", out[j].n_points, c1, c2,
                 shared ? " (one flat run with " : "", shared ? shared : "",
                 shared ? ": no step)" : "");
    }
    free(ys);
    free(seg);
    return 0;
}

/* The median of the points' medians between from and to (a plateau's typical figure). */
double rt_plateau_typical_over(const rt_bw_point *pts, size_t n, double from, double to)
{
    double v[256];
    size_t k = 0;
    for (size_t i = 0; i < n && k < 256; i++)
        if (pts[i].bytes >= from && pts[i].bytes <= to)
            v[k++] = pts[i].bw.median;
    return k ? rt_stat_of(v, k).median : 0;
}

/*
 * The rate a plateau's points reach when nothing slows them: the second highest ceiling of its
 * clean points between from and to (the highest when fewer than three), so that one point that
 * reads high (the first working set past a cache, partly still served by it) does not set it.
 */
double rt_plateau_top(const rt_bw_point *pts, size_t n, double from, double to)
{
    double top = 0, second = 0;
    int k = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i].bytes >= from && pts[i].bytes <= to && pts[i].bw.clean > 0) {
            double v = pts[i].bw.best;
            if (v > top) {
                second = top;
                top = v;
            } else if (v > second) {
                second = v;
            }
            k++;
        }
    return k >= 3 ? second : top;
}

/*
 * A plateau's ceiling from its undisturbed points: the median of the ceilings of the points
 * between from and to that kept at least one clean trial (min and max of those), when any did; a
 * point whose every trial was disturbed reads low and says nothing about the level. With trim
 * (a level inside a core's own caches, where every point reads the same rate), only the points
 * within RT_PLATEAU_FLAT of rt_plateau_top either way count: what slowed the others (the host's
 * work on the core's SMT sibling) the CPU time could not show, and one reading far above (the
 * first working set past a smaller cache, partly still served by it) is not this level. Leaves p
 * as it is when no point there was clean.
 */
void rt_plateau_from_clean(const rt_bw_point *pts, size_t n, rt_plateau *p, bool trim)
{
    double v[256], top = rt_plateau_top(pts, n, p->from_bytes, p->to_bytes);
    size_t k = 0;
    for (size_t i = 0; i < n && k < 256; i++)
        if (pts[i].bytes >= p->from_bytes && pts[i].bytes <= p->to_bytes && pts[i].bw.clean > 0 &&
            (!trim ||
             (pts[i].bw.best >= RT_PLATEAU_FLAT * top && RT_PLATEAU_FLAT * pts[i].bw.best <= top)))
            v[k++] = pts[i].bw.best;
    if (k == 0)
        return;
    rt_stat s = rt_stat_of(v, k);
    p->bw = s.median;
    p->min = s.min;
    p->max = s.max;
}
