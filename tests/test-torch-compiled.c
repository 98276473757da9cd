/* torch.compile's fused CPU kernels in the PyTorch cost model (issue 44): the buffers the runner
 * of profile --torch reads from inductor's generated code, and the operators a kernel's name
 * lists, costed per element by the table. On a trace recorded on torch 2.15 (tests/data/README.md)
 * and on calls made up to reach each refusal. Figures counted by hand from the shapes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/torch-cost.h"
#include "rooftime/import/torch.h"

#include "torch-ops-fixture.h"

#define F4 "\"float\""

static rt_torch_cost cost(const char *name, const char *dims, const char *types, const char *access)
{
    rt_torch_call c = {name, dims, types, access, -1};
    rt_torch_cost out;
    rt_torch_ops_cost(ops, &c, RT_CONV_TAPS, &out);
    return out;
}

/* The call is uncovered, its reason holding why. */
static void refused(const char *name, const char *dims, const char *types, const char *access,
                    const char *why)
{
    rt_torch_cost c = cost(name, dims, types, access);
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    assert_string_equal(c.klass, "compiled");
    if (!strstr(c.why, "compiled kernel, work not counted") || !strstr(c.why, why))
        fail_msg("%s: why '%s', expected '%s'", name, c.why, why);
}

/* Made-up calls: a reduction kernel costed, and each thing that leaves one uncounted. */
static void test_names(void **state)
{
    (void)state;
    /* add, mean, mul, pow, rsqrt (one FLOP per element each) over the smallest buffer written,
     * [4,1]; bytes every buffer once: (4 + 4*8 + 8 + 4*8) * 4 */
    rt_torch_cost c = cost("graph_0_cpp_fused_add_mean_mul_pow_rsqrt_0", "[[4,1],[4,8],[8],[4,8]]",
                           "[" F4 "," F4 "," F4 "," F4 "]", "[\"in_out\",\"in\",\"in\",\"out\"]");
    assert_int_equal(c.status, RT_TC_COSTED);
    assert_string_equal(c.klass, "compiled");
    assert_true(c.flops_known && c.bytes_known);
    assert_true(fabs(c.flops - 5 * 4) < 1e-9);
    assert_true(fabs(c.bytes - (4 + 32 + 8 + 32) * 4) < 1e-9);
    assert_string_equal(c.unit, "fp32");
    /* bf16: 2 bytes an element, precision bf16, computed in fp32 (inductor upcasts: the table's
     * opmath); gelu 8 a element, a view none */
    c = cost("cpp_fused_gelu_view_7", "[[16],[16]]", "[\"c10::BFloat16\",\"c10::BFloat16\"]",
             "[\"in\",\"out\"]");
    assert_int_equal(c.status, RT_TC_COSTED);
    assert_true(fabs(c.flops - 8 * 16) < 1e-9 && fabs(c.bytes - 2 * 16 * 2) < 1e-9);
    assert_string_equal(c.precision, "bf16");
    assert_string_equal(c.unit, "fp32");
    /* a copy: no FLOPs, integer buffers: no unit */
    c = cost("cpp_fused_cat_transpose_3", "[[2,3],[3,2]]", "[\"long int\",\"long int\"]",
             "[\"in\",\"out\"]");
    assert_int_equal(c.status, RT_TC_COSTED);
    assert_true(c.flops == 0 && fabs(c.bytes - 2 * 6 * 8) < 1e-9);
    assert_null(c.unit);

    const char *d2 = "[[4],[4]]", *t2 = "[" F4 "," F4 "]", *a2 = "[\"in\",\"out\"]";
    refused("cpp_fused_gelu_0", NULL, NULL, NULL, "no record of its buffers");
    refused("cpp_fused_gelu_0", d2, t2, NULL, "'Concrete Inputs'");
    refused("cpp_fused_gelu_0", d2, t2, "[\"in\"]", "'Concrete Inputs'");
    refused("cpp_fused_gelu_0", d2, t2, "[\"in\",\"sideways\"]", "known type and use");
    refused("cpp_fused_gelu_0", d2, "[" F4 ",\"TensorList\"]", a2, "known type and use");
    refused("cpp_fused_gelu_0", d2, t2, "[\"in\",\"in\"]", "writes none");
    refused("cpp_fused_gelu", d2, t2, a2, "does not list the operators");
    refused("cpp_fused__0", d2, t2, a2, "does not list the operators");
    refused("triton_poi_0", d2, t2, a2, "does not list the operators");
    refused("cpp_fused_frobnicate_0", d2, t2, a2, "reads as no sorted list");
    /* inductor lists each operator once, sorted: mul before add is no reading */
    refused("cpp_fused_mul_add_0", d2, t2, a2, "reads as no sorted list");
    refused("cpp_fused_mul_mul_0", d2, t2, a2, "reads as no sorted list");
    /* log_softmax, or log then softmax: two readings, neither taken */
    refused("cpp_fused_log_softmax_0", d2, t2, a2, "reads as more than one sorted list");
    refused("cpp_fused_mm_relu_0", d2, t2, a2, "aten::mm (work its buffers do not tell)");
    refused("cpp_fused_relu_0", d2, t2, a2, "aten::relu (a dispatcher");
    refused("cpp_fused_add_slice_0", d2, t2, a2, "aten::slice (a view that may read part");
    refused("cpp_fused_bernoulli_0", d2, t2, a2, "aten::bernoulli (work no count");
    refused("cpp_fused_gather_0", d2, t2, a2, "aten::gather (reads at data-dependent");
    /* more buffers than are looked at: refused, never costed from the first 32 */
    char dims[400] = "[", types[800] = "[", access[800] = "[";
    for (int i = 0; i < 33; i++) {
        strcat(dims, i ? ",[2]" : "[2]");
        strcat(types, i ? "," F4 : F4);
        if (i < 32)
            strcat(access, i ? ",\"out\"" : "\"out\"");
    }
    strcat(dims, "]");
    strcat(types, "]");
    strcat(access, "]");
    refused("cpp_fused_add_0", dims, types, access, "up to 32");
    access[strlen(access) - 1] = 0;
    strcat(access, ",\"out\"]");
    refused("cpp_fused_add_0", dims, types, access, "up to 32");
    /* more parts than are read */
    char name[400] = "cpp_fused";
    for (int i = 0; i < 70; i++)
        strcat(name, "_add");
    strcat(name, "_0");
    refused(name, d2, t2, a2, "more than 64 parts");
}

static const char *data_path(const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/tests/data/%s", tu_src(), name);
    return buf;
}

static const rt_kernel *kernel(const rt_profile *p, const char *name)
{
    for (size_t i = 0; i < p->n_kernels; i++)
        if (strcmp(p->kernels[i].name, name) == 0)
            return &p->kernels[i];
    fail_msg("no kernel '%s'", name);
    return NULL;
}

/* A torch.compile'd transformer block's training step, recorded by profile --torch on torch 2.15
 * (examples/torch/transformer.py block --compile, dim 32, 2 heads, batch 2, sequence 16): its
 * kernels' buffers as the runner read them from the generated code beside it (tests/data). */
static void test_recorded(void **state)
{
    (void)state;
    rt_torch_options o = {.ops = ops, .by_source = 1};
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    if (rt_import_torch_opts(data_path("torch-2.15-compiled-block.json"), &o, &p, &w, &err) != 0)
        fail_msg("%s", err.msg);
    /* the SiLU-gated product: up and gate [32,128] read, [2,16,128] written, 4096 elements each;
     * _unsafe_view 0 + mul 1 + silu 3 FLOPs an element: 16384 FLOPs, 3 * 4096 * 4 bytes */
    const rt_kernel *k =
        kernel(p, "graph_0_cpp_fused__unsafe_view_mul_silu_2 [[32,128],[32,128],[2,16,128]]");
    assert_true(k->invocations == 1);
    assert_true(fabs(rt_values_get(&k->flops, "fp32", 0) - 16384) < 1e-9);
    assert_true(fabs(rt_values_get(&k->bytes, "DRAM", 0) - 49152) < 1e-9);
    /* RMSNorm: the [2,16,1] statistics and [2,16,32] output written, the smallest 32 elements;
     * add, mean, mul, pow, rsqrt once each: 160 FLOPs (a lower bound); bytes
     * (32 + 1024 + 32 + 1024) * 4 */
    k = kernel(p, "graph_0_cpp_fused_add_mean_mul_pow_rsqrt_0 [[2,16,1],[2,16,32],[32],[2,16,32]]");
    assert_true(fabs(rt_values_get(&k->flops, "fp32", 0) - 160) < 1e-9);
    assert_true(fabs(rt_values_get(&k->bytes, "DRAM", 0) - 8448) < 1e-9);
    /* the backward's layout copy for attention's statistics lists the attention backward: its
     * work is not the buffers', the kernel stays uncounted, said why */
    const char *unc = rt_tags_get(&p->provenance.notes, "torch_uncovered");
    assert_non_null(unc);
    assert_non_null(strstr(unc, "graph_0_cpp_fused__scaled_dot_product_flash_attention_for_cpu_"
                                "backward_transpose_view_2 (compiled kernel, work not counted: "
                                "it fuses aten::_scaled_dot_product_flash_attention_for_cpu_"
                                "backward"));
    assert_null(strstr(unc, "silu"));
    assert_null(strstr(unc, "no record of its buffers"));
    rt_warnings_release(&w);
    rt_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_recorded),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
