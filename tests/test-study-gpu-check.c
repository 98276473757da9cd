/* The GPU study's correctness check without a GPU: the deterministic inputs, the comparison of a
 * client's output file with a reference (pass, fail, missing, short, long, non-finite), the walk of
 * a check directory, and rt_study_gpu_check refusing with one line when there is no driver. Where
 * a GPU answers, the NVRTC reference itself is checked against a direct convolution on the host. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/probe/gpu-conv.h"
#include "rooftime/probe/gpu-driver.h"
#include "rooftime/study/study-gpu-check.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"
#include "testutil.h"

/* The check's convolution on the host, in double, from the inputs' formula: the same definition
 * conv-direct.cu computes (NCHW input, OIHW weights, padding K / 2). */
static float *host_conv(const rt_study_gpu_check_point *p, size_t *n)
{
    int N = p->batch, C = p->channels, H = p->size, F = p->filters, K = p->kernel, S = p->stride;
    int P = K / 2, OH = (H + 2 * P - K) / S + 1;
    double div = sqrt((double)C * K * K);
    *n = (size_t)N * F * OH * OH;
    float *y = malloc(*n * sizeof *y);
    for (int b = 0; b < N; b++)
        for (int f = 0; f < F; f++)
            for (int oy = 0; oy < OH; oy++)
                for (int ox = 0; ox < OH; ox++) {
                    double acc = 0;
                    for (int c = 0; c < C; c++)
                        for (int ky = 0; ky < K; ky++)
                            for (int kx = 0; kx < K; kx++) {
                                int iy = oy * S - P + ky, ix = ox * S - P + kx;
                                if (iy < 0 || iy >= H || ix < 0 || ix >= H)
                                    continue;
                                uint64_t xi = (((uint64_t)b * C + c) * H + iy) * H + ix;
                                uint64_t wi = (((uint64_t)f * C + c) * K + ky) * K + kx;
                                acc += (double)rt_study_gpu_check_input(xi, 0, 1.0) *
                                       (double)rt_study_gpu_check_input(wi, 12345, div);
                            }
                    y[(((size_t)b * F + f) * OH + oy) * OH + ox] = (float)acc;
                }
    return y;
}

static void write_floats(const char *path, const float *v, size_t n)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
                              (unsigned char)(u >> 24)};
        assert_int_equal(fwrite(b, 1, 4, fp), 4);
    }
    assert_int_equal(fclose(fp), 0);
}

static void test_inputs(void **state)
{
    (void)state;
    /* u(i, s) = ((i * 2654435761 + s) mod 2^32) / 2^32 - 0.5, worked out by hand */
    assert_true(rt_study_gpu_check_input(0, 0, 1.0) == -0.5f);
    assert_true(rt_study_gpu_check_input(0, 12345, 1.0) == (float)(12345.0 / 4294967296.0 - 0.5));
    assert_true(rt_study_gpu_check_input(1, 0, 1.0) == (float)(2654435761.0 / 4294967296.0 - 0.5));
    /* 2 * 2654435761 = 5308871522 = 2^32 + 1013904226 */
    assert_true(rt_study_gpu_check_input(2, 0, 1.0) == (float)(1013904226.0 / 4294967296.0 - 0.5));
    /* 3 * 2654435761 + 12345 = 7963319628 = 2^32 + 3668352332; over sqrt(C K K) = sqrt(36) = 6 */
    assert_true(rt_study_gpu_check_input(3, 12345, 6.0) ==
                (float)((3668352332.0 / 4294967296.0 - 0.5) / 6.0));
    for (uint64_t i = 0; i < 4096; i++) {
        float v = rt_study_gpu_check_input(i, 12345, 1.0);
        assert_true(v >= -0.5f && v < 0.5f);
    }
}

static void test_tolerances(void **state)
{
    (void)state;
    assert_true(rt_study_gpu_check_tolerance("fp32") == 1e-5);
    assert_true(rt_study_gpu_check_tolerance("tf32") == 2e-3);
    assert_true(rt_study_gpu_check_tolerance("fp16") == 1e-2);
    assert_true(rt_study_gpu_check_tolerance("bf16") == 1e-2);
    assert_true(rt_study_gpu_check_tolerance("fp64") < 0);
    assert_true(rt_study_gpu_check_tolerance(NULL) < 0);
}

static const rt_study_gpu_check_point small = {2, 3, 7, 4, 3, 2};

static void test_compare(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *line = NULL;
    size_t n = 0;
    float *ref = host_conv(&small, &n);
    assert_int_equal(n, 2 * 4 * 4 * 4); /* (7 + 2 - 3) / 2 + 1 = 4 */
    char *path = rt_asprintf("%s/pytorch-fp32-plain-0.f32", dir);
    rt_error err;
    double rel = 0;

    /* missing */
    assert_int_equal(rt_study_gpu_check_compare(ref, n, path, "fp32", &line, &rel, &err), 1);
    assert_non_null(strstr(line, "pytorch-fp32-plain-0.f32: FAIL: missing"));
    assert_true(rel == -1);
    free(line);

    /* the same values */
    write_floats(path, ref, n);
    assert_int_equal(rt_study_gpu_check_compare(ref, n, path, "fp32", &line, &rel, &err), 0);
    assert_non_null(strstr(line, "pytorch-fp32-plain-0.f32: pass"));
    assert_true(rel == 0);
    free(line);

    /* a relative error of about 1e-3: past fp32's and tf32's tolerance, within bf16's */
    float *off = malloc(n * sizeof *off);
    for (size_t i = 0; i < n; i++)
        off[i] = ref[i] * (i % 2 ? 1.001f : 0.999f);
    write_floats(path, off, n);
    assert_int_equal(rt_study_gpu_check_compare(ref, n, path, "fp32", &line, &rel, &err), 1);
    assert_non_null(strstr(line, "FAIL: relative L2 error"));
    assert_close(rel, 1e-3, 1e-2);
    free(line);
    assert_int_equal(rt_study_gpu_check_compare(ref, n, path, "bf16", &line, &rel, &err), 0);
    free(line);

    /* one value wrong by a lot fails even bf16 */
    memcpy(off, ref, n * sizeof *off);
    off[17] += 10;
    write_floats(path, off, n);
    assert_int_equal(rt_study_gpu_check_compare(ref, n, path, "bf16", &line, &rel, &err), 1);
    free(line);

    /* short, long, a NaN */
    write_floats(path, ref, n - 1);
    assert_int_equal(rt_study_gpu_check_compare(ref, n, path, "fp32", &line, &rel, &err), 1);
    assert_non_null(strstr(line, "FAIL: short: 508 bytes, 128 float32 values expected"));
    free(line);
    write_floats(path, off, n);
    assert_int_equal(rt_study_gpu_check_compare(ref, n - 1, path, "fp32", &line, &rel, &err), 1);
    assert_non_null(strstr(line, "FAIL: long"));
    free(line);
    memcpy(off, ref, n * sizeof *off);
    off[5] = NAN;
    write_floats(path, off, n);
    assert_int_equal(rt_study_gpu_check_compare(ref, n, path, "fp16", &line, &rel, &err), 1);
    assert_non_null(strstr(line, "FAIL: value 5 is"));
    free(line);

    /* an unknown precision is the caller's error */
    assert_int_equal(rt_study_gpu_check_compare(ref, n, path, "fp8", &line, &rel, &err), -1);
    assert_non_null(strstr(err.msg, "unknown precision 'fp8'"));
    assert_null(line);

    free(off);
    free(ref);
    free(path);
    tu_rmtree(dir);
    free(dir);
}

static void test_dir(void **state)
{
    (void)state;
    const rt_study_gpu_check_point pts[2] = {small, {1, 2, 5, 3, 1, 1}};
    float *ref[2];
    size_t n_ref[2];
    for (int i = 0; i < 2; i++)
        ref[i] = host_conv(&pts[i], &n_ref[i]);
    char *dir = tu_tmpdir(), *report = NULL;
    rt_error err;

    assert_int_equal(rt_study_gpu_check_dir(ref, n_ref, 2, dir, &report, &err), 0);
    assert_non_null(strstr(report, "no client output files"));
    free(report);

    /* three groups complete and right; the last one's names sort between the second's */
    const char *groups[] = {"pytorch-fp16-channels_last", "jax-fp32-plain", "jax-fp32-plain-0x"};
    for (int g = 0; g < 3; g++)
        for (int i = 0; i < 2; i++) {
            char *p = rt_asprintf("%s/%s-%d.f32", dir, groups[g], i);
            write_floats(p, ref[i], n_ref[i]);
            free(p);
        }
    assert_int_equal(rt_study_gpu_check_dir(ref, n_ref, 2, dir, &report, &err), 0);
    assert_non_null(strstr(report, "jax-fp32-plain-0.f32: pass"));
    assert_non_null(strstr(report, "pytorch-fp16-channels_last-1.f32: pass"));
    assert_non_null(strstr(report, "jax-fp32-plain-0x-1.f32: pass"));
    assert_null(strstr(report, "FAIL"));
    free(report);

    /* a group missing a point; a file of the other point's shape; a stray name; an index past n */
    char *p = rt_asprintf("%s/pytorch-bf16-plain-1.f32", dir);
    write_floats(p, ref[0], n_ref[0]);
    free(p);
    p = rt_asprintf("%s/notes.f32", dir);
    write_floats(p, ref[0], 1);
    free(p);
    p = rt_asprintf("%s/jax-tf32-plain-2.f32", dir);
    write_floats(p, ref[0], 1);
    free(p);
    assert_int_equal(rt_study_gpu_check_dir(ref, n_ref, 2, dir, &report, &err), 1);
    assert_non_null(strstr(report, "pytorch-bf16-plain-0.f32: FAIL: missing"));
    assert_non_null(strstr(report, "pytorch-bf16-plain-1.f32: FAIL: long"));
    assert_non_null(strstr(report, "notes.f32: FAIL: not a check file name"));
    assert_non_null(strstr(report, "jax-tf32-plain-2.f32: FAIL: no check point 2"));
    assert_non_null(strstr(report, "jax-fp32-plain-1.f32: pass"));
    free(report);

    /* an unreadable directory */
    p = rt_asprintf("%s/absent", dir);
    assert_int_equal(rt_study_gpu_check_dir(ref, n_ref, 2, p, &report, &err), -1);
    assert_non_null(strstr(err.msg, "cannot open the check directory"));
    free(p);

    for (int i = 0; i < 2; i++)
        free(ref[i]);
    tu_rmtree(dir);
    free(dir);
}

/* The PyTorch client's check output (scripts/study-gpu-torch.py run on the CPU, fp32) passes the
 * directory check against the host reference: its generator, layout and file format are the ones
 * rooftime reads. Skipped (said so) without Debian's python3 and torch. */
static void test_torch_client_files(void **state)
{
    (void)state;
    const char *py = getenv("ROOFTIME_PYTHON") ? getenv("ROOFTIME_PYTHON") : "/usr/bin/python3";
    char *probe = rt_asprintf("'%s' -c 'import torch' 2>/dev/null", py);
    int have = tu_run(probe, NULL, NULL) == 0;
    free(probe);
    if (!have) {
        fprintf(stderr, "note: %s cannot import torch: the client's files are not checked\n", py);
        skip();
    }
    const rt_study_gpu_check_point pts[3] = {small, {1, 4, 9, 3, 5, 3}, {2, 2, 6, 5, 1, 1}};
    char *dir = tu_tmpdir(), *report = NULL, *out = NULL, *errs = NULL;
    char *cmd = rt_asprintf(
        "'%s' -c 'import importlib.util as u, sys, torch\n"
        "s = u.spec_from_file_location(\"c\", sys.argv[1] + \"/scripts/study-gpu-torch.py\")\n"
        "m = u.module_from_spec(s); s.loader.exec_module(m)\n"
        "pts = [dict(zip((\"batch\", \"channels\", \"size\", \"filters\", \"kernel\", "
        "\"stride\"), map(int, p.split(\",\")))) for p in sys.argv[3:]]\n"
        "for v in (\"\", \"channels_last\"):\n"
        "    m.write_check(torch, {\"precision\": \"fp32\", \"variant\": v, \"check\": "
        "{\"dir\": sys.argv[2], \"points\": pts}}, \"cpu\")' '%s' '%s' 2,3,7,4,3,2 1,4,9,3,5,3 "
        "2,2,6,5,1,1",
        py, tu_src(), dir);
    int rc = tu_run(cmd, &out, &errs);
    if (rc != 0)
        fail_msg("the client failed (%d): %s", rc, errs ? errs : "");
    float *ref[3];
    size_t n_ref[3];
    for (int i = 0; i < 3; i++)
        ref[i] = host_conv(&pts[i], &n_ref[i]);
    rt_error err;
    rc = rt_study_gpu_check_dir(ref, n_ref, 3, dir, &report, &err);
    fprintf(stderr, "%s", report ? report : err.msg);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(report, "pytorch-fp32-plain-2.f32: pass"));
    assert_non_null(strstr(report, "pytorch-fp32-channels_last-1.f32: pass"));
    for (int i = 0; i < 3; i++)
        free(ref[i]);
    free(report);
    free(out);
    free(errs);
    free(cmd);
    tu_rmtree(dir);
    free(dir);
}

static void test_no_driver(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *report = NULL;
    rt_error err;
    const char *old = getenv("ROOFTIME_LIBCUDA");
    char *keep = old ? rt_strdup(old) : NULL;
    setenv("ROOFTIME_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    assert_int_equal(rt_study_gpu_check(0, &small, 1, dir, &report, &err), -1);
    assert_null(report);
    assert_non_null(strstr(err.msg, "the GPU study's reference convolution (conv-direct.cu): "
                                    "no NVIDIA driver: cannot load /nonexistent/libcuda.so.1"));
    assert_null(strchr(err.msg, '\n'));
    /* a shape past the limits is refused before the driver is asked */
    rt_study_gpu_check_point bad = small;
    bad.stride = 0;
    assert_int_equal(rt_study_gpu_check(0, &bad, 1, dir, &report, &err), -1);
    assert_non_null(strstr(err.msg, "check point 0: stride 0 is out of range"));
    if (keep) {
        setenv("ROOFTIME_LIBCUDA", keep, 1);
        free(keep);
    } else {
        unsetenv("ROOFTIME_LIBCUDA");
    }
    tu_rmtree(dir);
    free(dir);
}

/* With a GPU: the NVRTC reference agrees with the host's convolution, and a file of the host's
 * values passes the whole check at fp32. Skipped (said so) without one. */
static void test_gpu_reference(void **state)
{
    (void)state;
    rt_cuda cu;
    rt_error err;
    int count = 0;
    if (rt_cuda_open(&cu, &err) != 0 || cu.DeviceGetCount(&count) != 0 || count < 1) {
        fprintf(stderr, "note: no GPU (%s): the NVRTC reference itself is not run\n", err.msg);
        rt_cuda_close(&cu);
        skip();
    }
    rt_cuda_close(&cu);
    char *dir = tu_tmpdir(), *report = NULL;
    size_t n = 0;
    float *ref = host_conv(&small, &n);
    char *p = rt_asprintf("%s/pytorch-fp32-plain-0.f32", dir);
    write_floats(p, ref, n);
    int rc = rt_study_gpu_check(0, &small, 1, dir, &report, &err);
    if (rc < 0)
        fail_msg("%s", err.msg);
    fprintf(stderr, "%s", report);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(report, "pytorch-fp32-plain-0.f32: pass"));
    free(report);
    /* the device's and the host's sums differ at most by the final rounding to float */
    rt_gpu_conv_shape s = {small.batch,   small.channels, small.size,
                           small.filters, small.kernel,   small.stride};
    float *dev = NULL;
    size_t n_dev = 0;
    if (rt_gpu_conv_direct(0, &s, 1, &dev, &n_dev, NULL, 0, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(n_dev, n);
    for (size_t i = 0; i < n; i++)
        assert_true(fabs((double)dev[i] - ref[i]) <= 1e-6 * (fabs(ref[i]) + 1e-3));
    free(dev);
    free(p);
    free(ref);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inputs),
        cmocka_unit_test(test_tolerances),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_dir),
        cmocka_unit_test(test_torch_client_files),
        cmocka_unit_test(test_no_driver),
        cmocka_unit_test(test_gpu_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
