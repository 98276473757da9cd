/* The findings model and its writers, the summary of an analysis (the share with a real verdict,
 * time by bound class, the most recoverable kernels with a hint), and the hint rules. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/analysis-findings.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/hints.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/findings-text.h"
#include "rooftime/formats/hints-json.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "testutil.h"

static void test_hints(void **state)
{
    (void)state;
    rt_verdict_hints h;
    rt_error err;
    const char *good = "{\"schema\": \"rooftime.verdict-hints/1\", \"hints\": ["
                       "{\"bound\": \"bandwidth\", \"detail\": \"L2\", \"hint\": \"only L2\"},"
                       "{\"bound\": \"bandwidth\", \"hint\": \"at {detail}: {detail}\"}]}";
    assert_int_equal(rt_verdict_hints_parse(good, strlen(good), "h.json", &h, &err), 0);
    rt_verdict v = {.bound = RT_BOUND_BANDWIDTH};
    char buf[64];
    v.bound_label = "bandwidth:DRAM";
    rt_verdict_hint_for(&h, &v, buf, sizeof buf);
    assert_string_equal(buf, "at DRAM: DRAM");
    v.bound_label = "bandwidth:L2";
    rt_verdict_hint_for(&h, &v, buf, sizeof buf);
    assert_string_equal(buf, "only L2");
    v.bound = RT_BOUND_COMPUTE;
    v.bound_label = "compute:fp32";
    rt_verdict_hint_for(&h, &v, buf, sizeof buf);
    assert_string_equal(buf, ""); /* no rule */
    rt_verdict_hint_for(&h, &v, buf, 1);
    rt_verdict_hints_release(&h);
    const char *bad =
        "{\"schema\": \"rooftime.verdict-hints/1\", \"hints\": [{\"bound\": \"memory\", "
        "\"hint\": \"x\"}]}";
    assert_int_equal(rt_verdict_hints_parse(bad, strlen(bad), "h.json", &h, &err), -1);
    assert_non_null(strstr(err.msg, "h.json"));
    assert_non_null(strstr(err.msg, "hints[0]"));
    assert_non_null(strstr(err.msg, "unknown bound 'memory'"));
    assert_int_equal(h.n, 0);
    assert_int_equal(rt_verdict_hints_parse("{", 1, "h.json", &h, &err), -1);
    /* The shipped rules load and cover every class. */
    assert_int_equal(rt_verdict_hints_load(NULL, &h, &err), 0);
    assert_true(h.n >= 5);
    rt_verdict_hints_release(&h);
}

static void test_summary(void **state)
{
    (void)state;
    rt_machine *m;
    rt_error err;
    assert_int_equal(rt_machine_resolve("v100", &m, &err), 0);
    /* A kernel with counts far from its bound, one near it, one with no counts at all. */
    const char *json =
        "{\"schema\": \"rooftime.profile/1\", \"kernels\": ["
        "{\"name\": \"slow<gemm>\", \"invocations\": 1, \"time\": 1e-3, \"flops\": {\"tensor\": "
        "1e9}, \"bytes\": {\"HBM\": 1e6}},"
        "{\"name\": \"copy\", \"invocations\": 1, \"time\": 2e-4, \"bytes\": {\"HBM\": 1e8}},"
        "{\"name\": \"opaque\", \"invocations\": 1, \"time\": 3e-4}]}";
    char *dir = tu_tmpdir(), path[4200];
    snprintf(path, sizeof path, "%s/p.json", dir);
    tu_write_file(path, json);
    rt_profile *p;
    assert_int_equal(rt_profile_load(path, &p, &err), 0);
    rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
    assert_non_null(a);
    rt_verdict_hints h;
    assert_int_equal(rt_verdict_hints_load(NULL, &h, &err), 0);
    rt_findings *f = rt_analysis_summary(a, &h);
    char *t = rt_findings_text(f);
    /* 1.2 ms of 1.5 ms have counts: 80.0% */
    assert_non_null(strstr(t, "80.0% of the time has a real verdict; 1 kernel (300 µs)"));
    assert_non_null(strstr(t, "no counts | 300 µs | 20.0% | 1"));
    assert_non_null(strstr(t, "ID | kernel | time | recoverable | verdict | what to try"));
    /* The most recoverable first, by its ID in time order (K1 = the longest). */
    const char *k1 = strstr(t, "K1 | slow<gemm> |"), *k3 = strstr(t, "K3 | copy |");
    assert_non_null(k1);
    assert_non_null(k3);
    assert_true(k1 < k3);
    assert_null(strstr(t, "| opaque |"));             /* no verdict: not ranked */
    assert_non_null(strstr(t, "pure data movement")); /* copy's hint */
    free(t);
    rt_findings_free(f);
    rt_verdict_hints_release(&h);
    rt_analysis_free(a);
    rt_profile_free(p);
    rt_machine_free(m);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_hints),
                                       cmocka_unit_test(test_summary)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
