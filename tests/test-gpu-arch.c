/* Tests of data/gpu/architectures.json: its rates reproduce the GPU presets' spec-sheet figures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/machine.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/core/gpu-arch.h"
#include "rooftime/formats/gpu-arch-json.h"
#include "rooftime/util/error.h"
#include "testutil.h"

static rt_gpu_archs archs;

static int setup(void **state)
{
    (void)state;
    rt_error err;
    if (rt_gpu_archs_load(NULL, &archs, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rt_gpu_archs_release(&archs);
    return 0;
}

static const rt_gpu_part *part(const char *preset)
{
    for (size_t i = 0; i < archs.n_parts; i++)
        if (strcmp(archs.part[i].preset, preset) == 0)
            return &archs.part[i];
    fail_msg("architectures.json has no part for preset %s", preset);
    return NULL;
}

static double theoretical(const char *preset, const char *unit)
{
    const rt_gpu_part *p = part(preset);
    const rt_gpu_arch *a = rt_gpu_arch_find(&archs, p->sm);
    assert_non_null(a);
    return rt_gpu_theoretical(a, unit, p->sms, p->clock_hz, p->tensor_clock_hz);
}

/* The paper's Tensor Core peak and the A100/H100 spec-sheet Tensor Core peaks, exactly. */
static void test_tensor_peaks(void **state)
{
    (void)state;
    assert_close(theoretical("v100", "tensor_fp16"), 107479040000000.0, 1e-12);
    assert_close(theoretical("a100", "tensor_fp16"), 311869440000000.0, 1e-12);
    assert_close(theoretical("h100-sxm", "tensor_fp16"), 989429760000000.0, 1e-12);
    /* mma.sync on Hopper: the same Tensor Cores; FP8 is two FP16 HMMA per mma (no FP8 mma.sync) */
    const rt_gpu_arch *h = rt_gpu_arch_find(&archs, 90);
    assert_true(rt_gpu_arch_rate(h, "mma_fp16") == rt_gpu_arch_rate(h, "tensor_fp16"));
    assert_true(rt_gpu_arch_rate(h, "mma_fp8") == rt_gpu_arch_rate(h, "tensor_fp16"));
    assert_true(rt_gpu_arch_rate(h, "tensor_fp8") == 2 * rt_gpu_arch_rate(h, "tensor_fp16"));
    assert_close(theoretical("h100-sxm", "tensor_fp8"), 1979e12, 1e-3);
    /* spec-sheet figures the presets do not hold */
    assert_close(theoretical("a100", "fp16"), 78e12, 1e-3);
    assert_close(theoretical("a100", "tensor_tf32"), 156e12, 1e-3);
    assert_close(theoretical("a100", "tensor_int8"), 624e12, 1e-3);
    assert_close(theoretical("a100", "tensor_fp64"), 19.5e12, 1e-2);
    assert_close(theoretical("h100-sxm", "tensor_tf32"), 494.7e12, 1e-3);
    assert_close(theoretical("h100-sxm", "tensor_int8"), 1979e12, 1e-3);
}

/*
 * Every unit of every GPU preset: a unit with a derivation matches it to 1e-6, a spec-sheet
 * figure to 2% (datasheets round: H100 FP64 is 33.5 printed as 34), and a measured one (the
 * paper's ERT figures) lies at or below the theoretical peak.
 */
static void test_presets(void **state)
{
    (void)state;
    assert_true(archs.n_parts >= 4);
    for (size_t i = 0; i < archs.n_parts; i++) {
        const rt_gpu_part *p = &archs.part[i];
        if (!p->preset[0])
            continue; /* a reference part without a preset (the T4) */
        rt_machine *m = NULL;
        rt_error err;
        if (rt_machine_resolve(p->preset, &m, &err) != 0)
            fail_msg("%s", err.msg);
        const rt_gpu_arch *a = rt_gpu_arch_find(&archs, p->sm);
        assert_non_null(a);
        for (size_t u = 0; u < m->n_units; u++) {
            const rt_unit *unit = &m->units[u];
            /* the presets' FP16 Tensor Core unit is still named "tensor" */
            const char *name = strcmp(unit->name, "tensor") == 0 ? "tensor_fp16" : unit->name;
            double th = rt_gpu_theoretical(a, name, p->sms, p->clock_hz, p->tensor_clock_hz);
            if (th <= 0)
                fail_msg("%s: sm_%d has no rate for unit %s", p->preset, p->sm, unit->name);
            int measured = strcmp(m->source, "paper") == 0 && unit->derivation.n == 0;
            if (measured) {
                if (unit->flops > th)
                    fail_msg("%s %s: %.6g above theoretical %.6g", p->preset, unit->name,
                             unit->flops, th);
            } else if (!tu_close(unit->flops, th, unit->derivation.n ? 1e-6 : 0.02)) {
                fail_msg("%s %s: preset %.6g, architectures.json gives %.6g", p->preset, unit->name,
                         unit->flops, th);
            }
        }
        rt_machine_free(m);
    }
}

static void test_lookup(void **state)
{
    (void)state;
    int want[] = {70, 75, 80, 86, 89, 90, 100, 120};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const rt_gpu_arch *a = rt_gpu_arch_find(&archs, want[i]);
        assert_non_null(a);
        assert_true(rt_gpu_arch_rate(a, "fp32") > 0);
        assert_true(rt_gpu_arch_rate(a, "tensor_fp16") > 0);
        assert_true(a->l1_bytes_per_sm > 0);
    }
    assert_null(rt_gpu_arch_find(&archs, 10));
    /* Volta has no BF16 or FP8 Tensor Cores; only Ada and Hopper have FP8 */
    assert_true(rt_gpu_arch_rate(rt_gpu_arch_find(&archs, 70), "tensor_bf16") == 0);
    assert_true(rt_gpu_arch_rate(rt_gpu_arch_find(&archs, 80), "tensor_fp8") == 0);
    assert_true(rt_gpu_arch_rate(rt_gpu_arch_find(&archs, 89), "tensor_fp8") > 0);
    assert_true(rt_gpu_theoretical(rt_gpu_arch_find(&archs, 70), "tensor_fp8", 80, 1e9, 1e9) == 0);
    /* tensor units take the tensor clock, the others the vector clock */
    const rt_gpu_arch *h = rt_gpu_arch_find(&archs, 90);
    assert_close(rt_gpu_theoretical(h, "fp32", 2, 1e9, 5e8), 2 * 1e9 * 256, 1e-12);
    assert_close(rt_gpu_theoretical(h, "tensor_bf16", 2, 1e9, 5e8), 2 * 5e8 * 4096, 1e-12);
    /* the mma_* units exist from sm_90 on: before it mma.sync is the tensor_* ceiling */
    assert_true(rt_gpu_arch_rate(h, "mma_int8") == 8192);
    assert_true(rt_gpu_arch_rate(rt_gpu_arch_find(&archs, 89), "mma_fp16") == 0);
}

/* The Blackwell rows against NVIDIA's figures: the HGX B200 datasheet per GPU (Tensor Core figures
 * with sparsity, halved here) on 148 SMs at the clocks they imply (the row's note), and the RTX
 * 5090's 104.8 TFLOPS FP32 on 170 SMs at 2.41 GHz, FP64 at 1/64 of it as ncu 2025 reports on CC
 * 12.0 (the sm120-llm-decode fixture: 21,760 FFMA and 340 DFMA per cycle). */
static void test_blackwell(void **state)
{
    (void)state;
    const rt_gpu_arch *b = rt_gpu_arch_find(&archs, 100);
    assert_non_null(b);
    static const struct {
        const char *unit;
        double datasheet, tol;
    } b200[] = {
        {"fp64", 37e12, 0.02},
        {"fp32", 75e12, 0.02},
        {"tensor_tf32", 2.2e15 / 2, 0.04},
        {"tensor_fp16", 4.5e15 / 2, 0.01},
        {"tensor_bf16", 4.5e15 / 2, 0.01},
        {"tensor_fp8", 9e15 / 2, 0.01},
        {"tensor_int8", 9e15 / 2, 0.01},
        {"tensor_fp64", 37e12, 0.05},
    };
    for (size_t i = 0; i < sizeof b200 / sizeof b200[0]; i++) {
        double th = rt_gpu_theoretical(b, b200[i].unit, 148, 1.98e9, 1.856e9);
        if (!tu_close(th, b200[i].datasheet, b200[i].tol))
            fail_msg("sm_100 %s: %.4g, the datasheet %.4g", b200[i].unit, th, b200[i].datasheet);
    }
    const rt_gpu_arch *g = rt_gpu_arch_find(&archs, 120);
    assert_non_null(g);
    assert_close(rt_gpu_theoretical(g, "fp32", 170, 2.41e9, 2.41e9), 104.8e12, 0.01);
    assert_true(rt_gpu_arch_rate(g, "fp32") == 2 * 21760.0 / 170);
    assert_true(rt_gpu_arch_rate(g, "fp64") == 2 * 340.0 / 170);
    /* sm_120 has no wgmma nor tcgen05: mma.sync reaches its tensor_* ceilings (no mma_* units) */
    assert_string_equal(g->tensor_instruction, "mma.sync");
    assert_string_equal(rt_gpu_arch_timed_by(g, "tensor_fp8"), "mma.sync");
    assert_true(rt_gpu_arch_rate(g, "mma_fp16") == 0);
    assert_true(rt_gpu_arch_rate(g, "tensor_int8") == 0); /* no figure: no ceiling */
    assert_true(rt_gpu_arch_rate(b, "fp16") == 0);
    /* FP4: the RTX PRO 6000's 4000 AI TOPS with sparsity on 188 SMs at 2.6 GHz; B200's 18 PFLOPS
     * with sparsity */
    assert_close(rt_gpu_theoretical(g, "tensor_fp4", 188, 2.6e9, 2.6e9), 4000e12 / 2, 0.01);
    assert_close(rt_gpu_theoretical(b, "tensor_fp4", 148, 1.98e9, 1.856e9), 18e15 / 2, 0.01);
    /* sm_100: tcgen05.mma reaches the ceilings, DMMA (mma.sync) FP64's; mma.sync is bounded by
     * the same Tensor Cores, its FP8 by FP16's (no FP8 mma.sync: HMMA) and counted as FP16 */
    assert_string_equal(b->tensor_instruction, "tcgen05.mma");
    assert_string_equal(rt_gpu_arch_timed_by(b, "tensor_fp64"), "mma.sync");
    assert_string_equal(rt_gpu_arch_timed_by(b, "mma_fp16"), "mma.sync");
    assert_string_equal(rt_gpu_arch_timed_by(b, "fp32"), "fma");
    assert_true(rt_gpu_arch_rate(b, "mma_fp8") == rt_gpu_arch_rate(b, "tensor_fp16"));
    assert_string_equal(rt_gpu_arch_counted_as(b, "mma_fp8"), "tensor_fp16");
    assert_string_equal(rt_gpu_arch_counted_as(b, "mma_fp16"), "mma_fp16");
    /* the GB200 preset (no part row: NVIDIA publishes no SM count for it) against HGX B200's:
     * the NVL72 datasheet's Tensor Core figures per GPU are 10/9 of the HGX B200's, and each of
     * its units has a rate on sm_100 */
    rt_machine *gb = NULL, *b2 = NULL;
    rt_error err;
    if (rt_machine_resolve("gb200", &gb, &err) || rt_machine_resolve("b200", &b2, &err))
        fail_msg("%s", err.msg);
    static const char *const tc[] = {"tensor_fp16", "tensor_bf16", "tensor_tf32",
                                     "tensor_fp8",  "tensor_int8", "tensor_fp4"};
    for (size_t i = 0; i < sizeof tc / sizeof *tc; i++)
        assert_close(rt_machine_unit(gb, tc[i])->flops, rt_machine_unit(b2, tc[i])->flops * 10 / 9,
                     1e-12);
    for (size_t u = 0; u < gb->n_units; u++)
        assert_true(rt_gpu_arch_rate(b, gb->units[u].name) > 0);
    rt_machine_free(gb);
    rt_machine_free(b2);
    /* a generation without an entry is the nearest one's below */
    assert_ptr_equal(rt_gpu_arch_generation(&archs, 103), b);
    assert_ptr_equal(rt_gpu_arch_generation(&archs, 121), g);
    assert_null(rt_gpu_arch_find(&archs, 103));
}

static void test_bad_file(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/a.json", dir);
    rt_gpu_archs a;
    rt_error err;
    tu_write_file(path,
                  "{\"architectures\": [{\"sm\": 90, \"name\": \"x\", \"l1_bytes_per_sm\": 1, "
                  "\"l1_bytes_per_clock_per_sm\": 1, \"units\": {\"fp32\": -2}}], "
                  "\"parts\": []}");
    assert_int_equal(rt_gpu_archs_load(path, &a, &err), -1);
    assert_non_null(strstr(err.msg, "architectures[0].units.fp32"));
    tu_write_file(path, "{\"architectures\": [], \"parts\": [{\"name\": \"p\"}]}");
    assert_int_equal(rt_gpu_archs_load(path, &a, &err), -1);
    assert_non_null(strstr(err.msg, "parts[0].sm"));
    /* A count that no int holds, or not a count at all: refused, not converted. */
    tu_write_file(path, "{\"architectures\": [], \"parts\": [{\"name\": \"p\", \"sm\": 90, "
                        "\"sms\": 1e300}]}");
    assert_int_equal(rt_gpu_archs_load(path, &a, &err), -1);
    assert_non_null(strstr(err.msg, "parts[0].sms': expected a whole number from 0 to 1000000"));
    tu_write_file(path, "{\"architectures\": [{\"sm\": 9.5}], \"parts\": []}");
    assert_int_equal(rt_gpu_archs_load(path, &a, &err), -1);
    assert_non_null(strstr(err.msg, "architectures[0].sm': expected a whole number"));
    tu_write_file(path, "{\"architectures\": [");
    assert_int_equal(rt_gpu_archs_load(path, &a, &err), -1);
    assert_non_null(strstr(err.msg, "a.json': line 1"));
    /* A field is named by its line and column: the value's, or the object's it is missing from. */
    static const char *const lines = "{\"architectures\": [\n"
                                     "  {\"sm\": 90, \"name\": \"x\", \"l1_bytes_per_sm\": 1, "
                                     "\"l1_bytes_per_clock_per_sm\": 1,\n"
                                     "   \"units\": {\"fp32\": 128, \"fp16\": 0}}],\n"
                                     " \"parts\": []}\n";
    tu_write_file(path, lines);
    assert_int_equal(rt_gpu_archs_load(path, &a, &err), -1);
    char want[256];
    snprintf(want, sizeof want,
             "a.json': %sfield 'architectures[0].units.fp16': 0 is not a rate > 0",
             tu_place(lines, "0}}"));
    if (!strstr(err.msg, want))
        fail_msg("'%s' does not say '%s'", err.msg, want);
    static const char *const part = "{\"architectures\": [],\n"
                                    " \"parts\": [\n"
                                    "  {\"name\": \"p\", \"sm\": 80, \"sms\": 108, \"clock_hz\": "
                                    "1e9, \"tensor_clock_hz\": 1e9,\n"
                                    "   \"preset\": \"a100\"},\n"
                                    "  {\"name\": \"q\", \"sms\": 108}]}\n";
    tu_write_file(path, part);
    assert_int_equal(rt_gpu_archs_load(path, &a, &err), -1);
    snprintf(want, sizeof want, "a.json': %sfield 'parts[1].sm': missing",
             tu_place(part, "{\"name\": \"q\""));
    if (!strstr(err.msg, want))
        fail_msg("'%s' does not say '%s'", err.msg, want);
    /* the instruction families and counters: each names a unit of the entry; the reference
     * part one of 'parts' of the same architecture */
    static const struct {
        const char *entry, *says;
    } bad[] = {
        {"\"units\": {\"fp32\": 1}", "architectures[0].tensor_instruction': missing"},
        {"\"units\": {\"fp32\": 1}, \"tensor_instruction\": \"\"",
         "architectures[0].tensor_instruction': empty"},
        {"\"units\": {\"fp32\": 1}, \"tensor_instruction\": \"x\", \"timed_by\": {\"tensor_fp8\": "
         "\"y\"}",
         "architectures[0].timed_by.tensor_fp8': not one of this entry's units"},
        {"\"units\": {\"fp32\": 1}, \"tensor_instruction\": \"x\", \"counted_as\": {\"fp32\": 3}",
         "architectures[0].counted_as.fp32': expected a name of 1 to 23 bytes"},
        {"\"units\": {\"fp32\": 1}, \"tensor_instruction\": \"x\", \"reference_part\": \"p\"",
         "architectures[0].reference_part': 'p' is no part of sm_90 in 'parts'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char doc[1024];
        snprintf(
            doc, sizeof doc,
            "{\"architectures\": [{\"sm\": 90, \"name\": \"x\", \"l1_bytes_per_sm\": 1, "
            "\"l1_bytes_per_clock_per_sm\": 1, %s}], \"parts\": [{\"name\": \"p\", \"sm\": 80, "
            "\"sms\": 1, \"clock_hz\": 1, \"tensor_clock_hz\": 1}]}",
            bad[i].entry);
        tu_write_file(path, doc);
        assert_int_equal(rt_gpu_archs_load(path, &a, &err), -1);
        if (!strstr(err.msg, bad[i].says))
            fail_msg("'%s' does not say '%s'", err.msg, bad[i].says);
    }
    tu_rmtree(dir);
    free(dir);
}

/* A measured GPU machine: the typed record is written as "gpu", the four launch overheads are
 * typed `overheads`, and a file read back keeps both through another save. */
static void test_gpu_record(void **state)
{
    (void)state;
    rt_machine *m = rt_machine_new("g");
    rt_machine_set_str(&m->source, "measured");
    rt_machine_add_unit(m, "tensor_fp8", 2e15);
    rt_machine_add_level(m, "HBM", 3e12);
    rt_machine_set_str(&m->ref_unit, "tensor_fp8");
    rt_machine_set_str(&m->ref_level, "HBM");
    m->gpu = rt_gpu_measurement_new();
    snprintf(m->gpu->device, sizeof m->gpu->device, "NVIDIA X");
    m->gpu->n_compute = 1;
    snprintf(m->gpu->compute[0].unit, sizeof m->gpu->compute[0].unit, "tensor_fp8");
    m->gpu->compute[0].flops = (rt_spread){2e15, 1.9e15, 2.1e15};
    m->gpu->tau = RT_GPU_TAU_GRAPH;
    for (int i = 0; i < RT_GPU_TAU_COUNT; i++) {
        rt_gpu_overhead *o = &m->gpu->overhead[i];
        snprintf(o->label, sizeof o->label, "%s", rt_gpu_tau_name((rt_gpu_tau)i));
        o->seconds = (rt_spread){(i + 1) * 1e-6, (i + 1) * 1e-6, (i + 1) * 1e-6};
        o->launches = 10;
        rt_machine_add_overhead(m, rt_gpu_tau_overhead_name((rt_gpu_tau)i), 0, o->seconds, "x");
    }
    m->tau = 4e-6;
    json_t *j = rt_machine_to_json(m);
    json_t *g = json_object_get(j, "gpu");
    assert_non_null(g);
    json_t *lo = json_object_get(g, "launch_overheads");
    assert_string_equal(json_string_value(json_object_get(lo, "tau")), "graph");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(lo, "paper"), "overhead_name")),
        "cuda_empty_kernel_event");
    json_decref(j);

    char *dir = tu_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/g.json", dir);
    rt_error err;
    if (rt_machine_save(m, path, &err) != 0)
        fail_msg("%s", err.msg);
    rt_machine *back = NULL;
    if (rt_machine_load(path, &back, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(back->n_overheads, RT_GPU_TAU_COUNT);
    assert_string_equal(back->overheads[0].name, "cuda_empty_kernel_event");
    assert_close(back->overheads[3].seconds.median, 4e-6, 1e-12);
    assert_close(back->tau, 4e-6, 1e-12);
    assert_null(back->gpu); /* read back as an opaque member */
    json_t *again = rt_machine_to_json(back);
    assert_non_null(json_object_get(json_object_get(again, "gpu"), "compute"));
    json_decref(again);
    rt_machine_free(back);
    rt_machine_free(m);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tensor_peaks), cmocka_unit_test(test_presets),
        cmocka_unit_test(test_lookup),       cmocka_unit_test(test_blackwell),
        cmocka_unit_test(test_bad_file),     cmocka_unit_test(test_gpu_record),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
