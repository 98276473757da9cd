/* libFuzzer target: the Nsight metric mapping (formulas, constants, architectures). */
#include "fuzz-common.h"
#include "rooftime/import/ncu-metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_memfile(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    rt_ncu_map m;
    rt_error err;
    if (rt_ncu_map_load(path, &m, &err) == 0) {
        double metric[NCU_MAX_METRICS] = {0};
        const double *cst = rt_ncu_map_constants(&m, 70);
        for (size_t i = 0; cst && i < m.n_q; i++)
            (void)rt_ncu_formula_eval(&m.q[i].f, metric, cst, 1e-3);
        rt_ncu_map_release(&m);
    }
    close(fd);
    return 0;
}
