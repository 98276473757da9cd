/* Hand-built CUpti_ActivityKernel10 records through the collector's writer (the code the
 * injection library runs on each activity buffer: one record, and a whole buffer walked by
 * cuptiActivityGetNextRecord) and the importer; the raw images' checksum and range names.
 * Skips (77) without CUPTI. */
#define _GNU_SOURCE /* open_memstream */
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

/* A completed activity buffer as CUPTI hands it over: records back to back, each 8-byte aligned. */
static size_t put_record(uint8_t *buf, size_t at, const void *rec, size_t size)
{
    memcpy(buf + at, rec, size);
    return at + ((size + 7) & ~(size_t)7);
}

static void test_buffer_walk(void **state)
{
    (void)state;
    uint8_t *buf = aligned_alloc(8, 4096);
    assert_non_null(buf);
    memset(buf, 0, 4096);
    CUpti_ActivityKernel10 a = kernel(20, "_Z4stepv", 1000, 3000, 2),
                           b = kernel(21, "other", 3500, 4000, 1);
    CUpti_ActivityMemcpy6 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY; /* walked over, no row */
    size_t at = put_record(buf, 0, &a, sizeof a);
    at = put_record(buf, at, &m, sizeof m);
    at = put_record(buf, at, &b, sizeof b);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(rtc_write_buffer(f, buf, at), 2);
    /* Only whole records count: a buffer cut inside the last one yields the first two. */
    assert_int_equal(rtc_write_buffer(f, buf, at - 8), 1);
    assert_int_equal(rtc_write_buffer(f, buf, 0), 0);
    fclose(f);
    assert_string_equal(text, "20,step(),1000,3000,0,1,7,0,2,1,1,256,1,1,16,0,0\n"
                              "21,other,3500,4000,0,1,7,0,1,1,1,256,1,1,16,0,0\n"
                              "20,step(),1000,3000,0,1,7,0,2,1,1,256,1,1,16,0,0\n");
    free(text);
    /* A record of no kind CUPTI knows: the walk stops with an error, not a guess. */
    memset(buf, 0, 4096);
    CUpti_ActivityKernel10 bad = a;
    bad.kind = (CUpti_ActivityKind)0x7fff;
    at = put_record(buf, 0, &bad, sizeof bad);
    f = open_memstream(&text, &len);
    assert_int_equal(rtc_write_buffer(f, buf, at), -1);
    fclose(f);
    free(text);
    free(buf);
}

static void test_image_helpers(void **state)
{
    (void)state;
    /* FNV-1a 64 test vectors (the offset basis; "a"; "foobar"). */
    assert_true(rtc_fnv1a64((const uint8_t *)"", 0) == 0xcbf29ce484222325ULL);
    assert_true(rtc_fnv1a64((const uint8_t *)"a", 1) == 0xaf63dc4c8601ec8cULL);
    assert_true(rtc_fnv1a64((const uint8_t *)"foobar", 6) == 0x85944171f73967e8ULL);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    rtc_write_image_row(f, "counterdata.7.1.0.bin", "counterdata", 1, "GH100", 42,
                        0xaf63dc4c8601ec8cULL);
    fclose(f);
    assert_string_equal(text, "counterdata.7.1.0.bin,counterdata,1,GH100,42,af63dc4c8601ec8c\n");
    free(text);
    char *dir = tu_tmpdir(), path[4096];
    snprintf(path, sizeof path, "%s/x.names", dir);
    char *names[] = {"k<int, 2>", "two\nlines", ""};
    assert_int_equal(rtc_write_names(path, names, 3), 0);
    char *got = tu_read_file(path, NULL);
    assert_string_equal(got, "k<int, 2>\ntwo lines\n\n");
    free(got);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_records_to_profile),
                                       cmocka_unit_test(test_buffer_walk),
                                       cmocka_unit_test(test_image_helpers)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
