/* Import the CUPTI collector's directory: trace rows for times, range rows for counters (through
 * the formulas of `import ncu`), joined by kernel name and launch order. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti-internal.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/csv-reader.h"
#include "rooftime/import/import-check.h"
#include "rooftime/import/cupti.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/read-file.h"
#include "rooftime/util/strings.h"

static int by_started(const void *a, const void *b)
{
    const proc *x = a, *y = b;
    if (x->started != y->started)
        return x->started < y->started ? -1 : 1;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* ---- the profile ---- */

/* Per quantity and architecture, the first formula in scope whose metrics the ranges hold (the
 * rule of `import ncu`). */
static size_t choose(cupti_import *im, int *chosen)
{
    int *sms = rt_xcalloc(im->np + 1, sizeof *sms),
        *lacking = rt_xcalloc(im->map.n_q + 1, sizeof *lacking);
    size_t n_sms = 0, n_lacking = 0;
    for (size_t i = 0; i < im->np; i++) {
        int have = 0;
        for (size_t j = 0; j < n_sms; j++)
            have |= sms[j] == im->p[i].sm;
        if (!have)
            sms[n_sms++] = im->p[i].sm;
    }
    size_t n = rt_ncu_map_choose(&im->map, im->avail, sms, n_sms, 0, chosen, lacking, &n_lacking);
    for (size_t i = 0; i < n_lacking && im->w; i++)
        rt_warnings_add(im->w, "%s not imported: the counters lack its metrics",
                        im->map.q[lacking[i]].quantity);
    /* Every chosen formula serves some process's architecture: n_sms covers them all. */
    free(sms);
    free(lacking);
    return n;
}

/* Join the i-th launch of each name with the i-th range of that name, in process order. */
static void join(cupti_import *im)
{
    size_t nn = im->names.n;
    size_t *next = rt_xcalloc(nn + 1, sizeof *next); /* next range position per name */
    size_t **pos = rt_xcalloc(nn + 1, sizeof *pos), *cnt = rt_xcalloc(nn + 1, sizeof *cnt);
    for (size_t i = 0; i < im->nr; i++)
        cnt[im->r[i].name]++;
    for (size_t k = 0; k < nn; k++)
        pos[k] = rt_xmalloc((cnt[k] + 1) * sizeof **pos);
    memset(cnt, 0, (nn + 1) * sizeof *cnt);
    for (size_t i = 0; i < im->nr; i++)
        pos[im->r[i].name][cnt[im->r[i].name]++] = i;
    size_t unjoined = 0;
    for (size_t i = 0; i < im->nl; i++) {
        uint32_t k = im->l[i].name;
        if (next[k] < cnt[k])
            im->l[i].range = (long)pos[k][next[k]++];
        else
            unjoined++;
    }
    size_t spare = 0;
    for (size_t k = 0; k < nn; k++)
        spare += cnt[k] - next[k];
    if (im->w && (unjoined || spare))
        rt_warnings_add(im->w,
                        "%s: %zu traced kernel launches found no counter range of the same name "
                        "and order (their FLOPs and bytes are 0), %zu counter ranges no launch",
                        im->dir, unjoined, spare);
    for (size_t k = 0; k < nn; k++)
        free(pos[k]);
    free(pos);
    free(cnt);
    free(next);
}

static void dims(char *buf, size_t n, const int32_t *d)
{
    snprintf(buf, n, "%" PRId32 ",%" PRId32 ",%" PRId32, d[0], d[1], d[2]);
}

/* FLOPs and bytes of range R into q (one per chosen formula); its cycles / rate time. */
static int eval_range(cupti_import *im, const range *R, const int *chosen, size_t nq,
                      double launch_time, double *q, double *own_time)
{
    const double *cst = rt_ncu_map_constants(&im->map, im->p[R->proc].sm);
    double cycles = rt_ncu_formula_eval(&im->map.cycles, R->v, cst, 0);
    double rate = rt_ncu_formula_eval(&im->map.rate, R->v, cst, 0);
    *own_time = rate > 0 ? cycles / rate : 0;
    if (launch_time < 0)
        launch_time = *own_time;
    for (size_t i = 0; i < nq; i++) {
        double x = rt_ncu_formula_eval(&im->map.q[chosen[i]].f, R->v, cst, launch_time);
        if (isnan(x))
            x = 0; /* a constant the mapping lacks for this architecture */
        if (!isfinite(x) || x < 0) {
            rt_error_set(im->err, "%s: range of kernel '%.200s': %s = %g is not a finite count",
                         im->dir, im->names.key[R->name], im->map.q[chosen[i]].quantity, x);
            return -1;
        }
        q[i] = x;
    }
    return 0;
}

static void set_quantities(cupti_import *im, rt_kernel *k, const int *chosen, size_t nq,
                           const double *q, uint64_t on)
{
    for (size_t i = 0; i < nq; i++) {
        if (!((on >> i) & 1))
            continue; /* out of its scope on this architecture */
        const char *name = im->map.q[chosen[i]].quantity;
        rt_values_add(name[0] == 'f' ? &k->flops : &k->bytes, name + 6, q[i]);
    }
}

/* The tags of one launch (or range, without a trace) kept as its own kernel. */
static void launch_tags(const cupti_import *im, rt_kernel *k, const launch *L, const range *R,
                        size_t i)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%ld", im->p[L ? L->proc : R->proc].pid);
    rt_tags_set(&k->tags, "process", buf);
    if (!L) {
        snprintf(buf, sizeof buf, "%zu", i);
        rt_tags_set(&k->tags, "range", buf);
        return;
    }
    snprintf(buf, sizeof buf, "%" PRIu32, L->corr);
    rt_tags_set(&k->tags, "launch", buf);
    snprintf(buf, sizeof buf, "%" PRIu32, L->stream);
    rt_tags_set(&k->tags, "stream", buf);
    if (L->graph) {
        snprintf(buf, sizeof buf, "%" PRIu32, L->graph);
        rt_tags_set(&k->tags, "graph", buf);
    }
    dims(buf, sizeof buf, L->grid);
    rt_tags_set(&k->tags, "grid", buf);
    dims(buf, sizeof buf, L->block);
    rt_tags_set(&k->tags, "block", buf);
    if (L->api >= 0) {
        snprintf(buf, sizeof buf, "%.3f", L->api * 1e6);
        rt_tags_set(&k->tags, "launch_call_us", buf);
    }
}

/* What an aggregated kernel (one per kernel name and tag set) gathers over its launches. */
typedef struct group {
    long kid; /* its kernel, or -1 */
    int32_t dims[6];
    int mixed;
    double api_sum, api_n, counter_time;
} group;

/* Each unit's group: its kernel name and its marks' tag set; the number of groups. */
static size_t group_units(const cupti_import *im, size_t n_units, uint32_t *gid)
{
    rt_name_index ix = {0};
    for (size_t i = 0; i < n_units; i++) {
        const launch *L = im->nl ? &im->l[i] : NULL;
        uint32_t key[2] = {L ? L->name : im->r[i].name, L ? L->set : im->r[i].set};
        gid[i] = (uint32_t)rt_name_index_intern(&ix, (const char *)key, sizeof key);
    }
    size_t n = ix.n;
    rt_name_index_release(&ix);
    return n;
}

/* Per launch (or per range, without a trace) one kernel, or aggregated per name and tag set. */
static int build(cupti_import *im, const rt_cupti_options *opt, rt_profile *prof)
{
    int *chosen = rt_xcalloc(im->map.n_q + 1, sizeof *chosen);
    size_t nq = im->nr ? choose(im, chosen) : 0;
    rt_provenance *pv = &prof->provenance;
    for (size_t i = 0; i < nq; i++)
        rt_tags_set(&pv->formulas, im->map.q[chosen[i]].quantity, im->map.q[chosen[i]].f.e.text);
    double *q = rt_xcalloc(nq + 1, sizeof *q);
    size_t n_units = im->nl ? im->nl : im->nr;
    uint32_t *gid = rt_xcalloc(n_units + 1, sizeof *gid);
    size_t ng = group_units(im, n_units, gid);
    group *gr = rt_xcalloc(ng + 1, sizeof *gr);
    for (size_t g = 0; g < ng; g++)
        gr[g].kid = -1;
    int rc = -1;
    char buf[64];
    for (size_t i = 0; i < n_units; i++) {
        const launch *L = im->nl ? &im->l[i] : NULL;
        const range *R = L ? (L->range >= 0 ? &im->r[L->range] : NULL) : &im->r[i];
        uint32_t name = L ? L->name : R->name, set = L ? L->set : R->set;
        group *G = &gr[gid[i]];
        double t = L ? (double)(L->end - L->start) * 1e-9 : -1, own = 0;
        memset(q, 0, (nq + 1) * sizeof *q);
        if (R && eval_range(im, R, chosen, nq, t, q, &own) != 0)
            goto out;
        if (R && L && !opt->per_launch) /* the counter run's own reading, for comparison */
            G->counter_time += own;
        if (t < 0)
            t = own;
        const char *kname = im->names.key[name];
        if (!kname[0])
            kname = "(unnamed range: a graph launch)";
        rt_kernel *k;
        if (opt->per_launch || G->kid < 0) {
            if (!opt->per_launch)
                G->kid = (long)prof->n_kernels;
            k = rt_profile_add_kernel(prof, kname);
            rt_cupti_set_tags(im, set, &k->tags);
            if (L) {
                memcpy(G->dims, L->grid, sizeof L->grid);
                memcpy(G->dims + 3, L->block, sizeof L->block);
            }
        } else {
            k = &prof->kernels[G->kid];
            if (L && (memcmp(G->dims, L->grid, sizeof L->grid) != 0 ||
                      memcmp(G->dims + 3, L->block, sizeof L->block) != 0))
                G->mixed = 1;
        }
        k->invocations += 1;
        k->time += t;
        if (!opt->per_launch)
            rt_kernel_add_sample(k, t); /* the spread of launch times */
        set_quantities(
            im, k, chosen, nq, q,
            rt_ncu_map_applying(&im->map, chosen, nq, im->p[L ? L->proc : R->proc].sm, 0));
        if (L && L->api >= 0) {
            G->api_sum += L->api;
            G->api_n += 1;
        }
        if (opt->per_launch)
            launch_tags(im, k, L, R, i);
    }
    if (!opt->per_launch && im->nl)
        for (size_t g = 0; g < ng; g++) {
            if (gr[g].kid < 0)
                continue;
            rt_kernel *K = &prof->kernels[gr[g].kid];
            if (!gr[g].mixed) {
                dims(buf, sizeof buf, gr[g].dims);
                rt_tags_set(&K->tags, "grid", buf);
                dims(buf, sizeof buf, gr[g].dims + 3);
                rt_tags_set(&K->tags, "block", buf);
            }
            if (gr[g].api_n > 0) {
                snprintf(buf, sizeof buf, "%.3f", gr[g].api_sum / gr[g].api_n * 1e6);
                rt_tags_set(&K->tags, "launch_call_us", buf);
            }
            if (im->nr) /* per kernel name: the kernels of one name under several tag sets add */
                rt_values_add(&pv->kernel_time_sum, K->name, gr[g].counter_time);
        }
    rc = 0;
out:
    free(chosen);
    free(q);
    free(gid);
    free(gr);
    return rc;
}

size_t rt_cupti_image_manifests(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid;
        int used = 0;
        if (sscanf(e->d_name, "images.%ld.csv%n", &pid, &used) == 1 && e->d_name[used] == '\0' &&
            pid > 0)
            n++;
    }
    closedir(d);
    return n;
}

/* The files read, the launch and range counts, the mapping and what the times are. */
static void provenance(const cupti_import *im, const char *mapping, int reevaluated,
                       rt_provenance *pv)
{
    static const char *const trace_files[] = {"kernels.%ld.csv", "launches.%ld.csv", NULL};
    static const char *const counter_files[] = {"ranges.%ld.csv", NULL};
    static const char *const image_files[] = {"images.%ld.csv", "ranges.%ld.csv", NULL};
    for (size_t i = 0; i < im->np; i++) {
        char *c = rt_asprintf("%s/collector.%ld.txt", im->dir, im->p[i].pid);
        rt_provenance_add_input(pv, c);
        free(c);
        /* Re-evaluated: the process's manifest and images stand for its ranges (read from a
         * scratch directory); a process that kept none, its own ranges. */
        const char *const *files = !im->p[i].counters ? trace_files
                                   : reevaluated      ? image_files
                                                      : counter_files;
        for (const char *const *f = files; *f; f++) {
            char *name = rt_asprintf(*f, im->p[i].pid);
            char *path = rt_asprintf("%s/%s", im->dir, name);
            int have = access(path, R_OK) == 0;
            if (have)
                rt_provenance_add_input(pv, path);
            free(path);
            free(name);
            if (have && files == image_files)
                break;
        }
    }
    /* Launches seen: the trace's when there is one, else the counter run's ranges. */
    pv->launches = (double)(im->nl ? im->nl : im->nr);
    char buf[32];
    snprintf(buf, sizeof buf, "%zu", im->nl);
    rt_tags_set(&pv->notes, "traced_launches", buf);
    snprintf(buf, sizeof buf, "%zu", im->nr);
    rt_tags_set(&pv->notes, "counter_ranges", buf);
    snprintf(buf, sizeof buf, "%zu", im->np);
    rt_tags_set(&pv->notes, "processes", buf);
    if (im->nr)
        rt_tags_set(&pv->notes, "mapping", mapping);
    rt_tags_set(&pv->notes, "time",
                im->nl ? "Activity API end - start of the trace run"
                       : "cycles / rate of the counter run (replayed kernels)");
    if (im->nl && im->nr)
        rt_tags_set(&pv->notes, "kernel_time_sum",
                    "cycles / rate of the counter run, summed per kernel name");
    size_t manifests = rt_cupti_image_manifests(im->dir);
    if (manifests) {
        char *note = rt_asprintf(
            reevaluated
                ? "%s: the raw counter images of %zu process%s (images.PID.csv), evaluated "
                  "again by this machine's CUPTI (import cupti --reevaluate)"
                : "%s: raw counter images of %zu process%s kept (images.PID.csv); `rooftime "
                  "import cupti %s --reevaluate` evaluates them again",
            im->dir, manifests, manifests == 1 ? "" : "es", im->dir);
        rt_tags_set(&pv->notes, "counter_images", note);
        free(note);
    }
}

static void release(cupti_import *im)
{
    for (size_t i = 0; i < im->np; i++) {
        free(im->p[i].device);
        free(im->p[i].version);
        free(im->p[i].marks);
    }
    free(im->p);
    for (size_t i = 0; i < im->nr; i++)
        free(im->r[i].v);
    free(im->r);
    free(im->l);
    rt_name_index_release(&im->names);
    rt_name_index_release(&im->sets);
    rt_ncu_map_release(&im->map);
}

int rt_import_cupti(const char *dir, const rt_cupti_options *opt, rt_profile **out, rt_warnings *w,
                    rt_error *err)
{
    rt_cupti_options dflt = {0};
    if (!opt)
        opt = &dflt;
    *out = NULL;
    cupti_import im = {
        .dir = dir, .ranges_dir = opt->ranges_dir ? opt->ranges_dir : dir, .err = err, .w = w};
    rt_profile *prof = NULL;
    int rc = -1;
    char *mpath = opt->metrics_file ? rt_strdup(opt->metrics_file)
                                    : rt_asprintf("%s/ncu/metrics.json", rt_datadir());
    DIR *d = opendir(dir);
    if (!d) {
        rt_error_set(err, "cannot read directory '%s': %s", dir, strerror(errno));
        goto done;
    }
    struct dirent *e;
    size_t cap = 0;
    while ((e = readdir(d)) != NULL) {
        long pid;
        int used = 0;
        if (sscanf(e->d_name, "collector.%ld.txt%n", &pid, &used) != 1 || e->d_name[used] != '\0' ||
            pid <= 0)
            continue;
        if (im.np == RT_CUPTI_MAX_PROCESSES) {
            rt_error_set(err, "%s: more than %d collector files", dir, RT_CUPTI_MAX_PROCESSES);
            closedir(d);
            goto done;
        }
        if (im.np == cap) {
            cap = cap ? 2 * cap : 8;
            im.p = rt_xrealloc(im.p, cap * sizeof *im.p);
        }
        if (rt_cupti_read_collector(&im, e->d_name, pid, &im.p[im.np]) != 0) {
            closedir(d);
            goto done;
        }
        im.np++;
    }
    closedir(d);
    if (im.np == 0) {
        rt_error_set(err,
                     "no kernel was captured: %s holds no collector output (the command never "
                     "initialised CUDA, or librooftime-cupti.so was not loaded)",
                     dir);
        goto done;
    }
    qsort(im.p, im.np, sizeof *im.p, by_started);
    if (rt_ncu_map_load(mpath, &im.map, err) != 0)
        goto done;
    for (uint32_t i = 0; i < im.np; i++)
        if (rt_cupti_read_marks(&im, i) != 0 ||
            (im.p[i].counters ? rt_cupti_read_ranges(&im, i) : rt_cupti_read_kernels(&im, i)) != 0)
            goto done;
    rt_cupti_apply_marks(&im);
    if (im.nl == 0 && im.nr == 0) {
        rt_error_set(err,
                     "no kernel was captured: %s holds collector output from %zu "
                     "process%s but no kernel (did the command launch any?)",
                     dir, im.np, im.np == 1 ? "" : "es");
        goto done;
    }
    if (im.nr) {
        uint64_t tmask = im.map.cycles.metrics | im.map.rate.metrics;
        if ((im.avail & tmask) != tmask) {
            rt_error_set(err, "%s: the counters lack the time metrics (%s, %s)", dir,
                         im.map.cycles.e.text, im.map.rate.e.text);
            goto done;
        }
    }
    if (im.nl && im.nr)
        join(&im);
    prof = rt_profile_new();
    if (build(&im, opt, prof) != 0)
        goto done;
    rt_profile_finish_spreads(prof);
    prof->tool = rt_strdup("cupti");
    prof->time_kind =
        RT_TIME_DEVICE; /* Activity end - start, or replayed cycles: launch latency is outside */
    for (size_t i = 0; i < im.np && !prof->version; i++)
        if (im.p[i].version)
            prof->version = rt_strdup(im.p[i].version);
    for (size_t i = 0; i < im.np && !prof->machine; i++)
        if (im.p[i].device)
            prof->machine = rt_strdup(im.p[i].device);
    prof->method = rt_asprintf(
        "CUPTI (librooftime-cupti.so): %s%s%s; %s",
        im.nl ? "kernel times from the Activity API (end - start)" : "", im.nl && im.nr ? ", " : "",
        im.nr ? (opt->ranges_dir
                     ? "FLOPs and bytes from Range Profiler counters (auto ranges, kernel replay), "
                       "the kept raw images evaluated again, through the formulas of "
                       "data/ncu/metrics.json, joined by kernel name and launch order"
                     : "FLOPs and bytes from Range Profiler counters (auto ranges, kernel replay) "
                       "through the formulas of data/ncu/metrics.json, joined by kernel name and "
                       "launch order")
              : "",
        opt->per_launch ? "one kernel per launch" : "aggregated per kernel name");
    if (!im.nl && w)
        rt_warnings_add(w, "%s: no trace: times are cycles / rate of the replayed kernels", dir);
    provenance(&im, im.map.label, opt->ranges_dir != NULL, &prof->provenance);
    if (rt_import_check(&prof, dir, err) != 0)
        goto done;
    *out = prof;
    prof = NULL;
    rc = 0;
done:
    rt_profile_free(prof);
    release(&im);
    free(mpath);
    return rc;
}
