/* `rooftime study --gpu [INDEX]`: the Conv2D and LSTM sweeps through PyTorch and JAX at each
 * precision on an NVIDIA GPU, collected in-process with rooftime's CUPTI collector; the profiles,
 * the analysis, the findings and the report, as `rooftime study` writes them for the CPU. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-cupti.h"
#include "cli-inputs.h"
#include "cli-progress.h"
#include "cli-study-gpu.h"
#include "cli-study.h"
#include "commands.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/reference-ceiling.h"
#include "rooftime/formats/analysis-format.h"
#include "rooftime/formats/gpu-arch-json.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/import/ncu-metric-list.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/probe/gpu-driver.h"
#include "rooftime/probe/gpu-measure.h"
#include "rooftime/render/report.h"
#include "rooftime/study/study-gpu-findings.h"
#include "rooftime/study/study-gpu-ncu.h"
#include "rooftime/study/study-gpu-profiles.h"
#include "rooftime/study/study-gpu-plan.h"
#include "rooftime/study/study-gpu-run.h"
#include "rooftime/study/study-scripts.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* The driver, the device, the collector, the clients: everything a run needs, checked before
 * anything is written. 0, or -1 after printing the one line that names what is missing. */
static int preconditions(cli_gpu_study *g, char **device_name)
{
    rt_cuda cu;
    rt_error err = {{0}};
    if (rt_cuda_open(&cu, &err) != 0) {
        cli_error("study --gpu: %s", err.msg);
        return -1;
    }
    int n = 0, major = 0, minor = 0;
    rt_cu_device dev = 0;
    char name[256] = "";
    int rc = -1;
    if (cu.DeviceGetCount(&n) != 0 || n < 1)
        cli_error("study --gpu: no CUDA device");
    else if (g->so.device >= n)
        cli_error("study --gpu: no CUDA device %d (this machine has %d)", g->so.device, n);
    else if (cu.DeviceGet(&dev, g->so.device) != 0 || cu.DeviceGetName(name, sizeof name, dev) ||
             cu.DeviceGetAttribute(&major, 75, dev) || cu.DeviceGetAttribute(&minor, 76, dev))
        cli_error("study --gpu: cannot query CUDA device %d", g->so.device);
    else
        rc = 0;
    rt_cuda_close(&cu);
    if (rc != 0)
        return -1;
    g->sm = major * 10 + minor;
    *device_name = rt_strdup(name);
    if (!(g->lib = cli_cupti_library())) {
        cli_error("study --gpu: " CLI_CUPTI_NOT_FOUND);
        return -1;
    }
    for (int f = 0; f < RT_GPU_FW_COUNT; f++)
        if (g->so.frameworks[f] &&
            !(g->scripts[f] = rt_study_script(rt_study_gpu_script((rt_gpu_framework)f), &err))) {
            cli_error("study --gpu: %s", err.msg);
            return -1;
        }
    rt_ncu_metric_list l = {0};
    if (rt_ncu_metric_list_load(NULL, "throughput", g->sm, &l, &err) != 0) {
        cli_error("study --gpu: %s", err.msg);
        return -1;
    }
    size_t len = 1;
    for (size_t i = 0; i < l.n; i++)
        len += strlen(l.metric[i]) + 1;
    g->metrics = rt_xcalloc(len, 1);
    for (size_t i = 0; i < l.n; i++)
        snprintf(g->metrics + strlen(g->metrics), len - strlen(g->metrics), "%s%s", i ? "," : "",
                 l.metric[i]);
    rt_ncu_metric_list_release(&l);
    return 0;
}

/* --dry-run: the plan files and the commands that would run; no GPU needed. */
static int dry_run(const cli_gpu_study *g)
{
    for (size_t i = 0; i < g->n_plans; i++) {
        const rt_study_gpu_plan *p = &g->plans[i];
        for (int m = 0; m < 2; m++) {
            char *path = rt_asprintf("%s/plans/%s%s.json", g->dir, p->name, m ? ".counters" : "");
            char *json = rt_study_gpu_plan_json(p, &g->so, m == 1, -1);
            rt_error err;
            int rc = rt_write_file_atomic(path, json, strlen(json), &err);
            free(json);
            if (rc != 0) {
                cli_error("%s", err.msg);
                free(path);
                return RT_EXIT_FAIL;
            }
            if (m == 0)
                printf("%-36s %2zu points x %zu passes, trace %d+%d, counters %d+%d "
                       "iterations: %s %s --plan %s\n",
                       p->name, p->n_points, p->n_passes, p->warmup, p->iters, p->c_warmup,
                       p->c_iters, g->python, rt_study_gpu_script(p->framework), path);
            free(path);
        }
    }
    printf("%zu clients, each run twice (trace, then counters) under the CUPTI collector; plans in "
           "%s/plans\n",
           g->n_plans, g->dir);
    return RT_EXIT_OK;
}

static char *profile_path(const char *dir, const rt_profile *p)
{
    const char *v = rt_tags_get(&p->tags, "variant");
    return rt_asprintf("%s/profiles/%s-%s%s%s-%s-%s.json", dir, rt_tags_get(&p->tags, "operation"),
                       rt_tags_get(&p->tags, "implementation"), v && *v ? "-" : "",
                       v && *v ? v : "", rt_tags_get(&p->tags, "precision"),
                       rt_tags_get(&p->tags, "pass"));
}

/* The profiles, the analysis, the findings and the report from r on machine m. */
static int write_outputs(const cli_gpu_study *g, rt_machine *m, rt_mode mode,
                         rt_study_gpu_result *r)
{
    rt_error err = {{0}};
    int rc = RT_EXIT_FAIL;
    rt_analysis *a = NULL;
    rt_findings *findings = NULL;
    char *text = NULL, *path = rt_asprintf("%s/profiles", g->dir);
    if (rt_mkdir_p(path, &err) != 0) {
        cli_error("%s", err.msg);
        goto done;
    }
    for (size_t i = 0; i < r->n_profiles; i++) {
        free(path);
        path = profile_path(g->dir, r->profiles[i]);
        if (!r->profiles[i]->machine)
            r->profiles[i]->machine = rt_strdup(m->name);
        if (rt_profile_save(r->profiles[i], path, &err) != 0) {
            cli_error("%s", err.msg);
            goto done;
        }
    }
    rt_reference_choose(m, r->profiles, r->n_profiles);
    a = rt_analysis_new(m, mode, r->profiles, r->n_profiles, rt_study_gpu_group_opts(), &err);
    if (!a) {
        cli_error("analysis failed: %s", err.msg);
        goto done;
    }
    if (cli_study_write_analyses(a, g->dir) != 0)
        goto done;
    findings = rt_study_gpu_findings(a, r);
    static const char *const split[] = {"operation", "pass"};
    char title[320];
    snprintf(title, sizeof title, "rooftime study --gpu: Conv2D and LSTM on %s",
             r->device ? r->device : m->name);
    rt_report_opts ro = {.title = title,
                         .split_by = split,
                         .n_split_by = 2,
                         .series_by = "implementation",
                         .marker_by = "variant",
                         .fill_by = "precision"};
    text = cli_study_write_report(m, mode, a, r->profiles, r->n_profiles, rt_study_gpu_group_opts(),
                                  findings, &ro, g->dir);
    if (!text)
        goto done;
    fputs(text, stdout);
    printf("\nwrote %s/report.html, %s/machine.json, %zu profiles in %s/profiles, "
           "%s/analysis.{txt,json}, %s/findings.txt; collector directories in %s/collect\n",
           g->dir, g->dir, r->n_profiles, g->dir, g->dir, g->dir, g->dir);
    rc = RT_EXIT_OK;
done:
    free(path);
    free(text);
    rt_findings_free(findings);
    rt_analysis_free(a);
    return rc;
}

/* A client's progress line on stderr, or why it was skipped (mode NULL). */
static void show_client(void *ud, size_t idx, const char *mode, const char *line)
{
    const cli_gpu_study *g = ud;
    if (mode)
        fprintf(stderr, "[%5.0f s %2zu/%zu %s %s] %s\n", rt_now() - g->t0, idx + 1, g->n_plans,
                g->plans[idx].name, mode, line);
    else
        fprintf(stderr, "[%5.0f s %2zu/%zu %s] skipped: %s\n", rt_now() - g->t0, idx + 1,
                g->n_plans, g->plans[idx].name, line);
}

/* How the study wing runs the clients, with their progress on stderr. */
static rt_study_gpu_runner runner(cli_gpu_study *g)
{
    return (rt_study_gpu_runner){.so = &g->so,
                                 .plans = g->plans,
                                 .n_plans = g->n_plans,
                                 .dir = g->dir,
                                 .from = g->from,
                                 .python = g->python,
                                 .lib = g->lib,
                                 .metrics = g->metrics,
                                 .scripts = g->scripts,
                                 .client_timeout = g->client_timeout,
                                 .progress = show_client,
                                 .progress_ud = g};
}

/* The clients run (or re-imported) by the study wing; -1 after printing why it could not go on. */
static int run_clients(cli_gpu_study *g, rt_study_gpu_result *r)
{
    rt_study_gpu_runner run = runner(g);
    rt_error err = {{0}};
    if (rt_study_gpu_run(&run, r, &err) != 0) {
        cli_error("%s", err.msg);
        return -1;
    }
    return 0;
}

/* The machine: --machine, else `machine measure --gpu` of the device (quick with --quick). */
static rt_machine *gpu_machine(const cli_gpu_study *g, const char *arg)
{
    rt_machine *m = NULL;
    rt_error err = {{0}};
    if (arg) {
        if (rt_machine_resolve(arg, &m, &err) != 0)
            cli_error("%s", err.msg);
        return m;
    }
    rt_gpu_archs archs;
    if (rt_gpu_archs_load(NULL, &archs, &err) != 0) {
        cli_error("%s", err.msg);
        return NULL;
    }
    fprintf(stderr, "[%5.0f s] measuring GPU %d (machine measure --gpu%s)\n", rt_now() - g->t0,
            g->so.device, g->so.quick ? " --quick" : "");
    cli_progress pr;
    cli_progress_init(&pr, "machine");
    rt_gpu_opts go = {.device = g->so.device,
                      .quick = g->so.quick,
                      .archs = &archs,
                      .progress = cli_progress_show,
                      .progress_ctx = &pr};
    rt_warnings skipped = {0};
    int rc = rt_gpu_measure(&go, &m, &skipped, &err);
    cli_progress_end(&pr);
    if (rc != 0) {
        cli_error("measuring the GPU failed: %s", err.msg);
        m = NULL;
    }
    for (size_t i = 0; i < skipped.n; i++)
        fprintf(stderr, "rooftime: machine: skipped: %s\n", skipped.msg[i]);
    rt_warnings_release(&skipped);
    rt_gpu_archs_release(&archs);
    return m;
}

int cli_study_gpu(int argc, char **argv)
{
    cli_gpu_study g = {.t0 = rt_now(), .tty = isatty(STDERR_FILENO)};
    rt_study_gpu_opts_init(&g.so);
    cli_study_args a = {.gpu = &g.so,
                        .dir = "rooftime-study-gpu",
                        .mode = "hier",
                        .client_timeout = 600,
                        .ncu_clock = "base"};
    int rc = cli_study_options(argc, argv, &a);
    if (rc != 0)
        return rc;
    g.from = a.from;
    g.no_ncu = a.no_ncu;
    g.client_timeout = a.client_timeout;
    g.ncu_clock = a.ncu_clock;
    rt_mode mode;
    rt_error err = {{0}};
    if (rt_mode_parse(a.mode, &mode, &err) != 0)
        return cli_usage_error("study", "--mode: %s", err.msg);
    const char *py = getenv("ROOFTIME_PYTHON");
    g.python = py && *py ? py : "python3";
    /* plans first: a request that cannot run fails before anything else */
    char *check_dir = rt_asprintf("%s/check", a.dir);
    g.so.check_dir = check_dir;
    g.dir = a.dir;
    if (rt_study_gpu_plans(&g.so, &g.plans, &g.n_plans, &err) != 0) {
        free(check_dir);
        return cli_usage_error("study", "%s", err.msg);
    }
    rt_study_gpu_result *r = rt_xcalloc(1, sizeof *r);
    rt_machine *m = NULL;
    rc = RT_EXIT_FAIL;
    if (a.dry_run) {
        char *plans = rt_asprintf("%s/plans", a.dir);
        if (rt_mkdir_p(plans, &err) != 0)
            cli_error("%s", err.msg);
        else
            rc = dry_run(&g);
        free(plans);
        goto out;
    }
    char *from_machine = g.from ? rt_asprintf("%s/machine.json", g.from) : NULL;
    if (g.from && strcmp(g.from, a.dir) == 0) {
        free(from_machine);
        rc = cli_usage_error("study", "--from: write the re-import elsewhere than '%s' (-o)",
                             g.from);
        goto out;
    }
    char *from_collect = g.from ? rt_asprintf("%s/collect", g.from) : NULL;
    struct stat st;
    if (from_collect && (stat(from_collect, &st) != 0 || !S_ISDIR(st.st_mode))) {
        cli_error("--from: '%s' is not a directory: not the output of `study --gpu`", from_collect);
        free(from_collect);
        free(from_machine);
        goto out;
    }
    free(from_collect);
    if (!g.from && preconditions(&g, &r->device) != 0) {
        free(from_machine);
        goto out;
    }
    if (rt_mkdir_p(a.dir, &err) != 0) {
        cli_error("%s", err.msg);
        free(from_machine);
        goto out;
    }
    m = gpu_machine(&g, a.machine ? a.machine : from_machine);
    free(from_machine);
    if (!m)
        goto out;
    char *mpath = rt_asprintf("%s/machine.json", a.dir);
    int src = rt_machine_save(m, mpath, &err);
    free(mpath);
    if (src != 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    r->quick = g.so.quick;
    r->warmup = g.plans[0].warmup;
    r->iters = g.plans[0].iters;
    r->c_warmup = g.plans[0].c_warmup;
    r->c_iters = g.plans[0].c_iters;
    r->check_status = -2;
    double t_study = rt_now();
    if (run_clients(&g, r) != 0)
        goto out;
    if (!g.from)
        cli_study_gpu_check(&g, r);
    if (g.from) {
        rt_warnings_add(&r->notes,
                        "Re-imported from %s (--from): nothing ran here; the check and the ncu "
                        "cross-check are not repeated.",
                        g.from);
        rt_warnings_add(&r->crosscheck, "Skipped: re-imported (--from).");
    } else if (!g.no_ncu) {
        rt_study_gpu_runner run = runner(&g);
        rt_study_gpu_ncu_crosscheck(&run, g.sm, strcmp(g.ncu_clock, "base") == 0, r);
    } else {
        rt_warnings_add(&r->crosscheck, "Skipped: --no-ncu.");
    }
    r->seconds = rt_now() - t_study;
    rc = write_outputs(&g, m, mode, r);
    if (rc == RT_EXIT_OK && r->check_status == 1) {
        cli_error("the correctness check failed (see %s/findings.txt): a framework computed a "
                  "convolution that differs from rooftime's reference",
                  a.dir);
        rc = RT_EXIT_FAIL;
    }
out:
    rt_study_gpu_plans_free(g.plans, g.n_plans);
    rt_study_gpu_result_free(r);
    rt_machine_free(m);
    free(check_dir);
    free(g.lib);
    free(g.metrics);
    for (int f = 0; f < RT_GPU_FW_COUNT; f++)
        free(g.scripts[f]);
    return rc;
}
