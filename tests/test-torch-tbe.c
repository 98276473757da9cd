/* The cost model of fbgemm's table-batched embeddings (data/torch/ops.json's model tbe) against
 * bytes counted by hand from the shapes of the calls, as the profiler records
 * split_embedding_codegen_lookup_rowwise_adagrad_function (29 arguments) and its backward; every
 * count a lower bound, and what is missing said. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/import/torch-cost.h"

#include "torch-ops-fixture.h"

#define FWD "fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function"
#define BWD "torch::autograd::CppNode<SplitLookupFunction_rowwise_adagrad_Op>"

/* The recorded types of the forward's 29 arguments (the fixture's); iw: the per-sample weights
 * are a float tensor, else not recorded. */
static void fwd_types(char *out, size_t n, int iw)
{
    snprintf(out, n,
             "[\"float\",\"c10::Half\",\"c10::Half\",\"c10::Half\",\"int\",\"long\",\"int\","
             "\"Scalar\",\"Scalar\",\"long\",\"Scalar\",\"long\",\"long\",\"Scalar\",\"%s\",\"\","
             "\"int\",\"Scalar\",\"Scalar\",\"Scalar\",\"float\",\"float\",\"int\",\"long\","
             "\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\"]",
             iw ? "float" : "");
}

/* The forward's shapes: T tables, W weights, L indices, B bags per table, R rows of momentum. */
static void fwd_dims(char *out, size_t n, int T, int W, int L, int B, int R, int iw)
{
    char iws[32] = "[]";
    if (iw)
        snprintf(iws, sizeof iws, "[%d]", L);
    snprintf(out, n,
             "[[0],[%d],[0],[0,0],[%d],[%d],[%d],[],[],[%d],[],[%d],[%d],[],%s,[],[0],[],[],[],"
             "[%d],[0],[%d],[%d],[],[],[],[],[]]",
             W, T, T, T + 1, T + 1, L, T * B + 1, iws, R, T, T);
}

static rt_torch_cost fwd(int T, int W, int L, int B, int R, int iw, const char *concrete)
{
    char dims[512], types[512];
    fwd_dims(dims, sizeof dims, T, W, L, B, R, iw);
    fwd_types(types, sizeof types, iw);
    rt_torch_call c = {FWD, dims, types, concrete, -1};
    rt_torch_cost out;
    rt_torch_ops_cost(ops, &c, 0, &out);
    return out;
}

#define LOWER(c, b)                                                                                \
    do {                                                                                           \
        if ((c).status != RT_TC_COSTED)                                                            \
            fail_msg("not costed: %s", (c).why);                                                   \
        assert_true((c).flops_known && (c).bytes_known);                                           \
        assert_true((c).flops == 0);                                                               \
        assert_true(fabs((c).bytes - (b)) < 1e-6);                                                 \
        assert_true((c).lower_bound);                                                              \
    } while (0)

/* One table, weighted: 80 half weights in 5 rows (the momentum's 5 elements): D = 16. B = 3
 * bags, L = 10 indices. Read: 10 indices (8 B), 4 offsets (8 B), 10 per-sample weights (4 B),
 * 10 rows of 16 halves; written: [3, 16] at 2 B (half, the smallest output type). */
static void test_forward_one_table(void **state)
{
    (void)state;
    rt_torch_cost c = fwd(1, 80, 10, 3, 5, 1, NULL);
    LOWER(c, 10 * 8 + 4 * 8 + 10 * 4 + 10 * 16 * 2 + 3 * 16 * 2);
    assert_string_equal(c.klass, "tbe");
    /* unweighted: no per-sample weights */
    c = fwd(1, 80, 10, 3, 5, 0, NULL);
    LOWER(c, 10 * 8 + 4 * 8 + 10 * 16 * 2 + 3 * 16 * 2);
    /* rows that do not divide the weights: no width, only the indices and offsets */
    c = fwd(1, 81, 10, 3, 5, 0, NULL);
    LOWER(c, 10 * 8 + 4 * 8);
}

/* Three tables, B = 2, L = 12: each table's width is not recorded, so neither are the rows
 * gathered; total_D in 'Concrete Inputs' (position 7) gives the output [2, 48]. */
static void test_forward_tables(void **state)
{
    (void)state;
    rt_torch_cost c = fwd(3, 480, 12, 2, 30, 0, NULL);
    LOWER(c, 12 * 8 + 7 * 8);
    char concrete[256] = "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"48\"]";
    c = fwd(3, 480, 12, 2, 30, 0, concrete);
    LOWER(c, 12 * 8 + 7 * 8 + 2 * 48 * 2);
    /* one table with total_D recorded: that is its width */
    snprintf(concrete, sizeof concrete, "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"16\"]");
    c = fwd(1, 81, 10, 3, 5, 0, concrete);
    LOWER(c, 10 * 8 + 4 * 8 + 10 * 16 * 2 + 3 * 16 * 2);
}

/* The backward: grad_output [6, 48] float read once (6 * 48 * 4); its rows are not recorded. */
static void test_backward(void **state)
{
    (void)state;
    rt_torch_call call = {BWD, "[[6,48]]", "[\"float\"]", NULL, -1};
    rt_torch_cost c;
    rt_torch_ops_cost(ops, &call, 0, &c);
    LOWER(c, 6 * 48 * 4);
    /* any optimizer's backward, and the unpooled one's grad_output [L, D] (12 x 16 halves) */
    rt_torch_call sgd = {"torch::autograd::CppNode<SplitLookupFunction_sgd_Op>", "[[6,48]]",
                         "[\"float\"]", NULL, -1};
    rt_torch_ops_cost(ops, &sgd, 0, &c);
    LOWER(c, 6 * 48 * 4);
    rt_torch_call nobag = {"torch::autograd::CppNode<SplitNoBagLookupFunction_sgd_Op>", "[[12,16]]",
                           "[\"c10::Half\"]", NULL, -1};
    rt_torch_ops_cost(ops, &nobag, 0, &c);
    LOWER(c, 12 * 16 * 2);
    rt_torch_call flat = {BWD, "[[288]]", "[\"float\"]", NULL, -1};
    rt_torch_ops_cost(ops, &flat, 0, &c);
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    assert_non_null(strstr(c.why, "grad_output"));
    /* another model's counts are not lower bounds */
    rt_torch_call mm = {"aten::mm", "[[2,3],[3,4]]", "[\"float\",\"float\"]", NULL, -1};
    rt_torch_ops_cost(ops, &mm, 0, &c);
    assert_int_equal(c.status, RT_TC_COSTED);
    assert_false(c.lower_bound);
}

/* Offsets that are not T B + 1: incomplete, said. */
static void test_forward_bad_offsets(void **state)
{
    (void)state;
    char dims[512], types[512];
    fwd_dims(dims, sizeof dims, 3, 480, 12, 2, 30, 0);
    fwd_types(types, sizeof types, 0);
    char *at = strstr(dims, "[7]"); /* the offsets: 8 instead of 7 */
    assert_non_null(at);
    at[1] = '8';
    rt_torch_call c = {FWD, dims, types, NULL, -1};
    rt_torch_cost out;
    rt_torch_ops_cost(ops, &c, 0, &out);
    assert_int_equal(out.status, RT_TC_INCOMPLETE);
    assert_non_null(strstr(out.why, "T B + 1"));
}

/* Tables that lack what the model needs are refused, naming the field. */
static void test_bad_entries(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/ops.json", dir);
    static const struct {
        const char *entry, *msg;
    } bad[] = {
        {"{\"model\": \"tbe\", \"ops\": [\"a\"], \"indices\": 1, \"offsets\": 2, \"weights\": [3], "
         "\"out_type\": \"half\"}",
         "field 'ops[0].D_offsets': missing"},
        {"{\"model\": \"tbe\", \"ops\": [\"a\"], \"D_offsets\": 0, \"indices\": 1, \"offsets\": 2, "
         "\"out_type\": \"half\"}",
         "field 'ops[0].weights': missing"},
        {"{\"model\": \"tbe\", \"ops\": [\"a\"], \"D_offsets\": 0, \"indices\": 1, \"offsets\": 2, "
         "\"weights\": [3]}",
         "field 'ops[0].out_type'"},
        {"{\"model\": \"tbe\", \"ops\": [\"a\"], \"D_offsets\": 0, \"indices\": 1, \"offsets\": 2, "
         "\"weights\": [3], \"out_type\": \"int4\"}",
         "field 'ops[0].out_type': 'int4' is none of"},
        {"{\"model\": \"tbe\", \"ops\": [\"a\"], \"D_offsets\": 0, \"indices\": 1, \"offsets\": 2, "
         "\"weights\": [99], \"out_type\": \"half\"}",
         "field 'ops[0].weights[0]'"},
        {"{\"model\": \"tbe\", \"ops\": [\"a\"], \"backward\": true}",
         "field 'ops[0].grad_output': missing"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, "{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [%s]}",
                 bad[i].entry);
        tu_write_file(path, text);
        rt_torch_ops *o = NULL;
        rt_error err;
        assert_int_equal(rt_torch_ops_load(path, &o, &err), -1);
        if (!strstr(err.msg, bad[i].msg))
            fail_msg("entry %zu: '%s' does not say '%s'", i, err.msg, bad[i].msg);
    }
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_one_table), cmocka_unit_test(test_forward_tables),
        cmocka_unit_test(test_backward),          cmocka_unit_test(test_forward_bad_offsets),
        cmocka_unit_test(test_bad_entries),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
