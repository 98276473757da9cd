/* Hand-built CUpti_ActivityKernel10 records through the collector's writer (the code the
 * injection library runs on each activity buffer) and the importer. Skips (77) without CUPTI. */
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
#include "cupti-records.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/cupti.h"
#include "rooftime/util/error.h"

static CUpti_ActivityKernel10 kernel(uint32_t corr, const char *name, uint64_t start, uint64_t end,
                                     int grid)
{
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.correlationId = corr;
    k.name = name;
    k.start = start;
    k.end = end;
    k.streamId = 7;
    k.contextId = 1;
    k.gridX = grid;
    k.gridY = k.gridZ = 1;
    k.blockX = 256;
    k.blockY = k.blockZ = 1;
    k.registersPerThread = 16;
    return k;
}

static void test_records_to_profile(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), path[4096];
    snprintf(path, sizeof path, "%s/collector.42.txt", dir);
    tu_write_file(path, "format=rooftime.cupti/1\nmode=trace\npid=42\ndevice=Hand GPU\ncc=90\n");
    snprintf(path, sizeof path, "%s/kernels.42.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", RT_CUPTI_KERNEL_HEADER);
    CUpti_ActivityKernel10 ks[] = {
        kernel(10, "_Z5saxpyifPKfPf", 100, 350, 4096),
        kernel(11, "plain_kernel, with \"quotes\"", 400, 500, 8),
        kernel(12, "_Z5saxpyifPKfPf", 600, 850, 4096),
    };
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(rtc_write_kernel(f, (const CUpti_Activity *)&ks[i]), 1);
    CUpti_ActivityKernel10 other = ks[0];
    other.kind = CUPTI_ACTIVITY_KIND_MEMCPY; /* not a kernel: no row */
    assert_int_equal(rtc_write_kernel(f, (const CUpti_Activity *)&other), 0);
    fclose(f);

    rt_cupti_options o = {0};
    rt_profile *p = NULL;
    rt_error err = {{0}};
    if (rt_import_cupti(dir, &o, &p, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p->n_kernels, 2);
    assert_string_equal(p->kernels[0].name, "saxpy(int, float, float const*, float*)");
    assert_close(p->kernels[0].invocations, 2, 0);
    assert_close(p->kernels[0].time, 500e-9, 1e-12);
    assert_string_equal(rt_tags_get(&p->kernels[0].tags, "grid"), "4096,1,1");
    assert_string_equal(p->kernels[1].name, "plain_kernel, with \"quotes\"");
    assert_close(p->kernels[1].time, 100e-9, 1e-12);
    assert_string_equal(p->machine, "Hand GPU");
    rt_profile_free(p);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_records_to_profile)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
