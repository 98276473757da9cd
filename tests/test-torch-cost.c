/* The PyTorch cost model (data/torch/ops.json) against FLOPs and bytes counted by hand from the
 * shapes, per operator kind, in both convolution conventions; what is missing is said. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/import/torch-cost.h"

static rt_torch_ops *ops;

static int setup(void **state)
{
    (void)state;
    rt_error err;
    if (rt_torch_ops_load(NULL, &ops, &err) != 0)
        fail_msg("%s", err.msg);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rt_torch_ops_free(ops);
    return 0;
}

static rt_torch_cost cost(const char *name, const char *dims, const char *types,
                          const char *concrete, double flops_arg, rt_conv_flops conv)
{
    rt_torch_call c = {name, dims, types, concrete, flops_arg};
    rt_torch_cost out;
    rt_torch_ops_cost(ops, &c, conv, &out);
    return out;
}

#define COSTED(c, f, b)                                                                            \
    do {                                                                                           \
        if ((c).status != RT_TC_COSTED)                                                            \
            fail_msg("not costed: %s", (c).why);                                                   \
        assert_true((c).flops_known);                                                              \
        assert_true((c).bytes_known);                                                              \
        assert_true(fabs((c).flops - (f)) < 1e-6);                                                 \
        assert_true(fabs((c).bytes - (b)) < 1e-6);                                                 \
    } while (0)

/* input [2,3,8,8], weight [4,3,3,3], bias [4], padding 1, stride 2: output 4x4. Whole window:
 * 2*2*4*3*16*9 = 6912 + bias 2*4*16 = 128. Taps inside the input along one axis: output 0 sees
 * 2 of 3, the others 3: 11, so 121 pairs: 2*2*4*3*121 = 5808 + 128. Bytes: (384 + 108 + 4 +
 * 128) * 4. */
#define CONV_DIMS "[[2,3,8,8],[4,3,3,3],[4],[],[],[],[]]"
#define CONV_TYPES "[\"float\",\"float\",\"float\",\"\",\"\",\"\",\"Scalar\"]"
#define CONV_ARGS "[\"\",\"\",\"\",\"[1, 1]\",\"[2, 2]\",\"[1, 1]\",\"1\"]"

static void test_conv_forward(void **state)
{
    (void)state;
    rt_torch_cost c =
        cost("aten::mkldnn_convolution", CONV_DIMS, CONV_TYPES, CONV_ARGS, -1, RT_CONV_WINDOW);
    COSTED(c, 6912 + 128, 624 * 4);
    assert_string_equal(c.unit, "fp32");
    c = cost("aten::mkldnn_convolution", CONV_DIMS, CONV_TYPES, CONV_ARGS, -1, RT_CONV_TAPS);
    COSTED(c, 5808 + 128, 624 * 4);
    /* no concrete arguments: taps cannot be counted; the window from torch's own count */
    c = cost("aten::mkldnn_convolution", CONV_DIMS, CONV_TYPES, NULL, -1, RT_CONV_TAPS);
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    assert_non_null(strstr(c.why, "Concrete Inputs"));
    c = cost("aten::mkldnn_convolution", CONV_DIMS, CONV_TYPES, NULL, 6912, RT_CONV_WINDOW);
    COSTED(c, 6912 + 128, 624 * 4);
}

/* grad_output [2,4,4,4]: input and weight gradients each the forward's pairs, bias 128.
 * Bytes: grad_output 128, input gradient reads the weight 108 and writes 384, weight gradient
 * reads the input 384 and writes 108, bias writes 4: 1116 elements of 4 bytes. */
static void test_conv_backward(void **state)
{
    (void)state;
    const char *dims = "[[2,4,4,4],[2,3,8,8],[4,3,3,3],[],[],[],[],[],[],[],[]]";
    const char *types = "[\"float\",\"float\",\"float\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\"]";
    const char *args = "[\"\",\"\",\"\",\"[4]\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"False\","
                       "\"[0, 0]\",\"1\",\"[True, True, True]\"]";
    rt_torch_cost c = cost("aten::convolution_backward", dims, types, args, -1, RT_CONV_WINDOW);
    COSTED(c, 2 * 6912 + 128, 1116 * 4);
    c = cost("aten::convolution_backward", dims, types, args, -1, RT_CONV_TAPS);
    COSTED(c, 2 * 5808 + 128, 1116 * 4);
    /* without concrete arguments: the window from grad_output, input and weight gradients */
    c = cost("aten::convolution_backward", dims, types, NULL, -1, RT_CONV_WINDOW);
    COSTED(c, 2 * 6912, 1112 * 4);
    c = cost("aten::convolution_backward", dims, types, NULL, -1, RT_CONV_TAPS);
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    /* the first layer: no input gradient */
    const char *first = "[\"\",\"\",\"\",\"[4]\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"False\","
                        "\"[0, 0]\",\"1\",\"[False, True, True]\"]";
    c = cost("aten::convolution_backward", dims, types, first, -1, RT_CONV_TAPS);
    COSTED(c, 5808 + 128, (128 + 384 + 108 + 4) * 4);
}

static void test_matmul(void **state)
{
    (void)state;
    /* addmm: bias [10] + [4,32] x [32,10]: 2*4*10*32 + 40; (10 + 128 + 320 + 40) * 4 bytes */
    rt_torch_cost c = cost("aten::addmm", "[[10],[4,32],[32,10],[],[]]",
                           "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 2560 + 40, 498 * 4);
    /* bmm in bf16: 3 x [4,5] x [5,6]: 2*3*4*6*5; (60 + 90 + 72) * 2 bytes */
    c = cost("aten::bmm", "[[3,4,5],[3,5,6]]", "[\"c10::BFloat16\",\"c10::BFloat16\"]", NULL, -1,
             0);
    COSTED(c, 720, 222 * 2);
    assert_string_equal(c.unit, "bf16");
    /* linear is a dispatcher: its addmm or matmul carries the work */
    c = cost("aten::linear", "[[4,32],[10,32],[10]]", NULL, NULL, -1, 0);
    assert_int_equal(c.status, RT_TC_NONE);
    assert_string_equal(c.klass, "dispatch");
}

static void test_elementwise(void **state)
{
    (void)state;
    /* [4,1,5] + [3,1] broadcast to [4,3,5]: 60 adds; (20 + 3 + 60) * 4 bytes; the Scalar moves
     * nothing */
    rt_torch_cost c =
        cost("aten::add", "[[4,1,5],[3,1],[]]", "[\"float\",\"float\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 60, 83 * 4);
    /* in place: reads both, writes the first */
    c = cost("aten::add_", "[[4,5],[4,5],[]]", "[\"float\",\"float\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 20, 60 * 4);
    /* a 0-dimensional tensor is one element */
    c = cost("aten::mul_", "[[4,5],[]]", "[\"float\",\"float\"]", NULL, -1, 0);
    COSTED(c, 20, (20 + 1 + 20) * 4);
    /* a dtype conversion: fp32 read, bf16 written, no FLOPs */
    c = cost("aten::copy_", "[[4,5],[4,5],[]]", "[\"c10::BFloat16\",\"float\",\"Scalar\"]", NULL,
             -1, 0);
    COSTED(c, 0, 20 * 4 + 20 * 2);
    /* integers are not FLOPs */
    c = cost("aten::add", "[[4],[4],[]]", "[\"long int\",\"long int\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 0, 12 * 8);
    /* the backward of relu: grad and output read, grad written */
    c = cost("aten::threshold_backward", "[[2,8],[2,8],[]]", "[\"float\",\"float\",\"Scalar\"]",
             NULL, -1, 0);
    COSTED(c, 16, 48 * 4);
    /* no types recorded: FLOPs, but bytes unknown */
    c = cost("aten::add_", "[[4,5],[4,5],[]]", NULL, NULL, -1, 0);
    assert_int_equal(c.status, RT_TC_COSTED);
    assert_false(c.bytes_known);
}

static void test_reductions_norms_softmax(void **state)
{
    (void)state;
    rt_torch_cost c = cost("aten::sum", "[[2,3,4]]", "[\"float\"]", NULL, -1, 0);
    COSTED(c, 24, 24 * 4);
    c = cost("aten::_softmax", "[[8,10],[],[]]", "[\"float\",\"Scalar\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 5 * 80, 160 * 4);
    /* batch norm backward: grad_output and input [2,3,4,4], five per-channel vectors read;
     * grad_input, grad_weight and grad_bias written */
    c = cost("aten::native_batch_norm_backward",
             "[[2,3,4,4],[2,3,4,4],[3],[3],[3],[3],[3],[],[],[]]",
             "[\"float\",\"float\",\"float\",\"float\",\"float\",\"float\",\"float\",\"Scalar\","
             "\"Scalar\",\"\"]",
             NULL, -1, 0);
    COSTED(c, 9 * 96, (96 + 96 + 15 + 96 + 3 + 3) * 4);
    c = cost("aten::nll_loss_forward", "[[16,10],[16],[],[],[]]",
             "[\"float\",\"long int\",\"\",\"Scalar\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 16, 16 * 8);
}

static void test_pool_embedding_views(void **state)
{
    (void)state;
    /* 2x2 max pooling of [2,3,8,8], stride 2: 96 outputs of 4 taps; indices int64 */
    rt_torch_cost c =
        cost("aten::max_pool2d_with_indices", "[[2,3,8,8],[],[],[],[],[]]",
             "[\"float\",\"\",\"\",\"\",\"\",\"Scalar\"]",
             "[\"\",\"[2, 2]\",\"[2, 2]\",\"[0, 0]\",\"[1, 1]\",\"False\"]", -1, RT_CONV_TAPS);
    COSTED(c, 384, 384 * 4 + 96 * 4 + 96 * 8);
    c = cost("aten::max_pool2d_with_indices", "[[2,3,8,8],[],[],[],[],[]]", NULL, NULL, -1, 0);
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    /* embedding: 28 indices of 16-wide rows, gathered and written */
    c = cost("aten::embedding", "[[100,16],[4,7],[],[],[]]",
             "[\"float\",\"long int\",\"Scalar\",\"Scalar\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 0, 2 * 28 * 16 * 4 + 28 * 8);
    c = cost("aten::view", "[[4,5],[]]", "[\"float\",\"\"]", NULL, -1, 0);
    assert_int_equal(c.status, RT_TC_NONE);
    assert_string_equal(c.klass, "view");
    c = cost("autograd::engine::evaluate_function: AddmmBackward0", NULL, NULL, NULL, -1, 0);
    assert_int_equal(c.status, RT_TC_NONE);
    c = cost("aten::some_new_op", "[[4]]", "[\"float\"]", NULL, -1, 0);
    assert_int_equal(c.status, RT_TC_UNKNOWN);
}

static void test_bad_tables(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/ops.json", dir);
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"{\"schema\": \"x\"}", "field 'schema'"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": []}", "field 'ops'"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [{\"model\": \"magic\", \"ops\": "
         "[\"a\"]}]}",
         "ops[0]: field 'model'"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [{\"model\": \"stream\", \"flops\": "
         "\"2 * bogus\", \"ops\": [\"a\"]}]}",
         "field 'flops'"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [{\"model\": \"none\", \"class\": "
         "\"view\", \"ops\": [\"a\", \"a\"]}]}",
         "listed twice"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [{\"model\": \"matmul\", \"a\": 99, "
         "\"b\": 1, \"ops\": [\"a\"]}]}",
         "field 'a'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(tu_write_file(path, bad[i].text), 0);
        rt_torch_ops *o = NULL;
        rt_error err;
        assert_int_equal(rt_torch_ops_load(path, &o, &err), -1);
        assert_null(o);
        if (!strstr(err.msg, bad[i].msg))
            fail_msg("'%s' does not say '%s'", err.msg, bad[i].msg);
        assert_non_null(strstr(err.msg, path));
    }
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_forward),
        cmocka_unit_test(test_conv_backward),
        cmocka_unit_test(test_matmul),
        cmocka_unit_test(test_elementwise),
        cmocka_unit_test(test_reductions_norms_softmax),
        cmocka_unit_test(test_pool_embedding_views),
        cmocka_unit_test(test_bad_tables),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
