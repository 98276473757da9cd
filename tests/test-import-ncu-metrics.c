/* Tests of the Nsight Compute importer's units and of its shipped metric mapping
 * (data/ncu/metrics.json): the metrics it lists and the tensor factors per architecture. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/import/ncu-metrics.h"
#include "rooftime/import/ncu-units.h"
#include "rooftime/util/error.h"

static void test_units(void **state)
{
    (void)state;
    assert_true(rt_ncu_unit_scale("Gbyte") == 1e9);
    assert_true(rt_ncu_unit_scale("cycle/nsecond") == 1e9);
    assert_true(rt_ncu_unit_scale("cycle/msecond") == 1e3);
    assert_true(rt_ncu_unit_scale("Khz") == 1e3);
    assert_true(rt_ncu_unit_scale("usecond") == 1e-6);
    assert_true(rt_ncu_unit_scale("inst") == 1);
    assert_true(rt_ncu_unit_scale("MB") == 1e6);
    assert_true(rt_ncu_unit_scale("furlong") == 0);
}

/* The shipped mapping loads, lists its metrics and has the per-architecture tensor factors. */
/* An architecture is sm_ and its major (1 to 99) and minor digits, or major.minor: a typo such as
 * sm_9 (for sm_90) is refused, not read as an architecture below sm_70 with sm_70's constants. */
static void test_parse_arch(void **state)
{
    (void)state;
    assert_int_equal(rt_ncu_parse_arch("sm_70"), 70);
    assert_int_equal(rt_ncu_parse_arch("sm_90"), 90);
    assert_int_equal(rt_ncu_parse_arch("sm_100"), 100);
    assert_int_equal(rt_ncu_parse_arch("sm_999"), 999);
    assert_int_equal(rt_ncu_parse_arch("8.9"), 89);
    const char *bad[] = {"sm_9",   "sm_6",   "sm_0", "sm_07", "sm_1000", "sm_+70",
                         "sm_ 70", "sm_70a", "sm_",  "70",    "0.5",     NULL};
    for (size_t i = 0; bad[i]; i++)
        if (rt_ncu_parse_arch(bad[i]) != -1)
            fail_msg("'%s' read as sm_%d", bad[i], rt_ncu_parse_arch(bad[i]));
}

static void test_mapping_file(void **state)
{
    (void)state;
    rt_ncu_metric_list l;
    rt_error err = {{0}};
    if (rt_ncu_metric_list_load(NULL, "throughput", 0, &l, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(l.n, 25); /* every architecture: 15 and 10 tensor ops counters */
    assert_string_equal(l.metric[0], "sm__cycles_elapsed.avg");
    rt_ncu_metric_list_release(&l);
    /* Per architecture: the instruction count to sm_75, the ops counters from sm_80 on. */
    static const struct {
        int sm;
        size_t n;
        const char *has, *lacks;
    } per_arch[] = {
        {70, 15, "sm__inst_executed_pipe_tensor.sum", "sm__ops_path_tensor_src_bf16_dst_fp32.sum"},
        {75, 15, "sm__inst_executed_pipe_tensor.sum", "sm__ops_path_tensor_src_int8.sum"},
        {80, 20, "sm__ops_path_tensor_src_fp16_dst_fp32.sum", "sm__inst_executed_pipe_tensor.sum"},
        {86, 20, "sm__ops_path_tensor_src_fp64.sum", "sm__ops_path_tensor_src_fp8.sum"},
        {89, 21, "sm__ops_path_tensor_src_fp8.sum", "sm__ops_path_tensor_src_fp16.sum"},
        {90, 20, "sm__ops_path_tensor_src_fp16.sum", "sm__ops_path_tensor_src_fp16_dst_fp16.sum"},
        {100, 20, "sm__ops_path_tensor_src_fp16_dst_fp16.sum", "sm__ops_path_tensor_src_fp8.sum"},
        {103, 22, "sm__ops_path_tensor_src_fp8_dst_fp32.sum", "sm__ops_path_tensor_src_fp16.sum"},
        {120, 22, "sm__ops_path_tensor_src_fp8_dst_fp16.sum", "sm__ops_path_tensor_src_fp8.sum"},
    };
    for (size_t a = 0; a < sizeof per_arch / sizeof per_arch[0]; a++) {
        if (rt_ncu_metric_list_load(NULL, "throughput", per_arch[a].sm, &l, &err) != 0)
            fail_msg("%s", err.msg);
        int has = 0, lacks = 1;
        for (size_t i = 0; i < l.n; i++) {
            has |= strcmp(l.metric[i], per_arch[a].has) == 0;
            lacks &= strcmp(l.metric[i], per_arch[a].lacks) != 0;
        }
        if (l.n != per_arch[a].n || !has || !lacks)
            fail_msg("sm_%d: %zu metrics (%zu expected), %s %s, %s %s", per_arch[a].sm, l.n,
                     per_arch[a].n, per_arch[a].has, has ? "listed" : "missing", per_arch[a].lacks,
                     lacks ? "absent" : "listed");
        rt_ncu_metric_list_release(&l);
    }
    if (rt_ncu_metric_list_load(NULL, "sectors", 0, &l, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(l.n > 10);
    rt_ncu_metric_list_release(&l);
    double k;
    assert_int_equal(rt_ncu_constant(NULL, "sm_70", "tensor_factor", &k, &err), 0);
    assert_true(k == 512);
    assert_int_equal(rt_ncu_constant(NULL, "sm_75", "tensor_factor", &k, &err), 0);
    assert_true(k == 512);
    assert_int_equal(rt_ncu_constant(NULL, "sm_80", "tensor_factor", &k, &err), 0);
    assert_true(k == 2048);
    assert_int_equal(rt_ncu_constant(NULL, "sm_87", "tensor_factor", &k, &err), 0);
    assert_true(k == 2048);
    assert_int_equal(rt_ncu_constant(NULL, "sm_90", "tensor_factor", &k, &err), 0);
    assert_true(k == 2048);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_parse_arch),
        cmocka_unit_test(test_mapping_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
