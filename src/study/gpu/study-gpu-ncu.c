/* The GPU study's ncu run: on three configs (the default point, forward pass) the client runs once
 * more under Nsight Compute with the metrics of `rooftime ncu-metrics` (base units, mangled names;
 * --clock-control base, else none, or none alone: study --gpu --ncu-clock-control none), and the
 * study's profile of that config is compared with ncu's (rt_study_gpu_crosscheck). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rooftime/core/profile.h"
#include "rooftime/import/ncu-metric-list.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/import/ncu.h"
#include "rooftime/study/study-gpu-crosscheck.h"
#include "rooftime/study/study-gpu-ncu.h"
#include "rooftime/study/study-gpu-plan.h"
#include "rooftime/study/study-gpu-run.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/error.h"
#include "rooftime/util/spawn.h"
#include "rooftime/util/strings.h"

/* ncu: $ROOFTIME_NCU, else the first in PATH, else the CUDA toolkit's; NULL when none. */
static char *find_ncu(void)
{
    const char *env = getenv("ROOFTIME_NCU");
    if (env && *env)
        return access(env, X_OK) == 0 ? rt_strdup(env) : NULL;
    const char *path = getenv("PATH");
    char *found = NULL;
    for (const char *s = path ? path : ""; *s && !found;) {
        size_t l = strcspn(s, ":");
        char *cand = rt_asprintf("%.*s/ncu", (int)l, s);
        if (l && access(cand, X_OK) == 0)
            found = cand;
        else
            free(cand);
        s += l + (s[l] == ':');
    }
    if (!found && access("/usr/local/cuda/bin/ncu", X_OK) == 0)
        found = rt_strdup("/usr/local/cuda/bin/ncu");
    return found;
}

/* The study's profile of plan p's forward pass. */
static const rt_profile *study_profile(const rt_study_gpu_result *r, const rt_study_gpu_plan *p)
{
    for (size_t i = 0; i < r->n_profiles; i++) {
        const rt_tags *t = &r->profiles[i]->tags;
        const char *v = rt_tags_get(t, "variant");
        const char *im = rt_tags_get(t, "implementation"), *pr = rt_tags_get(t, "precision");
        const char *op = rt_tags_get(t, "operation"), *ps = rt_tags_get(t, "pass");
        if (im && pr && op && ps && strcmp(im, rt_gpu_framework_name(p->framework)) == 0 &&
            strcmp(pr, rt_gpu_prec_name(p->precision)) == 0 &&
            strcmp(op, rt_study_op_name(p->op)) == 0 && strcmp(ps, "forward") == 0 &&
            strcmp(v ? v : "", p->variant) == 0)
            return r->profiles[i];
    }
    return NULL;
}

/* The client of plan under ncu, its CSV table into csv and ncu's messages into log, with the given
 * --clock-control: ncu's exit code, or -1 with the reason among the cross-check's lines. Base
 * units (bytes, not "Mbyte" with three digits) and mangled kernel names, which import ncu
 * demangles as the collector does. */
static int run_ncu(const rt_study_gpu_runner *g, const char *ncu, const char *metrics,
                   const rt_study_gpu_plan *p, const char *plan, const char *csv, const char *log,
                   const char *clock, rt_study_gpu_result *r)
{
    char *argv[] = {(char *)ncu,
                    "--csv",
                    "--print-units",
                    "base",
                    "--print-kernel-base",
                    "mangled",
                    "--clock-control",
                    (char *)clock,
                    "--target-processes",
                    "all",
                    "--metrics",
                    (char *)metrics,
                    (char *)g->python,
                    g->scripts[p->framework],
                    "--plan",
                    (char *)plan,
                    NULL};
    FILE *fp = fopen(csv, "w"); /* the spawner opens stdout_path without creating it */
    if (!fp) {
        rt_warnings_add(&r->crosscheck, "%s: cannot create '%s': %s", p->name, csv,
                        strerror(errno));
        return -1;
    }
    fclose(fp);
    rt_spawn_opts so = {.stdout_path = csv, .stderr_path = log, .close_fd = -1};
    rt_child child;
    rt_error err = {{0}};
    if (g->progress) {
        char line[96];
        snprintf(line, sizeof line, "the default point's forward pass (--clock-control %s)", clock);
        g->progress(g->progress_ud, (size_t)(p - g->plans), "ncu", line);
    }
    if (rt_spawn(argv, &so, &child, &err) != 0) {
        rt_warnings_add(&r->crosscheck, "%s: %s", p->name, err.msg);
        return -1;
    }
    return rt_spawn_wait(&child);
}

/* One config: the client under ncu, imported, compared. When --clock-control base fails (a VM
 * may refuse to lock the clocks), once more with --clock-control none, said among the lines;
 * with base false, none alone. */
static void crosscheck_plan(const rt_study_gpu_runner *g, const char *ncu, const char *metrics,
                            bool base, const rt_study_gpu_plan *p, const rt_profile *ours,
                            rt_study_gpu_result *r)
{
    char *plan = rt_asprintf("%s/ncu/%s.json", g->dir, p->name);
    char *csv = rt_asprintf("%s/ncu/%s.csv", g->dir, p->name);
    char *log = rt_asprintf("%s/ncu/%s.log", g->dir, p->name);
    char *log_base = rt_asprintf("%s/ncu/%s.clock-base.log", g->dir, p->name);
    char *json = rt_study_gpu_plan_json(p, g->so, true, 0);
    rt_error err = {{0}};
    rt_profile *theirs = NULL;
    rt_warnings w = {0};
    if (rt_write_file_atomic(plan, json, strlen(json), &err) != 0) {
        rt_warnings_add(&r->crosscheck, "%s: %s", p->name, err.msg);
        goto out;
    }
    int rc = run_ncu(g, ncu, metrics, p, plan, csv, log, base ? "base" : "none", r);
    if (rc > 0 && base) {
        if (rename(log, log_base) != 0)
            rt_warnings_add(&r->crosscheck, "%s: cannot keep '%s' as '%s': %s", p->name, log,
                            log_base, strerror(errno));
        rc = run_ncu(g, ncu, metrics, p, plan, csv, log, "none", r);
        rt_warnings_add(&r->crosscheck,
                        "%s: ncu --clock-control base failed (log %s): ran with "
                        "--clock-control none, exit %d",
                        p->name, log_base, rc);
    }
    if (rc != 0) {
        if (rc > 0)
            rt_warnings_add(&r->crosscheck, "%s: ncu exited with code %d (log %s)", p->name, rc,
                            log);
        goto out;
    }
    const char *paths[] = {csv};
    rt_ncu_options no = {.allow_missing = true};
    if (rt_import_ncu(paths, 1, &no, &theirs, &w, &err) != 0) {
        rt_warnings_add(&r->crosscheck, "%s: %s", p->name, err.msg);
        goto out;
    }
    char *what = rt_asprintf("%s (default point, forward)", p->name);
    rt_study_gpu_crosscheck(ours, &p->points[0], theirs, RT_STUDY_GPU_CROSSCHECK_TOLERANCE, what,
                            &r->crosscheck);
    free(what);
out:
    rt_profile_free(theirs);
    rt_warnings_release(&w);
    free(json);
    free(plan);
    free(csv);
    free(log);
    free(log_base);
}

void rt_study_gpu_ncu_crosscheck(const rt_study_gpu_runner *g, int sm, bool clock_base,
                                 rt_study_gpu_result *r)
{
    char *ncu = find_ncu();
    if (!ncu) {
        rt_warnings_add(&r->crosscheck, "Skipped: ncu was not found ($ROOFTIME_NCU, PATH, "
                                        "/usr/local/cuda/bin/ncu).");
        return;
    }
    rt_ncu_metric_list l = {0};
    rt_error err = {{0}};
    char *dir = rt_asprintf("%s/ncu", g->dir);
    if (rt_ncu_metric_list_load(NULL, "throughput", sm, &l, &err) != 0 ||
        rt_mkdir_p(dir, &err) != 0) {
        rt_warnings_add(&r->crosscheck, "Skipped: %s", err.msg);
        free(dir);
        free(ncu);
        rt_ncu_metric_list_release(&l);
        return;
    }
    size_t len = 1;
    for (size_t i = 0; i < l.n; i++)
        len += strlen(l.metric[i]) + 1;
    char *metrics = rt_xcalloc(len, 1);
    for (size_t i = 0; i < l.n; i++)
        snprintf(metrics + strlen(metrics), len - strlen(metrics), "%s%s", i ? "," : "",
                 l.metric[i]);
    /* three configs: conv2d at fp32 and fp16 and the LSTM at fp32, as far as they ran */
    static const char *const want[] = {"pytorch-conv2d-fp32", "pytorch-conv2d-fp16",
                                       "pytorch-lstm-fp32",   "jax-conv2d-fp32",
                                       "jax-lstm-fp32",       "jax-conv2d-fp16"};
    size_t done = 0;
    for (size_t w = 0; w < sizeof want / sizeof want[0] && done < 3; w++)
        for (size_t i = 0; i < g->n_plans; i++) {
            const rt_profile *ours = study_profile(r, &g->plans[i]);
            if (strcmp(g->plans[i].name, want[w]) != 0 || !ours)
                continue;
            crosscheck_plan(g, ncu, metrics, clock_base, &g->plans[i], ours, r);
            done++;
        }
    if (!done)
        rt_warnings_add(&r->crosscheck, "Skipped: none of the cross-check's configs ran.");
    free(metrics);
    free(dir);
    free(ncu);
    rt_ncu_metric_list_release(&l);
}
