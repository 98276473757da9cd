/* `rooftime study --gpu`: the ncu cross-check. On three configs (the default point, forward pass)
 * the client runs once more under Nsight Compute with the metrics of `rooftime ncu-metrics`; the
 * FLOPs and bytes per invocation of the five longest kernels of the study's profile of that config
 * are compared with ncu's for the same kernel, within 5%. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-study-gpu.h"
#include "commands.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/import/ncu.h"
#include "rooftime/study/study-gpu-plan.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/error.h"
#include "rooftime/util/spawn.h"
#include "rooftime/util/strings.h"

#define CROSSCHECK_TOLERANCE 0.05

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

/* Whether kernel k ran at plan p's default point (its swept parameters' tags). */
static bool at_default(const rt_kernel *k, const rt_study_gpu_plan *p)
{
    size_t np;
    const char *const *params = rt_study_params(p->op, &np);
    for (size_t i = 0; i < np; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%ld", rt_study_point_param(&p->points[0], params[i]));
        const char *v = rt_tags_get(&k->tags, params[i]);
        if (!v || strcmp(v, buf) != 0)
            return false;
    }
    return true;
}

static const rt_kernel *ncu_kernel(const rt_profile *n, const char *name)
{
    for (size_t i = 0; i < n->n_kernels; i++)
        if (strcmp(n->kernels[i].name, name) == 0)
            return &n->kernels[i];
    size_t bl = strcspn(name, "(");
    for (size_t i = 0; i < n->n_kernels; i++)
        if (strncmp(n->kernels[i].name, name, bl) == 0 && strcspn(n->kernels[i].name, "(") == bl)
            return &n->kernels[i];
    return NULL;
}

/* "FLOPs +1.2%, HBM -7.0% (outside 5%)": per invocation, ours against ncu's; *ok false when a
 * quantity differs by more than the tolerance. */
static void compare(const rt_kernel *a, const rt_kernel *b, char *buf, size_t n, bool *ok)
{
    double fa = rt_values_sum(&a->flops) / a->invocations;
    double fb = rt_values_sum(&b->flops) / b->invocations;
    *ok = true;
    buf[0] = '\0';
    double d = fb > 0 ? fa / fb - 1 : (fa > 0 ? INFINITY : 0);
    *ok &= fabs(d) <= CROSSCHECK_TOLERANCE;
    snprintf(buf, n, "FLOPs %+.1f%%", 100 * d);
    for (size_t l = 0; l < b->bytes.n; l++) {
        double qa = rt_values_get(&a->bytes, b->bytes.v[l].key, NAN) / a->invocations;
        double qb = b->bytes.v[l].value / b->invocations;
        if (isnan(qa))
            continue;
        double e = qb > 0 ? qa / qb - 1 : (qa > 0 ? INFINITY : 0);
        *ok &= fabs(e) <= CROSSCHECK_TOLERANCE;
        snprintf(buf + strlen(buf), n - strlen(buf), ", %s %+.1f%%", b->bytes.v[l].key, 100 * e);
    }
}

/* One config: the client under ncu, imported, compared. */
static void crosscheck_plan(const cli_gpu_study *g, const char *ncu, const char *metrics,
                            const rt_study_gpu_plan *p, const rt_profile *ours,
                            rt_study_gpu_result *r)
{
    char *plan = rt_asprintf("%s/ncu/%s.json", g->dir, p->name);
    char *csv = rt_asprintf("%s/ncu/%s.csv", g->dir, p->name);
    char *log = rt_asprintf("%s/ncu/%s.log", g->dir, p->name);
    char *json = rt_study_gpu_plan_json(p, &g->so, true, 0);
    rt_error err = {{0}};
    rt_profile *theirs = NULL;
    rt_warnings w = {0};
    if (rt_write_file_atomic(plan, json, strlen(json), &err) != 0) {
        rt_warnings_add(&r->crosscheck, "%s: %s", p->name, err.msg);
        goto out;
    }
    char *argv[] = {(char *)ncu,
                    "--csv",
                    "--target-processes",
                    "all",
                    "--metrics",
                    (char *)metrics,
                    (char *)g->python,
                    g->scripts[p->framework],
                    "--plan",
                    plan,
                    NULL};
    rt_spawn_opts so = {.stdout_path = csv, .stderr_path = log, .close_fd = -1};
    rt_child child;
    fprintf(stderr, "[ncu] %s: the default point's forward pass under ncu\n", p->name);
    if (rt_spawn(argv, &so, &child, &err) != 0) {
        rt_warnings_add(&r->crosscheck, "%s: %s", p->name, err.msg);
        goto out;
    }
    int rc = rt_spawn_wait(&child);
    if (rc != 0) {
        rt_warnings_add(&r->crosscheck, "%s: ncu exited with code %d (log %s)", p->name, rc, log);
        goto out;
    }
    const char *paths[] = {csv};
    rt_ncu_options no = {.allow_missing = true};
    if (rt_import_ncu(paths, 1, &no, &theirs, &w, &err) != 0) {
        rt_warnings_add(&r->crosscheck, "%s: %s", p->name, err.msg);
        goto out;
    }
    /* the five longest kernels of ours at the default point */
    const rt_kernel *top[5] = {0};
    for (size_t i = 0; i < ours->n_kernels; i++) {
        const rt_kernel *k = &ours->kernels[i];
        if (!at_default(k, p) || !(k->invocations > 0))
            continue;
        for (int j = 0; j < 5; j++)
            if (!top[j] || k->time > top[j]->time) {
                for (int m = 4; m > j; m--)
                    top[m] = top[m - 1];
                top[j] = k;
                break;
            }
    }
    size_t agree = 0, n = 0;
    for (int j = 0; j < 5 && top[j]; j++) {
        n++;
        const rt_kernel *b = ncu_kernel(theirs, top[j]->name);
        if (!b || !(b->invocations > 0)) {
            rt_warnings_add(&r->crosscheck, "%s: %.120s: not in ncu's output", p->name,
                            top[j]->name);
            continue;
        }
        char buf[512];
        bool ok;
        compare(top[j], b, buf, sizeof buf, &ok);
        agree += ok;
        if (!ok)
            rt_warnings_add(&r->crosscheck, "%s: %.120s: DIFFERS from ncu by more than 5%%: %s",
                            p->name, top[j]->name, buf);
    }
    rt_warnings_add(&r->crosscheck,
                    "%s (default point, forward): %zu of the %zu longest kernels "
                    "agree with ncu within 5%% in FLOPs and bytes",
                    p->name, agree, n);
out:
    rt_profile_free(theirs);
    rt_warnings_release(&w);
    free(json);
    free(plan);
    free(csv);
    free(log);
}

void cli_study_gpu_crosscheck(const cli_gpu_study *g, rt_study_gpu_result *r)
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
    if (rt_ncu_metric_list_load(NULL, "throughput", g->sm, &l, &err) != 0 ||
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
            crosscheck_plan(g, ncu, metrics, &g->plans[i], ours, r);
            done++;
        }
    if (!done)
        rt_warnings_add(&r->crosscheck, "Skipped: none of the cross-check's configs ran.");
    free(metrics);
    free(dir);
    free(ncu);
    rt_ncu_metric_list_release(&l);
}
