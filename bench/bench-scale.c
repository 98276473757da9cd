/* Benchmark: analyze, plot and report of generated profiles of 10k, 100k and 1M distinct configs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/render/chart.h"
#include "rooftime/render/report.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/error.h"

/*
 * Usage: bench-scale [--max-render N] [KERNELS...]   (default 10000 100000 1000000)
 * Run from the build directory or with ROOFTIME_DATADIR set (the V100 preset is the machine).
 *
 * Every kernel has its own tag set (one config per kernel, as with per-layer or per-shape tags):
 * layer=L<i/8> op=conv|matmul|lstm precision=fp32|bf16 batch=1..128, so configs come in families
 * of eight batch sizes. Each stage runs in a child process of its own so its peak resident memory
 * (getrusage ru_maxrss) is its own: "profile" only builds the profile (the baseline), "analyze"
 * adds rt_analysis_new in hier mode, "plot" adds the 4D chart as SVG, "report" writes the HTML
 * report (single mode, so two analyses) into a temporary folder. Times are wall seconds of the
 * stage's own call, not of building the profile. Plot and report run up to --max-render kernels
 * (default: all).
 *
 * Goals (issue 15): 1M analyze < 5 s and < 2 GB; 100k analyze < 1 s; analyze time(100k)/time(10k)
 * <= 15; plot and report of 100k < 5 s.
 */

enum { ST_PROFILE, ST_ANALYZE, ST_PLOT, ST_REPORT, ST_N };
static const char *const stage_names[ST_N] = {"profile", "analyze", "plot", "report"};

static rt_profile *generate(size_t n)
{
    static const char *const ops[3] = {"conv", "matmul", "lstm"};
    rt_profile *p = rt_profile_new();
    p->tool = strdup("bench-scale");
    rt_tags_set(&p->tags, "framework", "pt");
    char name[64], val[32];
    for (size_t i = 0; i < n; i++) {
        size_t layer = i / 8, b = (size_t)1 << (i % 8);
        snprintf(name, sizeof name, "%s_kernel_%zu", ops[layer % 3], i);
        rt_kernel *k = rt_profile_add_kernel(p, name);
        snprintf(val, sizeof val, "L%zu", layer);
        rt_tags_set(&k->tags, "layer", val);
        rt_tags_set(&k->tags, "op", ops[layer % 3]);
        rt_tags_set(&k->tags, "precision", layer % 2 ? "bf16" : "fp32");
        snprintf(val, sizeof val, "%zu", b);
        rt_tags_set(&k->tags, "batch", val);
        /* Work grows with batch and layer; AI spans launch-, bandwidth- and compute-bound. */
        double w = 1e6 * (double)b * (double)(1 + layer % 97);
        k->invocations = 1 + (double)(i % 5);
        rt_values_set(&k->flops, layer % 2 ? "tensor" : "fp32", w);
        rt_values_set(&k->bytes, "HBM", w / (1 + (double)(layer % 31)));
        rt_values_set(&k->bytes, "L2", 2 * w / (1 + (double)(layer % 31)));
        k->time = k->invocations * 5e-6 + w / 2e12;
    }
    return p;
}

static double stage_run(int stage, size_t n, const rt_machine *m, const char *dir)
{
    rt_profile *p = generate(n);
    rt_error err = {0};
    double t0 = rt_now(), t = 0;
    int rc = 0;
    if (stage == ST_ANALYZE || stage == ST_PLOT) {
        rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
        t = rt_now() - t0;
        rc = a ? 0 : -1;
        if (a && stage == ST_PLOT) {
            rt_chart_spec spec = {.view = RT_VIEW_4D, .series_by = "op", .fill_by = "precision"};
            t0 = rt_now();
            char *svg = rt_chart_svg(&spec, a, &err);
            t = rt_now() - t0;
            rc = svg ? 0 : -1;
            if (svg)
                printf("svg=%.1fMB ", (double)strlen(svg) / 1e6);
            free(svg);
        }
        rt_analysis_free(a);
    } else if (stage == ST_REPORT) {
        /* The report's cost includes the two analyses it reads (single, and hier beside it). */
        rt_report_opts o = {.series_by = "op", .fill_by = "precision"};
        rt_analysis *a = rt_analysis_new(m, RT_MODE_SINGLE, &p, 1, NULL, &err);
        rt_analysis *hier = a ? rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err) : NULL;
        rc = hier ? rt_report_write(a, hier, &p, 1, &o, dir, &err) : -1;
        rt_analysis_free(a);
        rt_analysis_free(hier);
        t = rt_now() - t0;
        struct stat st;
        char path[4200];
        snprintf(path, sizeof path, "%s/report.html", dir);
        if (rc == 0 && stat(path, &st) == 0)
            printf("page=%.1fMB ", (double)st.st_size / 1e6);
    }
    if (rc != 0)
        fprintf(stderr, "bench-scale: %s of %zu kernels failed: %s\n", stage_names[stage], n,
                err.msg);
    rt_profile_free(p);
    return rc == 0 ? t : -1;
}

/* Run one stage in a child; its seconds and peak memory (MB) come back through a pipe. */
static int stage(int st, size_t n, const rt_machine *m, const char *dir, double *secs, double *mb)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fd[0]);
        double r[2] = {stage_run(st, n, m, dir), 0};
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        r[1] = (double)ru.ru_maxrss / 1024.0;
        fflush(stdout);
        ssize_t w = write(fd[1], r, sizeof r);
        _exit(w == (ssize_t)sizeof r && r[0] >= 0 ? 0 : 1);
    }
    close(fd[1]);
    double r[2];
    ssize_t got = read(fd[0], r, sizeof r);
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    if (got != (ssize_t)sizeof r || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    *secs = r[0];
    *mb = r[1];
    return 0;
}

int main(int argc, char **argv)
{
    size_t sizes[16], ns = 0, max_render = (size_t)-1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-render") == 0 && i + 1 < argc)
            max_render = strtoul(argv[++i], NULL, 10);
        else if (ns < 16 && strtoul(argv[i], NULL, 10) > 0)
            sizes[ns++] = strtoul(argv[i], NULL, 10);
        else {
            fprintf(stderr, "usage: bench-scale [--max-render N] [KERNELS...]\n");
            return 2;
        }
    }
    if (!ns) {
        sizes[ns++] = 10000;
        sizes[ns++] = 100000;
        sizes[ns++] = 1000000;
    }
    rt_error err = {0};
    rt_machine *m = NULL;
    if (rt_machine_resolve("v100", &m, &err) != 0) {
        fprintf(stderr, "bench-scale: %s (set ROOFTIME_DATADIR to the data folder)\n", err.msg);
        return 1;
    }
    char dir[] = "/tmp/rooftime-bench-scale-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    double secs[16][ST_N] = {{0}}, mb[16][ST_N] = {{0}};
    int fail = 0;
    for (size_t s = 0; s < ns; s++)
        for (int st = 0; st < ST_N; st++) {
            secs[s][st] = -1;
            if (st >= ST_PLOT && sizes[s] > max_render)
                continue;
            printf("%8zu kernels %-8s ", sizes[s], stage_names[st]);
            if (stage(st, sizes[s], m, dir, &secs[s][st], &mb[s][st]) != 0) {
                printf("failed\n");
                fail = 1;
                continue;
            }
            double extra = mb[s][st] - mb[s][ST_PROFILE];
            printf("%8.3f s  peak %7.1f MB", st == ST_PROFILE ? 0 : secs[s][st], mb[s][st]);
            if (st != ST_PROFILE)
                printf(" (+%.1f MB, %.0f bytes/kernel)", extra, extra * 1048576.0 / sizes[s]);
            printf("\n");
        }
    for (size_t s = 1; s < ns; s++)
        for (int st = ST_ANALYZE; st < ST_N; st++)
            if (secs[s][st] > 0 && secs[s - 1][st] > 0)
                printf("%s time(%zu)/time(%zu) = %.1f (sizes x%.0f)\n", stage_names[st], sizes[s],
                       sizes[s - 1], secs[s][st] / secs[s - 1][st],
                       (double)sizes[s] / (double)sizes[s - 1]);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench-scale: cannot remove %s\n", dir);
    rt_machine_free(m);
    return fail;
}
