/* Single mode's gaps made visible: a kernel without bytes at the reference level is warned about,
 * and a compute bound names the reference unit without claiming the kernel used it. */
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/util/error.h"
#include "testutil.h"

static int said(const rt_warnings *w, const char *a, const char *b)
{
    int n = 0;
    for (size_t i = 0; i < w->n; i++)
        n += strstr(w->msg[i], a) && strstr(w->msg[i], b);
    return n;
}

/* L2 bytes but no HBM bytes: single mode's bandwidth time is 0, with a warning naming the kernel
 * and both levels; hier mode calls it bandwidth:L2 and has nothing to warn about. */
static void test_missing_reference_level(void **state)
{
    (void)state;
    rt_machine *m = NULL;
    rt_error err = {{0}};
    if (rt_machine_resolve("v100", &m, &err) != 0)
        fail_msg("%s", err.msg);
    rt_kernel k;
    rt_kernel_init(&k, "copy");
    k.invocations = 1;
    k.time = 1e-3;
    rt_values_set(&k.flops, "fp32", 1e6);
    rt_values_set(&k.bytes, "L2", 1e9);
    rt_warnings w = {0};
    rt_verdict v;
    rt_verdict_compute(m, RT_MODE_SINGLE, &k, "kernel 'copy'", &v, &w);
    assert_true(v.t_bw_max == 0);
    assert_int_equal(said(&w, "kernel 'copy': no bytes at the reference level HBM", "at L2"), 1);
    rt_verdict_release(&v);

    rt_warnings_release(&w);
    rt_verdict_compute(m, RT_MODE_HIER, &k, "kernel 'copy'", &v, &w);
    assert_string_equal(v.bound_label, "bandwidth:L2");
    assert_int_equal(said(&w, "reference level", ""), 0);
    rt_verdict_release(&v);

    /* An explicit 0 at HBM is the same gap; bytes at HBM close it. */
    rt_values_set(&k.bytes, "HBM", 0);
    rt_verdict_compute(m, RT_MODE_SINGLE, &k, "kernel 'copy'", &v, &w);
    assert_int_equal(said(&w, "no bytes at the reference level HBM", "at L2"), 1);
    rt_verdict_release(&v);
    rt_warnings_release(&w);
    rt_values_set(&k.bytes, "HBM", 1e3);
    rt_verdict_compute(m, RT_MODE_SINGLE, &k, "kernel 'copy'", &v, &w);
    assert_int_equal(said(&w, "reference level", ""), 0);
    rt_verdict_release(&v);
    rt_warnings_release(&w);
    rt_kernel_release(&k);
    rt_machine_free(m);
}

/* An fp32-only kernel on the V100 (reference unit: tensor cores) is compute-bound against the
 * reference in single mode: compute:ref(tensor), never compute:tensor; hier mode says fp32. */
static void test_reference_unit_label(void **state)
{
    (void)state;
    rt_machine *m = NULL;
    rt_error err = {{0}};
    if (rt_machine_resolve("v100", &m, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(m->ref_unit, "tensor");
    rt_kernel k;
    rt_kernel_init(&k, "sgemm");
    k.invocations = 1;
    k.time = 1e-1;
    rt_values_set(&k.flops, "fp32", 1e12);
    rt_values_set(&k.bytes, "HBM", 1e6);
    rt_verdict v;
    rt_verdict_compute(m, RT_MODE_SINGLE, &k, "kernel 'sgemm'", &v, NULL);
    assert_int_equal(v.bound, RT_BOUND_COMPUTE);
    assert_string_equal(v.bound_label, "compute:ref(tensor)");
    rt_verdict_release(&v);
    rt_verdict_compute(m, RT_MODE_HIER, &k, "kernel 'sgemm'", &v, NULL);
    assert_string_equal(v.bound_label, "compute:fp32");
    rt_verdict_release(&v);
    rt_kernel_release(&k);
    rt_machine_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_missing_reference_level),
        cmocka_unit_test(test_reference_unit_label),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
