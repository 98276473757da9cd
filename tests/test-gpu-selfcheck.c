/* The self-check's expectations against the metric mapping, without a GPU: every quantity under
 * which `machine measure --gpu --self-check` expects a probe kernel's work on an architecture with
 * Volta, Turing (one tensor instruction counter) or the per-precision ops counters (sm_80 on)
 * must have a formula in data/ncu/metrics.json (set
 * throughput) in scope there; otherwise selfcheck-compare fails that kernel by name on every GPU,
 * whatever the counters say (as flops.bf16, which no formula gives, did for fma_bf16). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu-internal.h"
#include "rooftime/formats/gpu-arch-json.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/strings.h"
#include "testutil.h"

/* Whether the mapping has a throughput formula for quantity q on sm_<sm>. */
static int has_formula(const rt_ncu_map *m, const char *q, int sm)
{
    for (size_t i = 0; i < m->n_q; i++)
        if (strcmp(m->q[i].quantity, q) == 0 && strcmp(m->q[i].set, "throughput") == 0 &&
            rt_ncu_quantity_applies(m, &m->q[i], sm, 0))
            return 1;
    return 0;
}

static void test_quantities_have_formulas(void **state)
{
    (void)state;
    rt_error err;
    rt_gpu_archs archs;
    if (rt_gpu_archs_load(NULL, &archs, &err) != 0)
        fail_msg("%s", err.msg);
    char *path = rt_asprintf("%s/ncu/metrics.json", rt_datadir());
    rt_ncu_map m;
    if (rt_ncu_map_load(path, &m, &err) != 0)
        fail_msg("%s", err.msg);
    static const int sms[] = {70, 75, 80, 86, 89, 90};
    int checked = 0;
    for (size_t a = 0; a < sizeof sms / sizeof *sms; a++) {
        const rt_gpu_arch *arch = rt_gpu_arch_find(&archs, sms[a]);
        assert_non_null(arch);
        for (size_t i = 0; i < rt_gpu_n_compute; i++) {
            const rt_gpu_compute_kernel *k = &rt_gpu_compute_kernels[i];
            const char *unit = rt_gpu_unit_of(k, sms[a]);
            if (!unit || rt_gpu_arch_rate(arch, unit) <= 0)
                continue; /* not run there, or the instruction does not exist there */
            char q[48];
            rt_gpu_selfcheck_quantity(k, sms[a], q, sizeof q);
            if (!has_formula(&m, q, sms[a]))
                fail_msg("sm_%d: the self-check expects %s under %s, for which %s has no formula "
                         "there",
                         sms[a], k->kernel, q, path);
            checked++;
        }
    }
    /* the vector FMAs on each, the Tensor Cores everywhere, wgmma and mma_* on sm_90 */
    assert_true(checked >= 6 * 4 + 5 + 10);
    /* the bf16x2 FMA is an HFMA2: flops.fp16, as the counters see it */
    for (size_t i = 0; i < rt_gpu_n_compute; i++)
        if (strcmp(rt_gpu_compute_kernels[i].kernel, "fma_bf16") == 0) {
            char q[48];
            rt_gpu_selfcheck_quantity(&rt_gpu_compute_kernels[i], 90, q, sizeof q);
            assert_string_equal(q, "flops.fp16");
        }
    rt_ncu_map_release(&m);
    free(path);
    rt_gpu_archs_release(&archs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantities_have_formulas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
