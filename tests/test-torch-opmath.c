/* The cost model's opmath (data/torch/ops.json): the unit a call's FLOPs count on where PyTorch
 * computes its data in another precision (bf16 and fp16 elementwise work in fp32), the data's
 * precision kept; and the table's checks of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/import/torch-cost.h"

#include "torch-ops-fixture.h"

static rt_torch_cost cost(const char *name, const char *dims, const char *types,
                          const char *concrete, double flops_arg, rt_conv_flops conv)
{
    rt_torch_call c = {name, dims, types, concrete, flops_arg};
    rt_torch_cost out;
    rt_torch_ops_cost(ops, &c, conv, &out);
    return out;
}

/* The table's opmath: the elementwise work, reductions, normalizations and pooling of bf16 and
 * fp16 data count on fp32, where torch computes them; matrix products, convolutions and attention
 * on their data's precision; fp32 and fp64 stay. The precision is always the data's. */
static void test_opmath(void **state)
{
    (void)state;
    static const struct {
        const char *name, *dims, *types, *concrete, *precision, *unit;
    } calls[] = {
        {"aten::gelu", "[[4,8],[]]", "[\"c10::BFloat16\",\"\"]", NULL, "bf16", "fp32"},
        {"aten::add_", "[[4,8],[4,8],[]]", "[\"c10::Half\",\"c10::Half\",\"Scalar\"]", NULL, "fp16",
         "fp32"},
        {"aten::native_layer_norm", "[[4,8],[],[8],[8],[]]",
         "[\"c10::BFloat16\",\"\",\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\"]", NULL, "bf16",
         "fp32"},
        {"aten::sum", "[[4,8],[],[],[]]", "[\"c10::BFloat16\",\"\",\"Scalar\",\"\"]", NULL, "bf16",
         "fp32"},
        {"aten::avg_pool2d", "[[1,2,4,4],[],[],[],[],[],[]]",
         "[\"c10::BFloat16\",\"\",\"\",\"\",\"Scalar\",\"Scalar\",\"\"]",
         "[\"\",\"[2, 2]\",\"[2, 2]\",\"[0, 0]\",\"False\",\"True\",\"\"]", "bf16", "fp32"},
        {"aten::mm", "[[4,8],[8,2]]", "[\"c10::BFloat16\",\"c10::BFloat16\"]", NULL, "bf16",
         "bf16"},
        {"aten::mm", "[[4,8],[8,2]]", "[\"c10::Half\",\"c10::Half\"]", NULL, "fp16", "fp16"},
        {"aten::_scaled_dot_product_flash_attention_for_cpu", "[[1,2,4,8],[1,2,4,8],[1,2,4,8]]",
         "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]", NULL, "bf16", "bf16"},
        {"aten::gelu", "[[4,8],[]]", "[\"double\",\"\"]", NULL, "fp64", "fp64"},
        {"aten::gelu", "[[4,8],[]]", "[\"float\",\"\"]", NULL, "fp32", "fp32"},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        rt_torch_cost c =
            cost(calls[i].name, calls[i].dims, calls[i].types, calls[i].concrete, -1, 0);
        if (c.status != RT_TC_COSTED || !(c.flops > 0))
            fail_msg("%s (%s): not costed with FLOPs: %s", calls[i].name, calls[i].types, c.why);
        assert_string_equal(c.precision, calls[i].precision);
        if (strcmp(c.unit, calls[i].unit) != 0)
            fail_msg("%s (%s): FLOPs on %s, expected %s", calls[i].name, calls[i].types, c.unit,
                     calls[i].unit);
    }
    /* a table without opmath counts every call on its data's precision */
    char *dir = tu_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/ops.json", dir);
    assert_int_equal(tu_write_file(path, "{\"schema\": \"rooftime.torch-ops/1\", \"ops\": "
                                         "[{\"model\": \"stream\", \"flops\": \"1 * out\", "
                                         "\"ops\": [\"aten::gelu\"]}]}"),
                     0);
    rt_torch_ops *plain = NULL;
    rt_error err;
    assert_int_equal(rt_torch_ops_load(path, &plain, &err), 0);
    rt_torch_call call = {"aten::gelu", "[[4,8],[]]", "[\"c10::BFloat16\",\"\"]", NULL, -1};
    rt_torch_cost c;
    rt_torch_ops_cost(plain, &call, 0, &c);
    assert_int_equal(c.status, RT_TC_COSTED);
    assert_string_equal(c.unit, "bf16");
    assert_string_equal(c.precision, "bf16");
    rt_torch_ops_free(plain);
    tu_rmtree(dir);
    free(dir);
}

/* A table's opmath that cannot be read: the file, the field and why. */
static void test_bad_opmath(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/ops.json", dir);
    static const struct {
        const char *text, *msg;
    } bad[] = {
        /* opmath: a precision no recorded type has, a unit that is not one, a model unknown,
         * the members missing or of the wrong kind */
        {"{\"schema\": \"rooftime.torch-ops/1\", \"opmath\": {\"units\": {\"fp8\": "
         "\"fp32\"}, \"models\": []}, \"ops\": [{\"model\": \"stream\", \"flops\": \"out\", "
         "\"ops\": [\"a\"]}]}",
         "field 'opmath.units.fp8': not a precision of a recorded floating type"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"opmath\": {\"units\": {\"bf16\": "
         "\"tensor_bf16\"}, \"models\": []}, \"ops\": [{\"model\": \"stream\", \"flops\": "
         "\"out\", \"ops\": [\"a\"]}]}",
         "field 'opmath.units.bf16': not a precision"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"opmath\": {\"units\": {\"bf16\": 3}, "
         "\"models\": []}, \"ops\": [{\"model\": \"stream\", \"flops\": \"out\", \"ops\": "
         "[\"a\"]}]}",
         "field 'opmath.units.bf16'"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"opmath\": {\"units\": {}, \"models\": "
         "[\"stream\", \"magic\"]}, \"ops\": [{\"model\": \"stream\", \"flops\": \"out\", "
         "\"ops\": [\"a\"]}]}",
         "field 'opmath.models[1]': not the name of a model"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"opmath\": {\"models\": []}, \"ops\": "
         "[{\"model\": \"stream\", \"flops\": \"out\", \"ops\": [\"a\"]}]}",
         "field 'opmath.units'"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"opmath\": {\"units\": {}}, \"ops\": "
         "[{\"model\": \"stream\", \"flops\": \"out\", \"ops\": [\"a\"]}]}",
         "field 'opmath.models'"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"opmath\": [], \"ops\": [{\"model\": "
         "\"stream\", \"flops\": \"out\", \"ops\": [\"a\"]}]}",
         "field 'opmath'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_table_refused(path, bad[i].text, bad[i].msg);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opmath),
        cmocka_unit_test(test_bad_opmath),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
