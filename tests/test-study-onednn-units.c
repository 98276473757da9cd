/* The study's oneDNN implementations credit their FLOPs to the unit their implementation runs on
 * (data/onednn/units.json with the implementation dnnl_primitive_desc_query names), never to an
 * AMX unit on a CPU whose /proc/cpuinfo lacks AMX. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/onednn-units.h"
#include "rooftime/study/conv-onednn.h"
#include "rooftime/study/lstm-onednn.h"
#include "rooftime/study/study-onednn.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/util/error.h"
#include "rooftime/util/read-file.h"

/* Whether /proc/cpuinfo names AMX tiles for bf16 (-1: cannot tell). */
static int cpu_has_amx(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return -1;
    char line[8192];
    int amx = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "flags", 5) == 0 && strstr(line, " amx_bf16"))
            amx = 1;
    fclose(f);
    return amx;
}

/* Run a case once into a profile; its one kernel with FLOPs is the primitive's. */
static void check_case(rt_study_case *c, const char *kind, rt_precision prec)
{
    rt_profile *p = rt_profile_new();
    rt_study_timer t;
    rt_error err;
    rt_timer_init(&t, p, NULL);
    t.recording = true;
    assert_int_equal(c->run(c, &t, &err), 0);
    const rt_kernel *k = NULL;
    for (size_t i = 0; i < p->n_kernels; i++)
        if (rt_values_sum(&p->kernels[i].flops) > 0)
            k = &p->kernels[i];
    assert_non_null(k);
    assert_int_equal(k->flops.n, 1);
    const char *unit = k->flops.v[0].key;
    rt_onednn_units *u = rt_onednn_units_load(NULL, &err);
    assert_non_null(u);
    static const char *const dts[] = {"f32", "bf16", "f16"};
    const char *isa = rt_onednn_isa();
    rt_onednn_unit_basis basis;
    const char *want =
        rt_onednn_units_unit(u, kind, c->impl, dts[prec], NULL,
                             rt_onednn_units_has_isa(u, isa) ? isa : NULL, &basis, NULL);
    print_message("%s %s on %s: impl %s -> %s\n", kind, rt_precision_name(prec), isa, c->impl,
                  unit);
    assert_string_equal(unit, want);
    if (cpu_has_amx() == 0)
        assert_null(strstr(unit, "amx"));
    /* a unit the implementation does not name is said in the case's note */
    if (basis != RT_ONEDNN_UNIT_IMPL)
        assert_non_null(strstr(c->note, basis == RT_ONEDNN_UNIT_WIDEST ? "widest" : "unknown"));
    rt_onednn_units_free(u);
    rt_profile_free(p);
}

static void test_conv(void **state)
{
    (void)state;
    const rt_conv_shape s = {
        .n = 2, .c = 16, .h = 14, .w = 14, .k = 16, .r = 3, .s = 3, .stride = 1, .pad = 1};
    for (int prec = RT_PREC_FP32; prec <= RT_PREC_BF16; prec++)
        for (int pass = RT_PASS_FWD; pass <= RT_PASS_BWD_WEIGHTS; pass++) {
            rt_study_case *c = NULL;
            rt_error err;
            if (rt_conv_onednn_new(&s, (rt_precision)prec, (rt_pass)pass, 1, &c, &err) < 0) {
                print_message("skipped: %s\n", err.msg);
                continue;
            }
            check_case(c, "convolution", (rt_precision)prec);
            rt_study_case_free(c);
        }
}

static void test_lstm(void **state)
{
    (void)state;
    const rt_lstm_shape s = {.batch = 16, .seq = 16, .features = 32, .hidden = 16};
    for (int prec = RT_PREC_FP32; prec <= RT_PREC_BF16; prec++)
        for (int b = 0; b < 2; b++) {
            rt_study_case *c = NULL;
            rt_error err;
            if (rt_lstm_onednn_new(&s, (rt_precision)prec, b ? RT_PASS_BWD : RT_PASS_FWD, 1, &c,
                                   &err) < 0) {
                print_message("skipped: %s\n", err.msg);
                continue;
            }
            check_case(c, "rnn", (rt_precision)prec);
            rt_study_case_free(c);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_conv), cmocka_unit_test(test_lstm)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
