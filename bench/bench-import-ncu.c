/* Benchmark: stream a generated ~1 GB raw `ncu --csv` file through `rooftime import ncu`, against
 * Python's csv. */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rooftime/core/profile.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/*
 * usage: bench-import-ncu [SIZE_MB] [--bin ROOFTIME] [--py SCRIPT] [--dir DIR] [--keep]
 * SIZE_MB defaults to 1024. The file has about 1000 distinct templated kernel
 * names (100 to 2000 characters), 15 metrics per launch in the newer layout,
 * scaled units and thousands separators. The import also runs on a file an
 * eighth the size, to show that its peak memory does not grow with the file.
 * Both programs read a file the page cache already holds (it was just written).
 */

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static const char *const ns[] = {"at::native",
                                 "cudnn::detail",
                                 "cutlass::gemm::kernel",
                                 "thrust::cuda_cub::core",
                                 "at::native::(anonymous namespace)",
                                 "tensorflow::functor",
                                 "cub::DeviceReduceKernel"};
static const char *const fn[] = {"vectorized_elementwise_kernel",
                                 "implicit_convolve_sgemm",
                                 "GemmUniversal",
                                 "reduce_kernel",
                                 "batch_norm_collect_statistics",
                                 "CatArrayBatchedCopy",
                                 "elementwise_kernel",
                                 "softmax_warp_forward",
                                 "transpose_readWrite_alignment_kernel",
                                 "wgrad_alg0_engine",
                                 "nchwToNhwcKernel",
                                 "scalePackedTensor_kernel",
                                 "dgrad_engine"};
static const char *const ty[] = {
    "float", "__half",    "double",       "int",
    "long",  "c10::Half", "unsigned int", "at::detail::Array<char*, 3>"};

/* A C++ kernel name of nested templates: deterministic per index, 100 to 2000 characters. */
static char *kernel_name(int i)
{
    uint64_t save = rng;
    rng = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
    size_t cap = 4096, n = 0;
    char *s = rt_xmalloc(cap);
    n += (size_t)snprintf(s + n, cap - n, "void %s::%s<%d", ns[i % 7], fn[(i / 7) % 13], i);
    int args = 1 + (int)(next_rand() % 24);
    for (int a = 0; a < args && n < 1800; a++) {
        const char *t = ty[next_rand() % 8];
        switch (next_rand() % 4) {
        case 0:
            n += (size_t)snprintf(s + n, cap - n, ", %s", t);
            break;
        case 1:
            n += (size_t)snprintf(s + n, cap - n, ", %s::BinaryFunctor<%s, %s, %s>", ns[a % 7], t,
                                  t, t);
            break;
        case 2:
            n +=
                (size_t)snprintf(s + n, cap - n, ", %s::{lambda(long)#%d}", ns[(a + i) % 7], a + 1);
            break;
        default:
            n += (size_t)snprintf(s + n, cap - n, ", %d", (int)(next_rand() % 1024));
        }
    }
    n += (size_t)snprintf(s + n, cap - n, ">(int, %s*, %s const*, long)", ty[i % 8],
                          ty[(i + 3) % 8]);
    rng = save;
    return s;
}

/* 1234567 -> "1,234,567": ncu's thousands separators. */
static void with_commas(char *out, uint64_t v)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)v), w = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            out[w++] = ',';
        out[w++] = tmp[i];
    }
    out[w] = '\0';
}

static const char *const metric[] = {
    "dram__bytes.sum",
    "l1tex__t_bytes.sum",
    "lts__t_bytes.sum",
    "sm__cycles_elapsed.avg",
    "sm__cycles_elapsed.avg.per_second",
    "sm__inst_executed_pipe_tensor.sum",
    "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hmul_pred_on.sum",
};

/* Write complete launches until the file holds `bytes`; returns the number of launches. */
static long generate(const char *path, double bytes, char **names, int nnames)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        fprintf(stderr, "bench-import-ncu: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    setvbuf(fp, NULL, _IOFBF, 1 << 20);
    fprintf(fp, "training step 1\n==PROF== Connected to process 4242 (/usr/bin/python3.8)\n"
                "loss = 0.6931 \"quoted\" output\n==PROF== Disconnected from process 4242\n");
    fprintf(fp, "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
                "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\","
                "\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n");
    long launch = 0;
    double written = 0;
    while (written < bytes) {
        /* A skewed mix: a few kernels run often, most rarely, as in real traces. */
        uint64_t r = next_rand();
        int k = (int)((r % 4 == 0) ? (r >> 8) % (uint64_t)nnames : (r >> 8) % 50);
        int pid = launch % 1000 < 500 ? 4242 : 4243;
        for (int m = 0; m < 15; m++) {
            char val[48], unit[24];
            uint64_t v = next_rand() % 5000000000ull;
            if (m <= 2) { /* bytes, scaled as ncu does */
                if (v > 1000000000ull) {
                    snprintf(unit, sizeof unit, "Gbyte");
                    snprintf(val, sizeof val, "%.2f", (double)v / 1e9);
                } else if (v > 1000000ull) {
                    snprintf(unit, sizeof unit, "Mbyte");
                    snprintf(val, sizeof val, "%.2f", (double)v / 1e6);
                } else {
                    snprintf(unit, sizeof unit, "byte");
                    with_commas(val, v);
                }
            } else if (m == 3) {
                snprintf(unit, sizeof unit, "cycle");
                with_commas(val, v % 10000000 + 1000);
            } else if (m == 4) {
                snprintf(unit, sizeof unit, (launch & 1) ? "cycle/usecond" : "cycle/nsecond");
                snprintf(val, sizeof val, (launch & 1) ? "%.2f" : "%.5f",
                         (launch & 1) ? 1300 + (double)(v % 200) : 1.3 + (double)(v % 200) / 1000);
            } else {
                snprintf(unit, sizeof unit, "inst");
                with_commas(val, v % 100000000);
            }
            int w =
                fprintf(fp,
                        "\"%ld\",\"%d\",\"python3.8\",\"127.0.0.1\",\"%s\",\"1\",\"7\","
                        "\"(256, 1, 1)\",\"(1024, 1, 1)\",\"0\",\"7.0\",\"Command line profiler "
                        "metrics\",\"%s\",\"%s\",\"%s\"\n",
                        launch, pid, names[k], metric[m], unit, val);
            written += w;
        }
        launch++;
    }
    if (fclose(fp) != 0) {
        fprintf(stderr, "bench-import-ncu: cannot write %s: %s\n", path, strerror(errno));
        exit(1);
    }
    return launch;
}

typedef struct run_result {
    double wall, cpu;
    long maxrss_kb;
    int status;
    char out[4096];
} run_result;

/* Run argv with stdout captured; wall time, CPU time and peak RSS from wait4. */
static void run(char *const argv[], run_result *r)
{
    int pfd[2];
    if (pipe(pfd) != 0) {
        perror("pipe");
        exit(1);
    }
    double t0 = rt_now();
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pfd[1], 1);
        close(pfd[0]);
        close(pfd[1]);
        execvp(argv[0], argv);
        perror(argv[0]);
        _exit(127);
    }
    close(pfd[1]);
    size_t n = 0;
    ssize_t k;
    while ((k = read(pfd[0], r->out + n, sizeof r->out - 1 - n)) > 0)
        n += (size_t)k;
    r->out[n] = '\0';
    close(pfd[0]);
    struct rusage ru;
    int st;
    wait4(pid, &st, 0, &ru);
    r->wall = rt_now() - t0;
    r->cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
             ru.ru_stime.tv_usec * 1e-6;
    r->maxrss_kb = ru.ru_maxrss;
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
    double size_mb = 1024;
    const char *bin = NULL, *py = NULL, *dir = "/tmp";
    int keep = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bin") == 0 && i + 1 < argc)
            bin = argv[++i];
        else if (strcmp(argv[i], "--py") == 0 && i + 1 < argc)
            py = argv[++i];
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--keep") == 0)
            keep = 1;
        else if (atof(argv[i]) > 0)
            size_mb = atof(argv[i]);
        else {
            fprintf(stderr, "usage: bench-import-ncu [SIZE_MB] [--bin ROOFTIME] [--py SCRIPT] "
                            "[--dir DIR] [--keep]\n");
            return 2;
        }
    }
    char self[PATH_MAX];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    self[sl > 0 ? sl : 0] = '\0';
    char *here = dirname(self);
    char *bin_d = rt_asprintf("%s/rooftime", here);
    char *py_d = getenv("ROOFTIME_SRC")
                     ? rt_asprintf("%s/bench/bench-import-ncu.py", getenv("ROOFTIME_SRC"))
                     : rt_asprintf("%s/../bench/bench-import-ncu.py", here);
    if (!bin)
        bin = bin_d;
    if (!py)
        py = py_d;

    enum { NNAMES = 1000 };
    char **names = rt_xmalloc(NNAMES * sizeof *names);
    double name_len = 0;
    for (int i = 0; i < NNAMES; i++) {
        names[i] = kernel_name(i);
        name_len += (double)strlen(names[i]);
    }
    char *big = rt_asprintf("%s/rooftime-bench-ncu-%d.csv", dir, (int)getpid());
    char *small = rt_asprintf("%s/rooftime-bench-ncu-%d-small.csv", dir, (int)getpid());
    char *out = rt_asprintf("%s/rooftime-bench-ncu-%d.json", dir, (int)getpid());
    double t0 = rt_now();
    long nl_small = generate(small, size_mb * 1e6 / 8, names, NNAMES);
    long nl = generate(big, size_mb * 1e6, names, NNAMES);
    FILE *fp = fopen(big, "r");
    fseek(fp, 0, SEEK_END);
    double bytes = (double)ftell(fp);
    fclose(fp);
    fp = fopen(small, "r");
    fseek(fp, 0, SEEK_END);
    double bytes_small = (double)ftell(fp);
    fclose(fp);
    printf("generated %s: %.0f MB, %ld launches x 15 metrics, %d kernel names (mean %.0f chars) "
           "in %.1f s\n",
           big, bytes / 1e6, nl, NNAMES, name_len / NNAMES, rt_now() - t0);

    run_result rs, rb, rp;
    char *a_small[] = {(char *)bin, "import", "ncu", small, "-o", out, NULL};
    char *a_big[] = {(char *)bin, "import", "ncu", big, "-o", out, NULL};
    char *a_py[] = {"python3", (char *)py, big, NULL};
    run(a_small, &rs);
    run(a_big, &rb);
    if (rs.status != 0 || rb.status != 0) {
        fprintf(stderr, "bench-import-ncu: rooftime failed (exit %d, %d)\n", rs.status, rb.status);
        return 1;
    }
    run(a_py, &rp);
    if (rp.status != 0) {
        fprintf(stderr, "bench-import-ncu: python failed (exit %d)\n", rp.status);
        return 1;
    }
    /* Did both do the same work? rooftime prints "FILE: K kernels, L launches ..." */
    long rk = 0, rl = 0, pk = 0, pl = 0;
    const char *c = strstr(rb.out, ": ");
    if (c)
        sscanf(c + 2, "%ld kernels, %ld launches", &rk, &rl);
    c = strstr(rp.out, "\"kernels\": ");
    if (c)
        sscanf(c, "\"kernels\": %ld, \"launches\": %ld", &pk, &pl);
    double pt = 0, rt_total = 0;
    c = strstr(rp.out, "\"total_time\": ");
    if (c)
        sscanf(c, "\"total_time\": %lf", &pt);
    rt_profile *prof = NULL;
    rt_error err;
    if (rt_profile_load(out, &prof, &err) == 0)
        for (size_t i = 0; i < prof->n_kernels; i++)
            rt_total += prof->kernels[i].time;
    rt_profile_free(prof);
    int same = rk == pk && rl == pl && rl == nl && pt > 0 && rt_total > 0 &&
               (rt_total - pt) / pt < 1e-9 && (pt - rt_total) / pt < 1e-9;
    double mbs_r = bytes / 1e6 / rb.wall, mbs_p = bytes / 1e6 / rp.wall;
    /* Wall time is what a user waits; CPU time is the one-core figure, steadier on a busy machine.
     */
    double cpu_r = bytes / 1e6 / rb.cpu, cpu_p = bytes / 1e6 / rp.cpu;
    printf("rooftime import ncu: %8.1f MB/s wall (%.2f s), %8.1f MB/s per CPU second (%.2f s), "
           "peak RSS %.1f MB; on the %.0f MB file: %.1f MB/s wall, peak RSS %.1f MB\n",
           mbs_r, rb.wall, cpu_r, rb.cpu, rb.maxrss_kb / 1024.0, bytes_small / 1e6,
           bytes_small / 1e6 / rs.wall, rs.maxrss_kb / 1024.0);
    printf("python csv module:   %8.1f MB/s wall (%.2f s), %8.1f MB/s per CPU second (%.2f s), "
           "peak RSS %.1f MB\n",
           mbs_p, rp.wall, cpu_p, rp.cpu, rp.maxrss_kb / 1024.0);
    printf("ratio rooftime / python: %.1fx wall, %.1fx CPU\n", mbs_r / mbs_p, cpu_r / cpu_p);
    printf("same result: %s (rooftime %ld kernels, %ld launches, total time %.9g s; python %ld "
           "kernels, %ld launches, %.9g s; small file %ld launches)\n",
           same ? "yes" : "NO", rk, rl, rt_total, pk, pl, pt, nl_small);
    printf("goals: >= 300 MB/s %s, peak RSS < 100 MB %s\n", mbs_r >= 300 ? "met" : "NOT met",
           rb.maxrss_kb < 100 * 1024 ? "met" : "NOT met");
    if (!keep) {
        unlink(big);
        unlink(small);
    }
    unlink(out);
    for (int i = 0; i < NNAMES; i++)
        free(names[i]);
    free(names);
    free(big);
    free(small);
    free(out);
    free(bin_d);
    free(py_d);
    return same ? 0 : 1;
}
