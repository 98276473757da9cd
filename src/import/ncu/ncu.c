/* Import raw `ncu --csv` output: stream rows, join launches across files, aggregate per kernel. */
#define _GNU_SOURCE
#include <stdio.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ncu-internal.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/csv-reader.h"
#include "rooftime/import/import-check.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/import/ncu-units.h"
#include "rooftime/import/ncu.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"

/* Merge one file's view of a launch into the pending table; finish it once every file has it. */
static int ncu_merge(ncu_import *im, size_t fi, const group *g)
{
    rt_error *err = im->err;
    pending *p = rt_ncu_pend_get(im, g->key, 1);
    if (p->files == 0) {
        p->pid = g->pid;
        p->id = g->id;
        p->kname = g->kname;
        p->sm = g->sm;
        p->first_file = (int)fi;
        p->first_line = g->line;
    } else if (p->kname != g->kname) {
        char a[160], b[160];
        snprintf(im->order_msg, sizeof im->order_msg,
                 "launch %ld: kernel '%s' in %s (line %lu) but '%s' in %s (line %lu)", g->id,
                 rt_ncu_short(im->names.key[p->kname], a, sizeof a), im->f[p->first_file].path,
                 p->first_line, rt_ncu_short(im->names.key[g->kname], b, sizeof b), im->f[fi].path,
                 g->line);
        if ((int)fi != p->first_file && !im->opt->per_launch) {
            im->reorder = 1; /* the caller joins per kernel name instead */
            rt_error_set(err, "%s", im->order_msg);
            return -1;
        }
        rt_error_set(err, "%s%s", im->order_msg,
                     (int)fi != p->first_file
                         ? ": the files list launches in different orders (separate runs of a "
                           "multi-threaded framework do), so no launch can be matched across "
                           "them; --per-launch needs one launch order in every file (without it "
                           "launches are joined per kernel name)"
                         : "");
        return -1;
    } else if ((p->files >> fi) & 1) {
        rt_error_set(err,
                     "%s: line %lu: launch %ld of process %ld appears twice (rows not "
                     "together)",
                     im->f[fi].path, g->line, g->id, g->pid);
        return -1;
    }
    p->na |= g->na;
    uint64_t add = g->present & ~p->present;
    for (uint64_t m = add; m; m &= m - 1) {
        int s = __builtin_ctzll(m);
        p->value[s] = g->value[s];
    }
    p->present |= add;
    p->files |= (uint64_t)1 << fi;
    if (g->failed)
        p->failed_files |= (uint64_t)1 << fi;
    if (p->files == im->all_files) {
        if (rt_ncu_finish(im, p) != 0)
            return -1;
        rt_ncu_pend_remove(im, g->key);
    }
    return 0;
}

/* Choose, per quantity and architecture, the first formula in scope whose metrics the files
 * hold (sms: the architectures of the files' first launches). */
static int ncu_choose(ncu_import *im, uint64_t avail, const int *sms, size_t n_sms)
{
    rt_error *err = im->err;
    uint64_t tmask = im->map.cycles.metrics | im->map.rate.metrics;
    uint64_t dmask = im->map.duration.metrics;
    if ((tmask & avail) != tmask && im->map.has_duration && (dmask & avail) == dmask) {
        im->by_duration = 1; /* no cycles or no rate: ncu's own duration (ncu 2025 scripts) */
        tmask = dmask;
    }
    if ((tmask & avail) != tmask) {
        int s = __builtin_ctzll(tmask & ~avail);
        rt_error_set(err,
                     "no time: metric '%s'%s%s%s is in none of the inputs%s (collect it with "
                     "`rooftime ncu-metrics`)",
                     im->map.metric[s], im->map.has_duration ? " (or '" : "",
                     im->map.has_duration ? im->map.duration.e.text : "",
                     im->map.has_duration ? "')" : "",
                     (im->na_seen & tmask) ? " with a value (ncu wrote n/a)" : "");
        if (im->nf == 1)
            rt_error_prefix(err, "%s", im->f[0].path);
        return -1;
    }
    im->tmask = tmask;
    im->needed = tmask;
    im->chosen = rt_xcalloc(im->map.n_q + 1, sizeof *im->chosen);
    int *lacking = rt_xcalloc(im->map.n_q + 1, sizeof *lacking);
    size_t n_lacking = 0;
    int lift = im->opt->tensor_factor > 0;
    /* Warnings for the architectures of the files' first launches; formulas for every one the
     * mapping distinguishes, so that a later launch of another finds its own. */
    rt_ncu_map_choose(&im->map, avail, sms, n_sms, lift, im->chosen, lacking, &n_lacking);
    int *all = rt_xcalloc(im->map.n_arch + 2 * im->map.n_q + n_sms + 1, sizeof *all);
    size_t n_all = rt_ncu_map_archs(&im->map, sms, n_sms, all);
    size_t unused;
    int *spare = rt_xcalloc(im->map.n_q + 1, sizeof *spare);
    im->nchosen = rt_ncu_map_choose(&im->map, avail, all, n_all, lift, im->chosen, spare, &unused);
    free(spare);
    free(all);
    for (size_t i = 0; i < n_lacking; i++) {
        const rt_ncu_quantity *q = &im->map.q[lacking[i]];
        int s = __builtin_ctzll(q->f.metrics & ~avail);
        int na = (im->na_seen >> s) & 1;
        im->lacking[im->n_lacking++] = (rt_ncu_lack){q->quantity, s, na};
        if (im->warnings)
            rt_warnings_add(im->warnings, "%s not imported: metric '%s' %s", q->quantity,
                            im->map.metric[s],
                            na ? "is n/a in the inputs (ncu did not collect it on this GPU)"
                               : "is in none of the inputs");
    }
    free(lacking);
    for (size_t i = 0; i < im->nchosen; i++)
        im->needed |= im->map.q[im->chosen[i]].f.metrics;
    im->on_sm = -1;
    return 0;
}

static void ncu_import_release(ncu_import *im)
{
    for (size_t i = 0; i < im->nf; i++) {
        rt_csv_free(im->f[i].csv);
        free(im->f[i].pid);
        free(im->f[i].last_raw);
    }
    free(im->f);
    for (size_t i = 0; i < im->nk; i++) {
        free(im->k[i].q);
        rt_time_samples_release(&im->k[i].launch_times);
    }
    free(im->k);
    rt_name_index_release(&im->names);
    rt_name_index_release(&im->mangled);
    free(im->kname_of);
    rt_ncu_units_release(&im->units);
    free(im->lacking);
    rt_name_index_release(&im->mnames);
    free(im->mslot);
    free(im->pool);
    free(im->free_list);
    free(im->table);
    free(im->chosen);
    free(im->launch_q);
    for (size_t i = 0; i < im->nf && im->occ; i++)
        free(im->occ[i]);
    free(im->occ);
    rt_ncu_map_release(&im->map);
}

/* Join per kernel name: the key of file fi's next launch of g's kernel is the name and the
 * launch's ordinal among that name's launches in the file. Failed launches are not counted. */
static int ncu_feed(ncu_import *im, size_t fi, group *g)
{
    if (!im->by_name)
        return ncu_merge(im, fi, g);
    if (g->failed) {
        im->failed++;
        return 0;
    }
    if (g->kname >= im->nocc) {
        size_t nn = im->nocc ? 2 * im->nocc : 64;
        while (nn <= g->kname)
            nn *= 2;
        for (size_t i = 0; i < im->nf; i++) {
            im->occ[i] = rt_xrealloc(im->occ[i], nn * sizeof *im->occ[i]);
            memset(im->occ[i] + im->nocc, 0, (nn - im->nocc) * sizeof *im->occ[i]);
        }
        im->nocc = nn;
    }
    unsigned long *occ = &im->occ[fi][g->kname];
    if (*occ >= 0xFFFFFFFFul) {
        rt_error_set(im->err, "%s: line %lu: more than 2^32 launches of one kernel", im->f[fi].path,
                     g->line);
        return -1;
    }
    g->key = ((uint64_t)g->kname << 32) | (*occ)++;
    return ncu_merge(im, fi, g);
}

/* Joined per name, every kernel must have as many launches in each file. */
static int ncu_check_counts(ncu_import *im)
{
    char sbuf[160];
    for (size_t k = 0; k < im->nocc; k++)
        for (size_t fi = 1; fi < im->nf; fi++) {
            unsigned long a = im->occ[0][k], b = im->occ[fi][k];
            if (a == b)
                continue;
            /* files of the same metrics are not one run's metrics in several files: most
             * likely separate runs (one ncu run per kernel), which no join can pair */
            int same = im->f[0].metrics && im->f[0].metrics == im->f[fi].metrics;
            rt_error_set(im->err,
                         "kernel '%s': %lu launch%s in %s but %lu in %s; the files list launches "
                         "in different orders, so they are joined per kernel name, which needs "
                         "the same number of launches of each kernel in every file%s%s",
                         rt_ncu_short(im->names.key[k], sbuf, sizeof sbuf), a, a == 1 ? "" : "es",
                         im->f[0].path, b, im->f[fi].path,
                         im->failed ? " (failed launches not counted)" : "",
                         same ? ". Both files hold the same metrics: they look like separate ncu "
                                "runs, not one run's metrics split across files; import each on "
                                "its own (-o a.json, -o b.json) and give `rooftime analyze` both "
                                "profiles"
                              : "");
            return -1;
        }
    return 0;
}

/* The mapping, the architecture and the files' headers. */
static int ncu_setup(ncu_import *im, const char *const *paths, size_t n, int by_name,
                     const char *mpath, rt_error *err)
{
    const rt_ncu_options *opt = im->opt;
    if (rt_ncu_map_load_recipe(mpath, opt->recipe, &im->map, err) != 0 ||
        rt_ncu_units_load(NULL, &im->units, err) != 0)
        return -1;
    im->lacking = rt_xcalloc(im->map.n_q + 1, sizeof *im->lacking);
    im->default_sm = im->map.default_sm;
    if (opt->arch) {
        im->default_sm = rt_ncu_parse_arch(opt->arch);
        if (im->default_sm < 0) {
            rt_error_set(err, "'%s' is not an architecture like sm_70", opt->arch);
            return -1;
        }
    }
    if (opt->tensor_factor > 0 && im->map.tensor_factor_const < 0) {
        rt_error_set(err, "%s: the mapping has no tensor_factor constant to override", mpath);
        return -1;
    }
    im->f = rt_xcalloc(n, sizeof *im->f);
    im->nf = n;
    im->by_name = by_name;
    if (by_name)
        im->occ = rt_xcalloc(n, sizeof *im->occ);
    im->all_files = n == 64 ? ~0ull : (((uint64_t)1 << n) - 1);
    for (size_t i = 0; i < n; i++) {
        ncu_file *f = &im->f[i];
        f->path = paths[i];
        f->csv = rt_csv_open(paths[i], err);
        if (!f->csv || rt_ncu_find_header(im, f) != 0)
            return -1;
    }
    return 0;
}

/* First launch of each file into first[]: which metrics it holds decides the formulas. */
static int ncu_first_launches(ncu_import *im, group *first, rt_error *err)
{
    size_t n = im->nf;
    uint64_t avail = 0;
    int *sms = rt_xcalloc(n, sizeof *sms);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        int r = rt_ncu_next_group(im, &im->f[i], &first[i]);
        if (r == 0)
            rt_error_set(err, "%s: line %lu: no data rows after the header", im->f[i].path,
                         rt_csv_line(im->f[i].csv));
        if (r <= 0) {
            rc = -1;
            break;
        }
        if (im->f[i].col[COL_LABEL] >= 0 && !first[i].present && !first[i].na) {
            rt_ncu_section_error(im, &im->f[i], first[i].sm);
            rc = -1;
            break;
        }
        im->f[i].metrics = first[i].present;
        im->na_seen |= first[i].na & ~first[i].present;
        avail |= first[i].present;
        sms[i] = first[i].sm;
    }
    if (rc == 0)
        rc = ncu_choose(im, avail, sms, n);
    free(sms);
    if (rc != 0)
        return -1;
    im->launch_q = rt_xcalloc(im->nchosen + 1, sizeof *im->launch_q);
    if (im->opt->tensor_factor > 0)
        for (size_t a = 0; a < im->map.n_arch; a++)
            im->map.arch[a].value[im->map.tensor_factor_const] = im->opt->tensor_factor;
    return 0;
}

/* Say what was assumed where it matters: the architecture of a file without a CC column (tensor
 * FLOPs), and launch_time joined per name. Returns whether one file holds every metric of the
 * time (then a launch's own time is known). */
static int ncu_note_assumptions(ncu_import *im)
{
    const rt_ncu_options *opt = im->opt;
    size_t n = im->nf;
    int no_cc = -1;
    for (size_t i = 0; i < n; i++)
        if (im->f[i].col[COL_CC] < 0 && no_cc < 0)
            no_cc = (int)i;
    if (no_cc >= 0 && !opt->arch && opt->tensor_factor <= 0 && im->warnings &&
        im->map.tensor_factor_const >= 0)
        for (size_t i = 0; i < im->nchosen; i++)
            if (strcmp(im->map.q[im->chosen[i]].quantity, "flops.tensor") == 0) {
                const double *cst = rt_ncu_map_constants(&im->map, im->default_sm);
                rt_warnings_add(im->warnings,
                                "%s: no CC column: sm_%d assumed, %g FLOPs per tensor instruction "
                                "(--arch or --tensor-factor to change)",
                                im->f[no_cc].path, im->default_sm,
                                cst ? cst[im->map.tensor_factor_const] : NAN);
                break;
            }
    /* Joined per name, a launch's metrics from different files come from the k-th launches of
     * its kernel: the same launch only where the orders agree. Sums per kernel of formulas
     * linear in the metrics do not depend on that; launch_time does. */
    uint64_t tmask = im->tmask;
    int time_in_one = 0;
    for (size_t i = 0; i < n; i++)
        time_in_one |= (im->f[i].metrics & tmask) == tmask;
    for (size_t i = 0; im->by_name && im->warnings && i < im->nchosen; i++) {
        const rt_ncu_formula *f = &im->map.q[im->chosen[i]].f;
        uint64_t need = f->metrics | (f->uses_time ? tmask : 0);
        int one = 0;
        for (size_t j = 0; j < n; j++)
            one |= (im->f[j].metrics & need) == need;
        if (f->uses_time && !one)
            rt_warnings_add(im->warnings,
                            "%s uses launch_time, which a join per kernel name takes from "
                            "another launch of the kernel when its metrics are in different "
                            "files: approximate",
                            im->map.q[im->chosen[i]].quantity);
    }
    return time_in_one;
}

/* Every launch of every file joined: the first ones, then one from each file in turn (launches in
 * the same order in every file join at once), then the launches some file never had. */
static int ncu_join_all(ncu_import *im, group *first, group *g)
{
    for (size_t i = 0; i < im->nf; i++)
        if (ncu_feed(im, i, &first[i]) != 0)
            return -1;
    for (int progress = 1; progress;) {
        progress = 0;
        for (size_t i = 0; i < im->nf; i++) {
            int r = rt_ncu_next_group(im, &im->f[i], g);
            if (r < 0 || (r > 0 && ncu_feed(im, i, g) != 0))
                return -1;
            progress |= r > 0;
        }
    }
    if (im->by_name && ncu_check_counts(im) != 0)
        return -1;
    while (im->nlive > 0) {
        pending *p = NULL;
        for (size_t j = 0; j < im->ntable; j++)
            if (im->table[j] >= 0 && (!p || im->pool[im->table[j]].key < p->key))
                p = &im->pool[im->table[j]];
        if (rt_ncu_finish(im, p) != 0)
            return -1;
        rt_ncu_pend_remove(im, p->key);
    }
    return 0;
}

/* One pass over the files: joined by launch ID, or per kernel name when by_name is set. Returns 0,
 * -1 on error, 1 when the files' launch orders differ (*order_msg says where) and by_name is not
 * set. */
static int ncu_attempt(const char *const *paths, size_t n, const rt_ncu_options *opt, int by_name,
                       rt_profile **out, rt_warnings *w, char *order_msg, size_t order_len,
                       rt_error *err)
{
    ncu_import im = {.opt = opt, .warnings = w, .err = err, .per_launch = NULL};
    int rc = -1;
    rt_profile *prof = rt_profile_new();
    group *g = rt_xmalloc(sizeof *g), *first = rt_xcalloc(n, sizeof *first);
    char *mpath = opt->metrics_file ? rt_strdup(opt->metrics_file)
                                    : rt_asprintf("%s/ncu/metrics.json", rt_datadir());
    if (opt->per_launch)
        im.per_launch = prof;
    if (ncu_setup(&im, paths, n, by_name, mpath, err) != 0 ||
        ncu_first_launches(&im, first, err) != 0)
        goto done;
    int time_in_one = ncu_note_assumptions(&im);
    if (ncu_join_all(&im, first, g) != 0)
        goto done;
    rt_ncu_profile_kernels(&im, prof, time_in_one);
    rt_ncu_profile_describe(&im, prof, paths);
    *out = prof;
    prof = NULL;
    rc = 0;
done:
    if (rc != 0 && im.reorder) {
        snprintf(order_msg, order_len, "%s", im.order_msg);
        rc = 1;
    }
    rt_profile_free(prof);
    ncu_import_release(&im);
    free(first);
    free(g);
    free(mpath);
    return rc;
}

int rt_import_ncu(const char *const *paths, size_t n, const rt_ncu_options *opt, rt_profile **out,
                  rt_warnings *w, rt_error *err)
{
    rt_ncu_options dflt = {0};
    if (!opt)
        opt = &dflt;
    *out = NULL;
    if (n == 0) {
        rt_error_set(err, "no input files");
        return -1;
    }
    if (n > NCU_MAX_FILES) {
        rt_error_set(err, "at most %d input files (one per metric is about 15)", NCU_MAX_FILES);
        return -1;
    }
    /* Joined by launch ID first; its warnings are kept only if that join is the one used. */
    rt_warnings first = {0};
    char order[600] = "";
    int rc = ncu_attempt(paths, n, opt, 0, out, w ? &first : NULL, order, sizeof order, err);
    if (rc == 1) {
        rt_warnings_release(&first);
        rc = ncu_attempt(paths, n, opt, 1, out, w ? &first : NULL, order, sizeof order, err);
        if (rc == 0 && w)
            rt_warnings_add(w,
                            "the files list launches in different orders (%s): joined per kernel "
                            "name, as the authors' scripts do (every kernel has the same number "
                            "of launches in each file)",
                            order);
    }
    for (size_t i = 0; w && i < first.n; i++)
        rt_warnings_add(w, "%s", first.msg[i]);
    rt_warnings_release(&first);
    return rc == 0 ? rt_import_check(out, paths[0], err) : -1;
}
