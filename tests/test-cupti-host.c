/* The Range Profiler's host side without a GPU: the paper's metric set on every chip from GV100
 * to GH100 (names known, pass count), and an unknown metric named. Skips (77) without CUPTI. */
#include <stdio.h>

#ifndef RT_HAVE_CUPTI
int main(void)
{
    printf("skipped: rooftime was built without CUPTI (no CUDA toolkit found)\n");
    return 77;
}
#else
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "cupti-host.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/util/error.h"

static rt_ncu_metric_list metrics;

static void test_chips_listed(void **state)
{
    (void)state;
    const char *const *chips = NULL;
    size_t n = rtc_host_chips(&chips);
    int gv100 = 0, gh100 = 0;
    for (size_t i = 0; i < n; i++) {
        gv100 |= strcmp(chips[i], "GV100") == 0;
        gh100 |= strcmp(chips[i], "GH100") == 0;
    }
    assert_true(gv100 && gh100);
}

/* All metrics added in one call: the configuration builds (every name is known on the chip) and
 * takes two passes on these chips (CUDA 13.0's CUPTI; one call per metric is what multiplies). */
static void test_paper_set(void **state)
{
    (void)state;
    static const char *const chips[] = {"GV100", "TU102", "GA100", "GA102", "AD102", "GH100"};
    for (size_t c = 0; c < sizeof chips / sizeof chips[0]; c++) {
        char err[1024] = "";
        rtc_host *h = rtc_host_new(chips[c], NULL, err, sizeof err);
        if (!h)
            fail_msg("%s: %s", chips[c], err);
        uint8_t *config = NULL;
        size_t size = 0, passes = 0;
        if (rtc_host_config(h, (const char *const *)metrics.metric, metrics.n, &config, &size,
                            &passes, err, sizeof err) != 0)
            fail_msg("%s: %s", chips[c], err);
        printf("%s: %zu metrics, config image %zu bytes, %zu passes\n", chips[c], metrics.n, size,
               passes);
        assert_true(size > 0);
        assert_int_equal(passes, 2);
        free(config);
        rtc_host_free(h);
    }
}

static void test_unknown_metric(void **state)
{
    (void)state;
    char err[1024] = "";
    rtc_host *h = rtc_host_new("GH100", NULL, err, sizeof err);
    assert_non_null(h);
    const char *m[] = {"dram__bytes.sum", "sm__no_such_counter.sum"};
    uint8_t *config = NULL;
    size_t size = 0, passes = 0;
    assert_int_equal(rtc_host_config(h, m, 2, &config, &size, &passes, err, sizeof err), -1);
    if (!strstr(err, "metric 'sm__no_such_counter.sum' is unknown"))
        fail_msg("error '%s' does not name the metric", err);
    rtc_host_free(h);
    assert_null(rtc_host_new("NO_SUCH_CHIP", NULL, err, sizeof err));
    assert_non_null(strstr(err, "NO_SUCH_CHIP"));
}

int main(void)
{
    rt_error e = {{0}};
    if (rt_ncu_metric_list_load(NULL, "throughput", &metrics, &e) != 0) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chips_listed),
        cmocka_unit_test(test_paper_set),
        cmocka_unit_test(test_unknown_metric),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_ncu_metric_list_release(&metrics);
    return rc;
}
#endif
