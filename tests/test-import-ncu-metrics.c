/* Tests of the Nsight Compute importer's units and of its shipped metric mapping
 * (data/ncu/metrics.json): the metrics it lists and the tensor factors per architecture. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/import/ncu-metric-list.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/import/ncu-units.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* The unit table (data/ncu/units.json): factors to base units, and which units ncu writes only
 * when it scales a value for display (its two decimals: the import's warning). */
static double scale_of(const rt_ncu_units *t, const char *u, int scaled)
{
    const rt_ncu_unit *x = rt_ncu_units_find(t, u, strlen(u));
    if (!x)
        return 0;
    if (x->scaled != scaled)
        fail_msg("unit '%s': scaled %d, expected %d", u, x->scaled, scaled);
    return x->scale;
}

static void test_units(void **state)
{
    (void)state;
    rt_ncu_units t;
    rt_error err = {{0}};
    if (rt_ncu_units_load(NULL, &t, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(scale_of(&t, "Gbyte", 1) == 1e9);
    assert_true(scale_of(&t, "cycle/nsecond", 1) == 1e9);
    assert_true(scale_of(&t, "cycle/msecond", 1) == 1e3);
    assert_true(scale_of(&t, "Khz", 1) == 1e3);
    assert_true(scale_of(&t, "usecond", 1) == 1e-6);
    assert_true(scale_of(&t, "inst", 0) == 1);
    assert_true(scale_of(&t, "MB", 1) == 1e6);
    /* ncu 2025's short spellings (the sm120-llm-decode fixture) and its base units */
    assert_true(scale_of(&t, "Mbyte", 1) == 1e6);
    assert_true(scale_of(&t, "us", 1) == 1e-6);
    assert_true(scale_of(&t, "Ghz", 1) == 1e9);
    assert_true(scale_of(&t, "Gbyte/s", 1) == 1e9);
    assert_true(scale_of(&t, "byte", 0) == 1);
    assert_true(scale_of(&t, "hz", 0) == 1);
    assert_true(scale_of(&t, "cycle/second", 0) == 1);
    assert_true(scale_of(&t, "nsecond", 0) == 1e-9);
    assert_true(scale_of(&t, "%", 0) == 1);
    assert_true(scale_of(&t, "", 0) == 1);
    assert_true(scale_of(&t, "furlong", 0) == 0);
    /* a unit is its len bytes (a CSV field need not end in NUL): 7 bytes of "Gbyte/sX" */
    const rt_ncu_unit *gs = rt_ncu_units_find(&t, "Gbyte/sX", 7);
    assert_non_null(gs);
    assert_string_equal(gs->name, "Gbyte/s");
    assert_null(rt_ncu_units_find(&t, "Gbyte/sX", 8));
    rt_ncu_units_release(&t);
    rt_ncu_units_release(&t); /* a released table is zeroed */
}

/* A unit file that is not a table of positive factors, or names a unit twice, is refused with the
 * field. */
static void test_units_bad_file(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"{\"schema\": \"rooftime.ncu-units/1\", \"base\": {\"byte\": 0}, \"scaled\": {}}",
         "field 'base.byte'"},
        {"{\"schema\": \"rooftime.ncu-units/1\", \"base\": {\"byte\": 1}, \"scaled\": "
         "{\"byte\": 2}}",
         "in both"},
        {"{\"schema\": \"rooftime.ncu-units/1\", \"base\": {}}", "scaled"},
        {"{\"schema\": \"rooftime.ncu-metrics/1\", \"base\": {}, \"scaled\": {}}", "schema"},
    };
    char *dir = tu_tmpdir();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *path = rt_asprintf("%s/units-%zu.json", dir, i);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(bad[i][0], f);
        fclose(f);
        rt_ncu_units t;
        rt_error err = {{0}};
        assert_int_equal(rt_ncu_units_load(path, &t, &err), -1);
        if (!strstr(err.msg, bad[i][1]) || !strstr(err.msg, path))
            fail_msg("case %zu: '%s' lacks '%s' or the path", i, err.msg, bad[i][1]);
        free(path);
    }
    free(dir);
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
    assert_int_equal(l.n, 30); /* every architecture: 15 and 15 tensor ops counters */
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
        {100, 23, "sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp32.sum",
         "sm__ops_path_tensor_src_fp8.sum"},
        {103, 25, "sm__ops_path_tensor_src_fp4_fp6_dst_fp16.sum",
         "sm__ops_path_tensor_src_fp16.sum"},
        {110, 23, "sm__ops_path_tensor_src_fp4_dst_fp32.sum",
         "sm__ops_path_tensor_src_fp8_dst_fp16.sum"},
        {120, 25, "sm__ops_path_tensor_src_fp8_dst_fp16.sum",
         "sm__ops_path_tensor_src_fp4_fp6_fp8_dst_fp16.sum"},
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

/* tensor_peak is not in metrics.json: the generation's reference part in
 * data/gpu/architectures.json gives it (the V100 SXM2 and the T4; sm_72 is sm_70's generation); a
 * generation without one has none, and a mapping of one's own may set it. */
static void test_tensor_peak_from_generations(void **state)
{
    (void)state;
    rt_error err = {{0}};
    double v = 0;
    char *path = rt_asprintf("%s/ncu/metrics.json", rt_datadir());
    char *text = tu_read_file(path, NULL);
    assert_non_null(text);
    assert_null(strstr(text, "\"tensor_peak\":")); /* not restated */
    free(text);
    static const struct {
        const char *arch;
        double peak;
    } want[] = {{"sm_70", 80 * 1.312e9 * 1024},
                {"sm_72", 80 * 1.312e9 * 1024},
                {"sm_75", 40 * 1.59e9 * 1024},
                {"sm_80", 108 * 1.41e9 * 2048},
                {"sm_90", 132 * 1.83e9 * 4096}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        if (rt_ncu_constant(NULL, want[i].arch, "tensor_peak", &v, &err) != 0)
            fail_msg("%s", err.msg);
        assert_close(v, want[i].peak, 1e-12);
    }
    assert_int_equal(rt_ncu_constant(NULL, "sm_86", "tensor_peak", &v, &err), -1);
    assert_non_null(strstr(err.msg, "no constant 'tensor_peak' for sm_86"));
    /* one's own mapping's figure wins */
    char *dir = tu_tmpdir();
    char *own = rt_asprintf("%s/m.json", dir);
    tu_write_file(own, "{\"schema\": \"rooftime.ncu-metrics/1\", \"time\": {\"cycles\": \"c\", "
                       "\"rate\": \"r\"}, \"constants\": {\"sm_70\": {\"tensor_peak\": 1.25e14}, "
                       "\"sm_75\": {}}, \"quantities\": [{\"quantity\": \"flops.tensor\", "
                       "\"formula\": \"tensor_peak * x\"}]}");
    if (rt_ncu_constant(own, "sm_70", "tensor_peak", &v, &err) != 0)
        fail_msg("%s", err.msg);
    assert_close(v, 1.25e14, 1e-12);
    if (rt_ncu_constant(own, "sm_75", "tensor_peak", &v, &err) != 0)
        fail_msg("%s", err.msg);
    assert_close(v, 40 * 1.59e9 * 1024, 1e-12);
    tu_rmtree(dir);
    free(dir);
    free(own);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_units_bad_file),
        cmocka_unit_test(test_parse_arch),
        cmocka_unit_test(test_mapping_file),
        cmocka_unit_test(test_tensor_peak_from_generations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
