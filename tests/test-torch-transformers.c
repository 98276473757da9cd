/* The PyTorch cost model on what transformers run on torch 2.x (issue 44): scaled dot-product
 * attention in its CPU and GPU kernels' layouts, the fused optimizers' tensor lists, the boolean
 * and masking operators; torch.compile's wrappers, regions and kernels as the importer classifies
 * them, and the verdict of a framework-overhead kernel. Figures counted by hand from the shapes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/torch-cost.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/strings.h"

#include "torch-ops-fixture.h"

static rt_torch_cost cost(const char *name, const char *dims, const char *types)
{
    rt_torch_call c = {name, dims, types, NULL, -1};
    rt_torch_cost out;
    rt_torch_ops_cost(ops, &c, RT_CONV_TAPS, &out);
    return out;
}

static void costed(const rt_torch_cost *c, double flops, double bytes, const char *unit)
{
    if (c->status != RT_TC_COSTED)
        fail_msg("not costed: %s", c->why);
    assert_true(c->flops_known && c->bytes_known);
    assert_true(fabs(c->flops - flops) < 1e-6);
    assert_true(fabs(c->bytes - bytes) < 1e-6);
    if (unit)
        assert_string_equal(c->unit, unit);
    else
        assert_null(c->unit);
}

#define F4 "\"float\""

/* q [2,4,16,8], k and v [2,4,32,8]: BH 8, L 16, S 32, E = Ev = 8. Forward 2 BH L S (E + Ev) +
 * 5 BH L S = 131072 + 20480; backward 2 BH L S (3 E + 2 Ev) + 4 BH L S = 327680 + 16384. */
static void test_attention(void **state)
{
    (void)state;
    rt_torch_cost c = cost("aten::_scaled_dot_product_flash_attention_for_cpu",
                           "[[2,4,16,8],[2,4,32,8],[2,4,32,8],[],[],[],[]]",
                           "[" F4 "," F4 "," F4 ",\"Scalar\",\"Scalar\",\"\",\"\"]");
    /* q, k, v read (1024 + 2048 + 2048 elements), the output [2,4,16,8] written, 4 bytes */
    costed(&c, 151552, (1024 + 2048 + 2048 + 1024) * 4, "fp32");
    c = cost("aten::_scaled_dot_product_flash_attention_for_cpu_backward",
             "[[2,4,16,8],[2,4,16,8],[2,4,32,8],[2,4,32,8],[2,4,16,8],[2,4,16],[],[],[],[]]",
             "[" F4 "," F4 "," F4 "," F4 "," F4 "," F4 ",\"Scalar\",\"Scalar\",\"\",\"\"]");
    /* grad_out, q, k, v, out, logsumexp read; the gradients of q, k, v written */
    costed(&c, 344064, (1024 + 1024 + 2048 + 2048 + 1024 + 128 + 5120) * 4, "fp32");
    /* a GPU's flash kernel, [B, L, H, E], bf16: the same sizes */
    c = cost("aten::_flash_attention_forward", "[[2,16,4,8],[2,32,4,8],[2,32,4,8],[],[],[],[]]",
             "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"\",\"\",\"\",\"\"]");
    costed(&c, 151552, (1024 + 2048 + 2048 + 1024) * 2, "bf16");
    /* a packed batch of sequences ([total, H, E]): their lengths are not recorded */
    c = cost("aten::_flash_attention_forward", "[[32,4,8],[64,4,8],[64,4,8],[3],[3]]",
             "[\"c10::Half\",\"c10::Half\",\"c10::Half\",\"int\",\"int\"]");
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    assert_non_null(strstr(c.why, "packed batch"));
    /* the memory-efficient kernel reads its bias [2,4,16,32] too; Ev 12 differs from E */
    c = cost("aten::_scaled_dot_product_efficient_attention",
             "[[2,4,16,8],[2,4,32,8],[2,4,32,12],[2,4,16,32],[],[],[]]",
             "[" F4 "," F4 "," F4 "," F4 ",\"\",\"Scalar\",\"\"]");
    costed(&c, 2.0 * 8 * 16 * 32 * (8 + 12) + 5 * 8 * 16 * 32,
           (1024 + 2048 + 3072 + 4096 + 8 * 16 * 12) * 4, "fp32");
    /* k's head size must be q's */
    c = cost("aten::_scaled_dot_product_flash_attention_for_cpu",
             "[[2,4,16,8],[2,4,32,6],[2,4,32,8]]", "[" F4 "," F4 "," F4 "]");
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    /* the dispatcher defers to whichever kernel it calls; the CUDA wrapper to flash's own */
    assert_true(rt_torch_ops_defers(ops, "aten::scaled_dot_product_attention",
                                    "aten::_scaled_dot_product_flash_attention_for_cpu"));
    assert_true(rt_torch_ops_defers(ops, "aten::_scaled_dot_product_flash_attention",
                                    "aten::_flash_attention_forward"));
}

/* _fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, ...): lists
 * of [3] and [5]; max_exp_avg_sqs empty (no amsgrad, written by the runner as type ""). */
static void test_fused_optimizer_and_lists(void **state)
{
    (void)state;
    const char *dims = "[[[3],[5]],[[3],[5]],[[3],[5]],[[3],[5]],[],[[],[]],[],[]]";
    rt_torch_cost c = cost("aten::_fused_adamw_", dims,
                           "[" F4 "," F4 "," F4 "," F4 ",\"\"," F4 ",\"Scalar\",\"Scalar\"]");
    /* 12 per parameter element; four lists of 8 and two 0-d steps read, three lists written */
    costed(&c, 12 * 8, (4 * 8 + 2) * 4 + 3 * 8 * 4, "fp32");
    /* torch 2.x's own record of a list: its shapes, of type 'TensorList' */
    c = cost("aten::_fused_adamw_", dims,
             "[\"TensorList\",\"TensorList\",\"TensorList\",\"TensorList\",\"TensorList\","
             "\"TensorList\",\"Scalar\",\"Scalar\"]");
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    assert_non_null(strstr(c.why, "without its element type"));
    /* torch._foreach_pow(beta, steps): elementwise over the list, its second argument */
    c = cost("aten::_foreach_pow", "[[],[[],[],[]]]", "[\"Scalar\"," F4 "]");
    costed(&c, 3, 3 * 4 + 3 * 4, "fp32");
}

static void test_masks_norms(void **state)
{
    (void)state;
    rt_torch_cost c = cost("aten::isneginf", "[[4,8]]", "[" F4 "]");
    costed(&c, 32, 32 * 4 + 32, "fp32"); /* a boolean output, one byte each */
    c = cost("aten::_safe_softmax", "[[4,8],[],[]]", "[" F4 ",\"\",\"\"]");
    costed(&c, 5 * 32, 2 * 32 * 4, "fp32");
    c = cost("aten::triu", "[[16,16],[]]", "[\"bool\",\"Scalar\"]");
    costed(&c, 0, 2 * 256, NULL);
    c = cost("aten::_fused_rms_norm", "[[4,64],[],[64],[]]", "[" F4 ",\"\"," F4 ",\"Scalar\"]");
    costed(&c, 4 * 256, (256 + 64 + 256) * 4, "fp32");
}

/* torch.compile: what the table says of its events */
static void test_compiled_classes(void **state)
{
    (void)state;
    rt_torch_cost c = cost("CompiledFunction", "[[8,64]]", "[" F4 "]");
    assert_int_equal(c.status, RT_TC_NONE);
    assert_string_equal(c.klass, "framework");
    c = cost("Torch-Compiled Region: 2/1", NULL, NULL);
    assert_string_equal(c.klass, "framework");
    c = cost("graph_0_cpp_fused_gelu_0", NULL, NULL);
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    assert_non_null(strstr(c.why, "compiled kernel, work not counted"));
    c = cost("## Call CompiledFxGraph fabc ##", NULL, NULL);
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    assert_non_null(strstr(c.why, "compiled region, work not counted"));
}

#define EV(name, cat, ts, dur)                                                                     \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts      \
    ",\"dur\":" #dur "}"

static rt_profile *import(const char *trace)
{
    rt_torch_options o = {.ops = ops, .by_source = 1};
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    if (rt_import_torch_text_opts(trace, strlen(trace), "c.json", &o, &p, &w, &err) != 0)
        fail_msg("%s", err.msg);
    rt_warnings_release(&w);
    return p;
}

/* Region 0 runs its kernel under kernel profiling, region 1 its kernels unrecorded. */
#define COMPILED_TRACE                                                                             \
    "{\"torch_version\": \"2.15.0+cu132\", \"traceEvents\": [" EV(                                 \
        "Torch-Compiled Region: 0/0", "cpu_op", 0,                                                 \
        100) "," EV("CompiledFunction", "cpu_op", 10,                                              \
                    80) "," EV("## Call CompiledFxGraph fa ##", "user_annotation", 20,             \
                               60) "," EV("graph_0_cpp_fused_gelu_0", "cpu_op", 30,                \
                                          40) "," EV("Torch-Compiled Region: 1/0", "cpu_op", 200,  \
                                                     50) "," EV("## Call CompiledFxGraph fb ##",   \
                                                                "user_annotation", 210, 30) "]}"

static const rt_kernel *kernel(const rt_profile *p, const char *prefix)
{
    for (size_t i = 0; i < p->n_kernels; i++)
        if (strncmp(p->kernels[i].name, prefix, strlen(prefix)) == 0)
            return &p->kernels[i];
    fail_msg("no kernel '%s'", prefix);
    return NULL;
}

/* A compiled call with its kernel recorded (inductor's kernel profiling) and one without: the
 * wrappers are the framework's overhead, the region's own time too where its kernel is below
 * it, and "compiled region, work not counted" where it is not. The overhead's verdict is the
 * launch bound. */
static void test_compiled_trace(void **state)
{
    (void)state;
    rt_profile *p = import(COMPILED_TRACE);
    const rt_kernel *k = kernel(p, "CompiledFunction");
    assert_string_equal(rt_tags_get(&k->tags, "class"), "overhead");
    assert_string_equal(rt_tags_get(&k->tags, "compiled"), "wrapper");
    k = kernel(p, "## Call CompiledFxGraph fa");
    assert_string_equal(rt_tags_get(&k->tags, "compiled"), "region");
    assert_true(fabs(k->time - 20e-6) < 1e-12); /* 60 less its kernel's 40 */
    k = kernel(p, "## Call CompiledFxGraph fb");
    assert_null(rt_tags_get(&k->tags, "class"));
    const char *unc = rt_tags_get(&p->provenance.notes, "torch_uncovered");
    assert_non_null(
        strstr(unc, "## Call CompiledFxGraph fb ## (compiled region, work not counted"));
    assert_non_null(strstr(unc, "graph_0_cpp_fused_gelu_0 (compiled kernel, work not counted"));
    assert_string_equal(rt_tags_get(&p->provenance.notes, "torch_version"), "2.15.0+cu132");

    rt_machine *m = rt_machine_new("toy");
    rt_machine_add_unit(m, "fp32", 1e12);
    rt_machine_add_level(m, "DRAM", 1e11);
    m->tau = 10e-6;
    m->ref_unit = rt_strdup("fp32");
    m->ref_level = rt_strdup("DRAM");
    rt_verdict v;
    rt_warnings w = {0};
    rt_verdict_compute(m, RT_MODE_HIER, kernel(p, "CompiledFunction"), "k", &v, &w);
    assert_int_equal(v.bound, RT_BOUND_OVERHEAD);
    assert_int_equal(v.evidence, RT_EVIDENCE_FULL);
    assert_true(fabs(v.t_bound - 10e-6) < 1e-12); /* one call, tau */
    rt_verdict_release(&v);
    /* the region without its kernel: no verdict, as any kernel without counts */
    rt_verdict_compute(m, RT_MODE_HIER, kernel(p, "## Call CompiledFxGraph fb"), "k", &v, &w);
    assert_int_equal(v.bound, RT_BOUND_UNKNOWN);
    rt_verdict_release(&v);
    rt_warnings_release(&w);
    rt_machine_free(m);
    rt_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attention),      cmocka_unit_test(test_fused_optimizer_and_lists),
        cmocka_unit_test(test_masks_norms),    cmocka_unit_test(test_compiled_classes),
        cmocka_unit_test(test_compiled_trace),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
