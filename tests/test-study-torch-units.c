/* The unit each PyTorch operator of the study ran on: the client's oneDNN verbose output of an
 * untimed pass per point, read as the continuation of the first point's, joined to the point's
 * trace (src/study/cpu/study-torch-units.c).
 *
 * Recorded: tests/data/torch-1.13-client-units, the client's own files for two conv2d bf16
 * backward points on the development VM (AMD EPYC, AVX512-BF16, no AMX; torch 1.13 with oneDNN
 * 2.6), see tests/data/README.md. AMX: tests/data/onednn-2.7.3-amx-recipe.log, the lines an AMX
 * machine printed as PyTorch's AMX recipe quotes them; the torch side of that case is a kernel
 * written for the test, named as `import torch` names the operator that ran that convolution. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "study-torch-units.h"
#include "testutil.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static char *data(const char *name)
{
    return rt_asprintf("%s/tests/data/%s", tu_src(), name);
}

/* Point i of the recording, imported as the study imports it. */
static rt_profile *import_point(const rt_torch_ops *ops, int i)
{
    char *path = rt_asprintf("%s/tests/data/torch-1.13-client-units/trace-%d.json", tu_src(), i);
    rt_torch_options o = {.within = "rooftime:measured", .ops = ops, .conv = RT_CONV_TAPS};
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    if (rt_import_torch_opts(path, &o, &p, &w, &err) != 0)
        fail_msg("%s", err.msg);
    rt_warnings_release(&w);
    free(path);
    return p;
}

static int join(rt_torch_units *u, rt_profile *p, int i)
{
    char *log = rt_asprintf("%s/tests/data/torch-1.13-client-units/onednn-%d.log", tu_src(), i);
    rt_error err = {{0}};
    int rc = rt_torch_units_join(u, log, i ? "1" : "0", p, &err);
    if (rc != 0)
        print_message("%s\n", err.msg);
    free(log);
    return rc;
}

static rt_kernel *by_prefix(rt_profile *p, const char *prefix)
{
    for (size_t i = 0; i < p->n_kernels; i++)
        if (strncmp(p->kernels[i].name, prefix, strlen(prefix)) == 0)
            return &p->kernels[i];
    fail_msg("no kernel '%s...'", prefix);
    return NULL;
}

/* The notes of what u joined, set on sweep, say a and b. */
static void expect_note(const rt_torch_units *u, rt_profile *sweep, const char *a, const char *b)
{
    rt_torch_units_note(u, sweep);
    const char *note = rt_tags_get(&sweep->provenance.notes, "onednn_units");
    print_message("%s\n", note);
    assert_non_null(note);
    assert_non_null(strstr(note, a));
    assert_non_null(strstr(note, b));
}

static void no_amx(const rt_profile *p)
{
    for (size_t i = 0; i < p->n_kernels; i++)
        for (size_t u = 0; u < p->kernels[i].flops.n; u++)
            if (strstr(p->kernels[i].flops.v[u].key, "amx"))
                fail_msg("'%s' credited to %s on a CPU without AMX", p->kernels[i].name,
                         p->kernels[i].flops.v[u].key);
}

/* Both points' convolution backward ran a jit_bf16:avx512_core_bf16 backward-data primitive and
 * an x64:gemm:jit backward-weights one, which names no ISA: its unit is the widest the CPU line of
 * the first point's output names (bf16 here), so point 1's is known only as that output's
 * continuation; alone, it is 'unknown'. */
static void test_recorded_points(void **state)
{
    (void)state;
    rt_torch_ops *ops = NULL;
    rt_error err = {{0}};
    assert_int_equal(rt_torch_ops_load(NULL, &ops, &err), 0);
    rt_torch_units *u = rt_torch_units_new();
    for (int i = 0; i < 2; i++) {
        rt_profile *p = import_point(ops, i);
        assert_int_equal(p->threads, 2); /* torch.get_num_threads(), as the client recorded it */
        assert_int_equal(join(u, p, i), 0);
        rt_kernel *cb = by_prefix(p, "aten::convolution_backward ");
        assert_int_equal(cb->flops.n, 1);
        assert_true(rt_values_get(&cb->flops, "bf16", 0) > 0);
        assert_string_equal(rt_tags_get(&cb->tags, "onednn"),
                            "jit_bf16:avx512_core_bf16+x64:gemm:jit");
        assert_string_equal(cb->overhead, RT_OVERHEAD_ONEDNN);
        /* torch's own kernels pay nothing, and compute bf16 data in fp32 (the cost model's
         * opmath): their FLOPs on fp32, their precision bf16 */
        rt_kernel *add = by_prefix(p, "aten::add_ ");
        assert_true(rt_values_has(&add->flops, "fp32"));
        assert_false(rt_values_has(&add->flops, "bf16"));
        assert_string_equal(rt_tags_get(&add->tags, "precision"), "bf16");
        assert_null(rt_tags_get(&add->tags, "onednn"));
        assert_string_equal(add->overhead, RT_OVERHEAD_NONE);
        no_amx(p);
        rt_profile_free(p);
    }
    rt_profile *sweep = rt_profile_new();
    expect_note(u, sweep, "2 of 8 operators with FLOPs joined",
                "(jit_bf16:avx512_core_bf16+x64:gemm:jit -> bf16)");
    /* the gemm's unit is the CPU's widest: flagged */
    const char *warned = rt_tags_get(&sweep->provenance.notes, "onednn_units_warnings");
    assert_non_null(warned);
    assert_non_null(strstr(warned, "widest unit the CPU has"));
    rt_profile_free(sweep);
    rt_torch_units_free(u);

    /* point 1's output alone has no CPU line: the gemm's share of the FLOPs is unknown */
    u = rt_torch_units_new();
    rt_profile *p = import_point(ops, 1);
    assert_int_equal(join(u, p, 1), 0);
    rt_kernel *cb = by_prefix(p, "aten::convolution_backward ");
    assert_int_equal(cb->flops.n, 2);
    assert_true(rt_values_get(&cb->flops, "bf16", 0) > 0);
    assert_true(rt_values_get(&cb->flops, "unknown", 0) > 0);
    rt_profile_free(p);
    rt_torch_units_free(u);
    rt_torch_ops_free(ops);
}

/* The AMX machine's convolution: the operator that ran it computes on amx_bf16, and pays the
 * primitive's execute. A log that cannot be read is an error naming it; one without execution
 * records joins nothing. */
static void test_amx_and_no_records(void **state)
{
    (void)state;
    rt_profile *t = rt_profile_new();
    rt_kernel *conv = rt_profile_add_kernel(
        t, "aten::mkldnn_convolution [[7,2,224,224],[1,2,3,3],[1],[],[],[],[]]");
    conv->invocations = 1;
    conv->time = 1e-3;
    rt_values_set(&conv->flops, "bf16", 1e6);
    rt_torch_units *u = rt_torch_units_new();
    char *log = data("onednn-2.7.3-amx-recipe.log");
    rt_error err = {{0}};
    assert_int_equal(rt_torch_units_join(u, log, "amx", t, &err), 0);
    assert_int_equal(conv->flops.n, 1);
    assert_close(rt_values_get(&conv->flops, "amx_bf16", 0), 1e6, 0);
    assert_string_equal(rt_tags_get(&conv->tags, "onednn"), "jit:avx512_core_amx_bf16");
    assert_string_equal(conv->overhead, RT_OVERHEAD_ONEDNN);
    free(log);

    /* an output without records (torch ran no primitive): counted, nothing joined */
    char *empty = rt_asprintf("%s/rooftime-empty-%d.log",
                              getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    FILE *fp = fopen(empty, "w");
    assert_non_null(fp);
    fclose(fp);
    assert_int_equal(rt_torch_units_join(u, empty, "empty", t, &err), 0);
    remove(empty);
    assert_int_equal(rt_torch_units_join(u, "/nonexistent/onednn-0.log", "gone", t, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/onednn-0.log"));
    rt_profile *sweep = rt_profile_new();
    expect_note(u, sweep, "(jit:avx512_core_amx_bf16 -> amx_bf16)",
                "1 of 2 points printed no oneDNN execution");
    rt_profile_free(sweep);
    free(empty);
    rt_torch_units_free(u);
    rt_profile_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_recorded_points),
                                       cmocka_unit_test(test_amx_and_no_records)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
