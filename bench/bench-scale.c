/* Benchmark: import, analyze, plot and report of generated inputs of 10k, 100k and 1M distinct
 * kernels and configs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"
#include "rooftime/core/reference-ceiling.h"
#include "rooftime/formats/analysis-format.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/import/ncu.h"
#include "rooftime/import/onednn.h"
#include "rooftime/import/table.h"
#include "rooftime/import/torch-cost.h"
#include "rooftime/import/torch.h"
#include "rooftime/render/chart.h"
#include "rooftime/render/report.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/*
 * Usage: bench-scale [--max-render N] [--import-only] [--only STAGE[,STAGE...]] [--repeat R]
 *                    [--max-ratio X] [--write-profile FILE] [KERNELS...]
 *                    (default 10000 100000 1000000)
 * Run from the build directory or with ROOFTIME_DATADIR set (the V100 preset is the machine).
 *
 * Every kernel has its own tag set (one config per kernel, as with per-layer or per-shape tags):
 * layer=L<i/8> op=conv|matmul|lstm precision=fp32|bf16 batch=1..128, so configs come in families
 * of eight batch sizes. Each stage runs in a child process of its own so its peak resident memory
 * (getrusage ru_maxrss) is its own: "profile" only builds the profile (the baseline), "analyze"
 * adds rt_analysis_new in hier mode, "command" what `rooftime analyze PROFILE -m v100` does with
 * the profile saved as JSON (untimed): load it, choose the reference, analyze, write the text
 * tables of every config and kernel (to /dev/null), and exit, leaving the profile and analysis to
 * the exit as the command does (cli_frees_at_exit), timed from its process's start to its end
 * (the exit's unmapping included); "plot" adds the 4D chart as SVG,
 * "report" writes the HTML report (single mode, and its hier chart from the analysis in hier
 * mode for a while) into a temporary folder, "csv"
 * and "json" write the analysis as `analyze --format csv|json` does (to /dev/null; the time is
 * the writing's, the peak memory the whole stage's, analysis included), "save" saves the profile
 * as every import does (rt_profile_save, into the temporary folder). Times
 * are wall seconds of the stage's own call, not of building the profile, and the process's CPU
 * seconds beside them (all its threads: the report draws its charts on several). Plot and report
 * run up to --max-render kernels (default: all).
 *
 * The import stages write an input of N distinct kernels (untimed) and time the library's import
 * of it: "torch" a chrome trace of N aten::mm calls of distinct shapes through the cost model (as
 * `import torch` does), "ncu" a raw `ncu --csv` of N launches of distinct kernel names (four
 * metrics each), "onednn" a verbose log of N matmuls of distinct shapes, "table" a CSV of N rows
 * of distinct shapes (a tag, so a config each). --import-only runs only those, --only STAGE only
 * that one (a comma list: those; and the baseline); --repeat R runs each stage R times and keeps
 * the fastest (the least disturbed on a shared machine); --max-ratio X exits 1 when an import's CPU
 * time(N)/time(previous N) exceeds X times the growth of N over 8 (linear: about 1 for sizes x8;
 * quadratic: 8), which is how tests/cli-import-scale.sh runs it. --write-profile FILE writes the
 * generated profile of the first size as JSON into FILE and exits (an input for timing
 * `rooftime analyze` or `report` of it directly, or profiling them).
 *
 * Goals (issue 15): 1M analyze < 5 s and < 2 GB; 100k analyze < 1 s; analyze time(100k)/time(10k)
 * <= 15; plot and report of 100k < 5 s. Issue 25: 1M distinct kernels imported in < 10 s by
 * torch and ncu, every importer linear in kernels. Issue 26, at 1M kernels with one config each:
 * analyze (and the command) <= 5 s and < 2 GiB, report <= 10 s, plot <= 5 s; the last lines print
 * each figure over its target (<= 1 meets it), in wall and CPU seconds.
 */

enum {
    ST_PROFILE,
    ST_ANALYZE,
    ST_COMMAND,
    ST_PLOT,
    ST_REPORT,
    ST_CSV,
    ST_JSON,
    ST_SAVE,
    ST_TORCH,
    ST_NCU,
    ST_ONEDNN,
    ST_TABLE,
    ST_N
};
static const char *const stage_names[ST_N] = {"profile", "analyze", "command", "plot",
                                              "report",  "csv",     "json",    "save",
                                              "torch",   "ncu",     "onednn",  "table"};

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

/* The input of an import stage, written into dir; its path (malloc'ed) or NULL. */
static char *write_input(int stage, size_t n, const char *dir)
{
    static const char *const ext[ST_N] = {
        [ST_TORCH] = "json", [ST_NCU] = "csv", [ST_ONEDNN] = "log", [ST_TABLE] = "csv"};
    size_t plen = strlen(dir) + 32;
    char *path = malloc(plen);
    snprintf(path, plen, "%s/input-%zu.%s", dir, n, ext[stage]);
    FILE *fp = fopen(path, "w");
    if (!fp) {
        perror(path);
        free(path);
        return NULL;
    }
    setvbuf(fp, NULL, _IOFBF, 1 << 20);
    if (stage == ST_TORCH)
        fprintf(fp, "{\"schemaVersion\": 1, \"traceEvents\": [\n");
    else if (stage == ST_NCU)
        fprintf(fp, "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\","
                    "\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
                    "\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n");
    else if (stage == ST_TABLE)
        fprintf(fp, "Shape,CUDA Time,FLOPs,DRAM Bytes,Invocations\n");
    static const char *const metric[4][3] = {
        {"sm__cycles_elapsed.avg", "cycle", "10000"},
        {"sm__cycles_elapsed.avg.per_second", "cycle/usecond", "1000"},
        {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", "2000"},
        {"dram__bytes.sum", "byte", "4096"}};
    for (size_t i = 0; i < n; i++) {
        size_t a = 1 + i % 1000, b = 1 + i / 1000; /* a distinct shape per kernel */
        if (stage == ST_TORCH)
            fprintf(fp,
                    "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, "
                    "\"tid\": 1, \"ts\": %zu, \"dur\": 1, \"args\": {\"Input Dims\": [[%zu, %zu], "
                    "[%zu, 16]], \"Input type\": [\"float\", \"float\"]}}",
                    i ? ",\n" : "", 2 * i, a, b, b);
        else if (stage == ST_NCU)
            for (int k = 0; k < 4; k++)
                fprintf(fp,
                        "\"%zu\",\"1\",\"app\",\"host\",\"void gemm_%zux%zu<float>(float*)\",\"1\","
                        "\"7\",\"(128, 1, 1)\",\"(80, 1, 1)\",\"0\",\"7.0\",\"Command line "
                        "profiler metrics\",\"%s\",\"%s\",\"%s\"\n",
                        i, a, b, metric[k][0], metric[k][1], metric[k][2]);
        else if (stage == ST_ONEDNN)
            fprintf(fp,
                    "onednn_verbose,exec,cpu,matmul,brg:avx512_core,undef,src_f32::blocked:ab:f0 "
                    "wei_f32::blocked:ab:f0 dst_f32::blocked:ab:f0,,,%zux%zu:%zux16:%zux16,0.01\n",
                    a, b, b, a);
        else
            fprintf(fp, "%zux%zu,0.001,%zu,4096,1\n", a, b, 2 * a * b * 16);
    }
    if (stage == ST_TORCH)
        fprintf(fp, "\n]}\n");
    if (fclose(fp) != 0) {
        perror(path);
        free(path);
        return NULL;
    }
    return path;
}

/* This process's CPU seconds (all its threads). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double stage_cpu; /* the CPU seconds of the last stage run */

/* An import stage: write the input, then time the import alone (the cost model's load too). */
static double import_run(int stage, size_t n, const char *dir)
{
    char *path = write_input(stage, n, dir);
    if (!path)
        return -1;
    rt_error err = {{0}};
    rt_warnings w = {0};
    rt_profile *p = NULL;
    rt_torch_ops *ops = NULL;
    double t0 = rt_now(), c0 = cpu_now();
    int rc = -1;
    if (stage == ST_TORCH) {
        if (rt_torch_ops_load(NULL, &ops, &err) == 0) {
            rt_torch_options o = {.ops = ops, .by_source = 1};
            rc = rt_import_torch_opts(path, &o, &p, &w, &err);
        }
    } else if (stage == ST_NCU) {
        rt_ncu_options o = {0};
        const char *paths[1] = {path};
        rc = rt_import_ncu(paths, 1, &o, &p, &w, &err);
    } else if (stage == ST_ONEDNN) {
        rc = rt_import_onednn(path, &p, &w, &err);
    } else {
        rt_table_options o = {0};
        rc = rt_import_table(path, &o, &p, &w, &err);
    }
    double t = rt_now() - t0;
    stage_cpu = cpu_now() - c0;
    if (rc == 0 && p->n_kernels != n) {
        snprintf(err.msg, sizeof err.msg, "%zu kernels, not %zu", p->n_kernels, n);
        rc = -1;
    }
    if (rc != 0)
        fprintf(stderr, "bench-scale: import %s of %zu kernels failed: %s\n", stage_names[stage], n,
                err.msg);
    rt_profile_free(p);
    rt_torch_ops_free(ops);
    rt_warnings_release(&w);
    remove(path);
    free(path);
    return rc == 0 ? t : -1;
}

static double stage_run(int stage, size_t n, const rt_machine *m, const char *dir)
{
    if (stage >= ST_TORCH)
        return import_run(stage, n, dir);
    /* The command loads the profile saved beforehand (save_profile) in a process of its own. */
    rt_profile *p = stage == ST_COMMAND ? NULL : generate(n);
    rt_error err = {0};
    char *saved = stage == ST_COMMAND ? rt_asprintf("%s/profile-%zu.json", dir, n) : NULL;
    double t0 = rt_now(), c0 = cpu_now(), t = 0;
    int rc = 0;
    if (stage == ST_COMMAND) {
        FILE *null = fopen("/dev/null", "w");
        rc = null && rt_profile_load(saved, &p, &err) == 0 ? 0 : -1;
        rt_analysis *a = NULL;
        if (rc == 0) {
            rt_reference_choose((rt_machine *)m, &p, 1);
            a = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
            rc = a && rt_analysis_write_text(a, 0, null) == 0 ? 0 : -1;
        }
        p = NULL; /* the profile and a go with the process, as the command leaves them */
        if (null)
            fclose(null);
        t = rt_now() - t0;
        free(saved);
    } else if (stage == ST_ANALYZE || stage == ST_PLOT) {
        rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
        t = rt_now() - t0;
        rc = a ? 0 : -1;
        if (a && stage == ST_PLOT) {
            rt_chart_spec spec = {.view = RT_VIEW_4D, .series_by = "op", .fill_by = "precision"};
            t0 = rt_now();
            c0 = cpu_now();
            char *svg = rt_chart_svg(&spec, a, &err);
            t = rt_now() - t0;
            rc = svg ? 0 : -1;
            if (svg)
                printf("svg=%.1fMB ", (double)strlen(svg) / 1e6);
            free(svg);
        }
        rt_analysis_free(a);
    } else if (stage == ST_CSV || stage == ST_JSON) {
        rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
        FILE *null = fopen("/dev/null", "w");
        t0 = rt_now();
        c0 = cpu_now();
        rc = a && null &&
                     rt_analysis_write(a, stage == ST_CSV ? RT_FORMAT_CSV : RT_FORMAT_JSON, null,
                                       NULL, &err) == 0
                 ? 0
                 : -1;
        t = rt_now() - t0;
        if (null)
            fclose(null);
        rt_analysis_free(a);
    } else if (stage == ST_SAVE) {
        char *path = rt_asprintf("%s/save-%zu.json", dir, n);
        rc = rt_profile_save(p, path, &err);
        t = rt_now() - t0;
        struct stat st;
        if (rc == 0 && stat(path, &st) == 0)
            printf("file=%.1fMB ", (double)st.st_size / 1e6);
        remove(path);
        free(path);
    } else if (stage == ST_REPORT) {
        /* The report's cost includes the analysis it reads, in single mode and, for the hier
         * chart, in hier mode (as `rooftime report` makes them: rt_report_write_modes). */
        rt_report_opts o = {.series_by = "op", .fill_by = "precision"};
        rt_analysis *a = rt_analysis_new(m, RT_MODE_SINGLE, &p, 1, NULL, &err);
        rc = a ? rt_report_write_modes(a, &p, 1, &o, dir, &err) : -1;
        rt_analysis_free(a);
        t = rt_now() - t0;
        struct stat st;
        char path[4200];
        snprintf(path, sizeof path, "%s/report.html", dir);
        if (rc == 0 && stat(path, &st) == 0)
            printf("page=%.1fMB ", (double)st.st_size / 1e6);
    }
    stage_cpu = cpu_now() - c0;
    if (rc != 0)
        fprintf(stderr, "bench-scale: %s of %zu kernels failed: %s\n", stage_names[stage], n,
                err.msg);
    rt_profile_free(p);
    return rc == 0 ? t : -1;
}

/* The command stage's input: the generated profile saved as JSON, by a child of its own (so the
 * command's peak memory is its own). */
static int save_profile(size_t n, const char *dir)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        rt_profile *p = generate(n);
        rt_error err = {0};
        char *path = rt_asprintf("%s/profile-%zu.json", dir, n);
        int rc = rt_profile_save(p, path, &err);
        if (rc != 0)
            fprintf(stderr, "bench-scale: %s\n", err.msg);
        _exit(rc == 0 ? 0 : 1);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Run one stage in a child; its seconds, peak memory (MB) and CPU seconds come back through a
 * pipe. */
static int stage(int st, size_t n, const rt_machine *m, const char *dir, double *secs, double *mb,
                 double *cpu)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    fflush(stdout);
    double t0 = rt_now();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fd[0]);
        double r[3] = {stage_run(st, n, m, dir), 0, 0};
        r[2] = stage_cpu;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        r[1] = (double)ru.ru_maxrss / 1024.0;
        fflush(stdout);
        ssize_t w = write(fd[1], r, sizeof r);
        _exit(w == (ssize_t)sizeof r && r[0] >= 0 ? 0 : 1);
    }
    close(fd[1]);
    double r[3];
    ssize_t got = read(fd[0], r, sizeof r);
    close(fd[0]);
    int status;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    if (got != (ssize_t)sizeof r || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    *secs = r[0];
    *mb = r[1];
    *cpu = r[2];
    if (st == ST_COMMAND) { /* the whole process, its exit included, as a command is timed */
        *secs = rt_now() - t0;
        *cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    }
    return 0;
}

int main(int argc, char **argv)
{
    size_t sizes[16], ns = 0, max_render = (size_t)-1;
    int import_only = 0, repeat = 1, only = 0; /* only: a bit per stage, 0 all */
    double max_ratio = 0;
    const char *write_profile = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-render") == 0 && i + 1 < argc)
            max_render = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            /* a stage, or several separated by commas */
            only = 0;
            for (const char *w = argv[i + 1]; *w;) {
                size_t len = strcspn(w, ",");
                int st = 0;
                while (st < ST_N &&
                       !(strlen(stage_names[st]) == len && strncmp(stage_names[st], w, len) == 0))
                    st++;
                if (st == ST_N) {
                    fprintf(stderr, "bench-scale: no stage '%.*s'\n", (int)len, w);
                    return 2;
                }
                only |= 1 << st;
                w += len + (w[len] == ',');
            }
            i++;
        } else if (strcmp(argv[i], "--write-profile") == 0 && i + 1 < argc)
            write_profile = argv[++i];
        else if (strcmp(argv[i], "--import-only") == 0)
            import_only = 1;
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0)
            repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--max-ratio") == 0 && i + 1 < argc && atof(argv[i + 1]) > 0)
            max_ratio = atof(argv[++i]);
        else if (ns < 16 && strtoul(argv[i], NULL, 10) > 0)
            sizes[ns++] = strtoul(argv[i], NULL, 10);
        else {
            fprintf(stderr,
                    "usage: bench-scale [--max-render N] [--import-only] [--only STAGE,...] "
                    "[--repeat R] [--max-ratio X] [--write-profile FILE] [KERNELS...]\n");
            return 2;
        }
    }
    if (!ns) {
        sizes[ns++] = 10000;
        sizes[ns++] = 100000;
        sizes[ns++] = 1000000;
    }
    rt_error err = {0};
    if (write_profile) {
        rt_profile *p = generate(sizes[0]);
        int rc = rt_profile_save(p, write_profile, &err);
        if (rc != 0)
            fprintf(stderr, "bench-scale: %s\n", err.msg);
        rt_profile_free(p);
        return rc == 0 ? 0 : 1;
    }
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
    double load[3] = {0};
    if (getloadavg(load, 3) == 3)
        printf("load average %.2f %.2f %.2f\n", load[0], load[1], load[2]);
    double secs[16][ST_N] = {{0}}, mb[16][ST_N] = {{0}}, cpu[16][ST_N] = {{0}};
    int fail = 0;
    for (size_t s = 0; s < ns; s++)
        for (int st = import_only ? ST_TORCH : 0; st < ST_N; st++) {
            secs[s][st] = -1;
            if (((st == ST_PLOT || st == ST_REPORT) && sizes[s] > max_render) ||
                (only && !(only & (1 << st)) && st != ST_PROFILE))
                continue;
            printf("%8zu kernels %-8s ", sizes[s], stage_names[st]);
            int ok = 0, reps = repeat;
            if (st == ST_COMMAND && save_profile(sizes[s], dir) != 0)
                reps = 0; /* fails below */
            for (int r = 0; r < reps; r++) {
                double t, peak, c;
                if (stage(st, sizes[s], m, dir, &t, &peak, &c) != 0)
                    continue;
                if (!ok || t < secs[s][st]) {
                    secs[s][st] = t;
                    mb[s][st] = peak;
                }
                if (!ok || c < cpu[s][st])
                    cpu[s][st] = c;
                ok = 1;
            }
            if (st == ST_COMMAND) {
                char *path = rt_asprintf("%s/profile-%zu.json", dir, sizes[s]);
                remove(path);
                free(path);
            }
            if (!ok) {
                printf("failed\n");
                fail = 1;
                continue;
            }
            printf("%8.3f s  peak %7.1f MB", st == ST_PROFILE ? 0 : secs[s][st], mb[s][st]);
            if (st != ST_PROFILE)
                printf(", %.3f s CPU", cpu[s][st]);
            if (st != ST_PROFILE && st < ST_TORCH) {
                double extra = mb[s][st] - mb[s][ST_PROFILE];
                printf(" (+%.1f MB, %.0f bytes/kernel)", extra, extra * 1048576.0 / sizes[s]);
            }
            printf("\n");
        }
    for (size_t s = 1; s < ns; s++)
        for (int st = ST_ANALYZE; st < ST_N; st++)
            if (secs[s][st] > 0 && secs[s - 1][st] > 0) {
                double ratio = secs[s][st] / secs[s - 1][st],
                       grow = (double)sizes[s] / (double)sizes[s - 1];
                if (st < ST_TORCH) {
                    printf("%s time(%zu)/time(%zu) = %.1f wall, %.1f CPU (sizes x%.0f)\n",
                           stage_names[st], sizes[s], sizes[s - 1], ratio,
                           cpu[s - 1][st] > 0 ? cpu[s][st] / cpu[s - 1][st] : ratio, grow);
                    continue;
                }
                /* Imports: the bound is on CPU time, which other jobs on the machine disturb
                 * less than wall time. */
                double cr = cpu[s - 1][st] > 0 ? cpu[s][st] / cpu[s - 1][st] : ratio;
                int over = max_ratio > 0 && cr > max_ratio * grow / 8;
                printf("import %s time(%zu)/time(%zu) = %.1f wall, %.1f CPU (sizes x%.0f)%s\n",
                       stage_names[st], sizes[s], sizes[s - 1], ratio, cr, grow,
                       over ? ": over the bound" : "");
                fail |= over;
            }
    /* Issue 26's targets at 1M kernels: the figure over the target, <= 1 meets it. */
    static const double target_s[ST_N] = {
        [ST_ANALYZE] = 5, [ST_COMMAND] = 5, [ST_PLOT] = 5, [ST_REPORT] = 10};
    for (size_t s = 0; s < ns; s++)
        for (int st = ST_ANALYZE; st < ST_TORCH; st++)
            if (sizes[s] == 1000000 && secs[s][st] > 0 && target_s[st] > 0) {
                printf("target %s of 1M: %.2f wall, %.2f CPU (%.0f s)", stage_names[st],
                       secs[s][st] / target_s[st], cpu[s][st] / target_s[st], target_s[st]);
                if (st == ST_ANALYZE || st == ST_COMMAND)
                    printf(", peak %.2f (2 GiB)", mb[s][st] / 2048);
                printf("\n");
            }
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench-scale: cannot remove %s\n", dir);
    rt_machine_free(m);
    return fail;
}
