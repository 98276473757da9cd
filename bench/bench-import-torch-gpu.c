/* Benchmark: import a generated GPU run's PyTorch trace (operators, their launches, the kernels),
 * plain and gzip-compressed, against a CPU trace of the same size imported in the same run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

#include "rooftime/core/profile.h"
#include "rooftime/import/torch-cost.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/error.h"

/*
 * Usage: bench-import-torch-gpu [EVENTS] [DIR]   (default 1000000 events, a temporary directory;
 * 4000000 events make a trace of about 1 GB)
 *
 * Writes three traces of EVENTS events each: gpu.json, a GPU run's as Kineto writes it (per step
 * an aten::addmm and an aten::add, each with its cudaLaunchKernel and its kernel on a stream, the
 * correlation ids and External ids of older Kineto); gpu.json.gz, the same gzip-compressed (zlib,
 * level 6, as Python's gzip module); cpu.json, a CPU run's (operators nested three deep, as
 * bench-import-torch writes). Each is imported with the shipped cost model in a child process of
 * its own: its wall time, its CPU time (user and system: what it costs on a loaded machine), MB/s
 * of the trace's text per CPU second and its peak resident memory (ru_maxrss of that child). The
 * last lines are the ratios against the CPU trace, the peer: the device profile (link, split,
 * launch side) and the gzip reading cost what over the path `import torch` already had.
 */

static long written;

/* One step of the GPU trace: 6 events. */
static void gpu_step(FILE *fp, long step, double ts)
{
    long c = 2 * step + 1, x = 4 * step + 1;
    fprintf(fp,
            "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::addmm\", \"pid\": 4037, "
            "\"tid\": 4037, \"ts\": %.0f, \"dur\": 40, \"args\": {\"External id\": %ld, "
            "\"Input Dims\": [[256], [2048, 512], [512, 256], [], []], \"Input type\": "
            "[\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"]}},\n"
            "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": "
            "4037, \"tid\": 4037, \"ts\": %.0f, \"dur\": 6, \"args\": {\"External id\": %ld, "
            "\"cbid\": 211, \"correlation\": %ld}},\n"
            "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void cutlass::Kernel<cutlass_80_"
            "tensorop_s1688gemm_128x128_32x3_nn_align4>(cutlass_80_tensorop_s1688gemm_128x128_"
            "32x3_nn_align4::Params)\", \"pid\": 0, \"tid\": 7, \"ts\": %.0f, \"dur\": 30, "
            "\"args\": {\"External id\": %ld, \"queued\": 0, \"device\": 0, \"context\": 1, "
            "\"stream\": 7, \"correlation\": %ld, \"registers per thread\": 230, \"shared "
            "memory\": 73728, \"grid\": [2, 16, 1], \"block\": [128, 1, 1]}},\n",
            written ? ",\n" : "", ts, x, ts + 20, c, c, ts + 30, c, c);
    fprintf(fp,
            "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 4037, "
            "\"tid\": 4037, \"ts\": %.0f, \"dur\": 15, \"args\": {\"External id\": %ld, "
            "\"Input Dims\": [[2048, 256], [2048, 256], []], \"Input type\": [\"float\", "
            "\"float\", \"Scalar\"]}},\n"
            "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": "
            "4037, \"tid\": 4037, \"ts\": %.0f, \"dur\": 5, \"args\": {\"External id\": %ld, "
            "\"cbid\": 211, \"correlation\": %ld}},\n"
            "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::vectorized_"
            "elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, "
            "3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)\", "
            "\"pid\": 0, \"tid\": 7, \"ts\": %.0f, \"dur\": 8, \"args\": {\"External id\": %ld, "
            "\"device\": 0, \"stream\": 7, \"correlation\": %ld, \"grid\": [512, 1, 1], "
            "\"block\": [128, 1, 1]}}",
            ts + 50, x + 2, ts + 55, c + 1, c + 1, ts + 70, c + 1, c + 1);
    written += 6;
}

/* One step of the CPU trace: 6 events, linear > addmm > empty, then three siblings. */
static void cpu_step(FILE *fp, long step, double ts)
{
    static const char *const ev[6][2] = {
        {"aten::linear", "{\"Input Dims\": [[2048, 512], [256, 512], [256]], \"Input type\": "
                         "[\"float\", \"float\", \"float\"]}"},
        {"aten::addmm", "{\"Input Dims\": [[256], [2048, 512], [512, 256], [], []], "
                        "\"Input type\": [\"float\", \"float\", \"float\", \"Scalar\", "
                        "\"Scalar\"]}"},
        {"aten::empty", "{\"Input Dims\": [[], [], [], [], [], []]}"},
        {"aten::sigmoid_", "{\"Input Dims\": [[2048, 256]], \"Input type\": [\"float\"]}"},
        {"aten::tanh_", "{\"Input Dims\": [[2048, 256]], \"Input type\": [\"float\"]}"},
        {"aten::mul", "{\"Input Dims\": [[2048, 256], [2048, 256]], \"Input type\": "
                      "[\"float\", \"float\"]}"}};
    static const double start[6] = {0, 2, 3, 21, 25, 29}, dur[6] = {20, 16, 1, 3, 3, 3};
    for (int i = 0; i < 6; i++, written++)
        fprintf(fp,
                "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 100, "
                "\"tid\": %d, \"ts\": %.0f, \"dur\": %.0f, \"args\": %s}",
                written ? ",\n" : "", ev[i][0], (int)(step % 2) + 1, ts + start[i], dur[i],
                ev[i][1]);
}

static int write_trace(const char *path, long n, int gpu)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        perror(path);
        return -1;
    }
    fprintf(fp, "{\"schemaVersion\": 1, \"traceEvents\": [\n");
    written = 0;
    double ts = 1682725898000000.0;
    for (long step = 0; written < n; step++, ts += 100)
        (gpu ? gpu_step : cpu_step)(fp, step, ts);
    fprintf(fp, "\n]}\n");
    return fclose(fp) == 0 ? 0 : -1;
}

static int gzip_file(const char *in, const char *out)
{
    FILE *fp = fopen(in, "rb");
    gzFile gz = gzopen(out, "wb6");
    if (!fp || !gz) {
        perror(out);
        return -1;
    }
    static char buf[1 << 20];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, fp)) > 0)
        if (gzwrite(gz, buf, (unsigned)r) != (int)r)
            return -1;
    fclose(fp);
    return gzclose(gz) == Z_OK ? 0 : -1;
}

typedef struct result {
    double seconds, cpu, mb, rss_mb;
    size_t kernels;
} result;

/* Import path in a child process: its wall time and peak memory. */
static int measure(const char *path, result *res)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        rt_torch_ops *ops = NULL;
        rt_error err = {{0}};
        if (rt_torch_ops_load(NULL, &ops, &err) != 0) {
            fprintf(stderr, "bench-import-torch-gpu: %s\n", err.msg);
            _exit(1);
        }
        rt_torch_options o = {.ops = ops, .by_source = 1};
        rt_profile *p = NULL;
        rt_warnings w = {0};
        double t0 = rt_now();
        if (rt_import_torch_opts(path, &o, &p, &w, &err) != 0) {
            fprintf(stderr, "bench-import-torch-gpu: %s\n", err.msg);
            _exit(1);
        }
        result r = {rt_now() - t0, 0, 0, 0, p->n_kernels};
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        r.rss_mb = ru.ru_maxrss / 1024.0;
        /* CPU time of the whole child, the cost model's loading included (a few ms): on a loaded
         * machine the figure that says what the import costs */
        r.cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec +
                ru.ru_stime.tv_usec * 1e-6;
        if (write(fd[1], &r, sizeof r) != (ssize_t)sizeof r)
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], res, sizeof *res);
    close(fd[0]);
    int st;
    waitpid(pid, &st, 0);
    return got == (ssize_t)sizeof *res && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static double mb_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size / 1e6 : 0;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    char dir[4096], gpu[4200], gz[4200], cpu[4200];
    if (argc > 2)
        snprintf(dir, sizeof dir, "%s", argv[2]);
    else if (!mkdtemp(strcpy(dir, "/tmp/rooftime-bench-gpu-XXXXXX"))) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(gpu, sizeof gpu, "%s/gpu.json", dir);
    snprintf(gz, sizeof gz, "%s/gpu.json.gz", dir);
    snprintf(cpu, sizeof cpu, "%s/cpu.json", dir);
    if (write_trace(gpu, n, 1) != 0 || gzip_file(gpu, gz) != 0 || write_trace(cpu, n, 0) != 0)
        return 1;
    const char *paths[3] = {gpu, gz, cpu}, *what[3] = {"GPU trace", "GPU trace, gzip", "CPU trace"};
    result r[3];
    for (int i = 0; i < 3; i++) {
        if (measure(paths[i], &r[i]) != 0)
            return 1;
        r[i].mb = mb_of(i == 1 ? gpu : paths[i]); /* MB/s of the text either way */
        printf("%-16s %8.1f MB%s  %7.3f s wall  %7.3f s CPU  %7.1f MB/s of CPU  peak %7.1f MB  "
               "%zu kernels\n",
               what[i], mb_of(paths[i]), i == 1 ? " (gz)" : "     ", r[i].seconds, r[i].cpu,
               r[i].mb / r[i].cpu, r[i].rss_mb, r[i].kernels);
    }
    printf("events %ld each; ratios against the CPU trace (the peer, same events, same run):\n", n);
    printf("  GPU trace: wall time per MB %.2f, CPU time per MB %.2f, peak memory %.2f\n",
           (r[0].seconds / r[0].mb) / (r[2].seconds / r[2].mb),
           (r[0].cpu / r[0].mb) / (r[2].cpu / r[2].mb), r[0].rss_mb / r[2].rss_mb);
    printf("  GPU trace, gzip: wall time per MB of text %.2f, CPU time per MB %.2f, peak memory "
           "%.2f\n",
           (r[1].seconds / r[1].mb) / (r[2].seconds / r[2].mb),
           (r[1].cpu / r[1].mb) / (r[2].cpu / r[2].mb), r[1].rss_mb / r[2].rss_mb);
    if (argc <= 2) {
        remove(gpu);
        remove(gz);
        remove(cpu);
        rmdir(dir);
    }
    return 0;
}
