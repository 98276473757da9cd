/* Benchmark: import a generated 1M-event PyTorch chrome trace; jansson loading it is the peer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "rooftime/core/profile.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/error.h"

/*
 * The trace imitates an LSTM's: per step an aten::linear holding aten::addmm (FLOPs) holding
 * aten::empty, then aten::sigmoid_, aten::tanh_ and aten::mul, on two threads. Usage:
 *   bench-import-torch [EVENTS] [FILE]   (default 1000000 events, a temporary file)
 * Prints the seconds to import, and the seconds jansson needs to merely load the whole file as
 * the peer figure: the streaming importer should not be much slower than one json_load_file.
 */
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    char path[4096];
    if (argc > 2)
        snprintf(path, sizeof path, "%s", argv[2]);
    else
        snprintf(path, sizeof path, "/tmp/rooftime-bench-trace-%d.json", (int)getpid());
    FILE *fp = fopen(path, "w");
    if (!fp) {
        perror(path);
        return 1;
    }
    fprintf(fp, "{\"schemaVersion\": 1, \"traceEvents\": [\n");
    long written = 0;
    double ts = 0;
    for (long step = 0; written < n; step++) {
        int tid = (int)(step % 2) + 1;
        const char *ev[6][2] = {
            {"aten::linear", "{\"Input Dims\": [[16, 16], [64, 16], [64]]}"},
            {"aten::addmm", "{\"Input Dims\": [[64], [16, 16], [16, 64], [], []], "
                            "\"Input type\": [\"float\"], \"flops\": 32768}"},
            {"aten::empty", "{}"},
            {"aten::sigmoid_", "{\"Input Dims\": [[16, 16]]}"},
            {"aten::tanh_", "{\"Input Dims\": [[16, 16]]}"},
            {"aten::mul", "{\"Input Dims\": [[16, 16], [16, 16]], \"flops\": 256}"}};
        /* linear [0,20) holds addmm [2,18) holds empty [3,4); then three siblings */
        const double start[6] = {0, 2, 3, 21, 25, 29}, dur[6] = {20, 16, 1, 3, 3, 3};
        for (int i = 0; i < 6 && written < n; i++, written++)
            fprintf(fp,
                    "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 100, "
                    "\"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, \"args\": %s}",
                    written ? ",\n" : "", ev[i][0], tid, ts + start[i], dur[i], ev[i][1]);
        ts += 33;
    }
    fprintf(fp, "\n]}\n");
    if (fclose(fp) != 0) {
        perror(path);
        return 1;
    }
    double t0 = rt_now();
    json_error_t je;
    json_t *all = json_load_file(path, 0, &je);
    double t_load = rt_now() - t0;
    json_decref(all);

    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    t0 = rt_now();
    int rc = rt_import_torch(path, NULL, &p, &w, &err);
    double t_import = rt_now() - t0;
    if (rc != 0) {
        fprintf(stderr, "bench-import-torch: %s\n", err.msg);
        return 1;
    }
    double calls = 0;
    for (size_t i = 0; i < p->n_kernels; i++)
        calls += p->kernels[i].invocations;
    printf("events %ld, kernels %zu, invocations %.0f\n", n, p->n_kernels, calls);
    printf("import torch: %.3f s (%.0f events/s)\n", t_import, n / t_import);
    printf("peer, json_load_file of the same file: %.3f s (ratio import/load %.2f)\n", t_load,
           t_import / t_load);
    rt_profile_free(p);
    rt_warnings_release(&w);
    if (argc <= 2)
        remove(path);
    return 0;
}
