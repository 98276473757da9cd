/* Tests of the GPU probe without a GPU: every kernel module compiles with NVRTC for every
 * generation of data/gpu/architectures.json it applies to (sm_70 to sm_120; wgmma.cu as sm_90a),
 * and a missing or stub driver is refused. NVRTC 13 dropped sm_70: the V100 is checked
 * with an older NVRTC named by ROOFTIME_NVRTC_OLD (scripts/install-deps.sh fetches NVRTC 12),
 * and said to be skipped when there is none. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/formats/gpu-arch-json.h"
#include "rooftime/probe/gpu-driver.h"
#include "rooftime/probe/gpu-measure.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"
#include "testutil.h"

static rt_nvrtc nv, old; /* the NVRTC found, and an older one for what it dropped */

/* The modules the probe must have: every source of data/gpu/ but the prelude. The kernels each
 * module's row names must be in its cubin (extern "C" names appear verbatim there). */
static const char *const sources[] = {"fma.cu",    "mma.cu",   "memory.cu",
                                      "launch.cu", "wgmma.cu", "conv-direct.cu"};

static const rt_gpu_module *module_of(const char *source)
{
    for (const rt_gpu_module *m = rt_gpu_modules; m->source; m++)
        if (strcmp(m->source, source) == 0)
            return m;
    fail_msg("no module row for %s", source);
    return NULL;
}

static int contains(const char *buf, size_t n, const char *s)
{
    size_t k = strlen(s);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(buf + i, s, k) == 0 && (i + k == n || buf[i + k] == 0))
            return 1;
    return 0;
}

static void test_sources_compile(void **state)
{
    (void)state;
    rt_gpu_archs archs;
    rt_error aerr;
    if (rt_gpu_archs_load(NULL, &archs, &aerr) != 0)
        fail_msg("%s", aerr.msg);
    int compiled = 0;
    size_t n_sources = 0;
    while (rt_gpu_modules[n_sources].source)
        n_sources++;
    assert_int_equal(n_sources, sizeof sources / sizeof *sources);
    for (size_t s = 0; s < n_sources; s++) {
        const rt_gpu_module *m = module_of(sources[s]);
        assert_non_null(m->kernels[0]);
        rt_error err;
        char *src = rt_gpu_kernel_source(m->source, &err);
        if (!src)
            fail_msg("%s", err.msg);
        for (size_t a = 0; a < archs.n; a++) {
            const rt_gpu_arch *gen = &archs.arch[a];
            const int sm = gen->sm;
            if (!rt_gpu_module_applies(m, gen))
                continue;
            const rt_nvrtc *use = rt_nvrtc_supports(&nv, sm)               ? &nv
                                  : old.lib && rt_nvrtc_supports(&old, sm) ? &old
                                                                           : NULL;
            if (!use) {
                if (s == 0)
                    fprintf(stderr,
                            "note: NVRTC %d.%d (%s) cannot compile for sm_%d (it supports "
                            "sm_%d and up): skipped; set ROOFTIME_NVRTC_OLD to an NVRTC 12 "
                            "(scripts/install-deps.sh fetches one) to check it\n",
                            nv.major, nv.minor, nv.path, sm, nv.archs[0]);
                continue;
            }
            if (s == 0 && use == &old)
                fprintf(stderr, "note: sm_%d checked with NVRTC %d.%d (%s)\n", sm, old.major,
                        old.minor, old.path);
            char *cubin = NULL;
            size_t size = 0;
            if (rt_nvrtc_compile_feature(use, src, m->source, sm, m->feature ? m->feature : "",
                                         &cubin, &size, &err) != 0)
                fail_msg("%s", err.msg);
            assert_true(size > 0);
            for (size_t k = 0; m->kernels[k]; k++)
                if (!contains(cubin, size, m->kernels[k]))
                    fail_msg("%s for sm_%d lacks kernel %s", m->source, sm, m->kernels[k]);
            free(cubin);
            compiled++;
        }
        free(src);
    }
    /* sm_80 and sm_90 at least: every NVRTC from 11.8 to 13 supports both */
    assert_true(compiled >= 2 * (int)n_sources);
    /* wgmma.cu is compiled for the generation that names wgmma (sm_90) and no other */
    int wgmma_gens = 0;
    for (size_t a = 0; a < archs.n; a++)
        wgmma_gens += rt_gpu_module_applies(module_of("wgmma.cu"), &archs.arch[a]);
    assert_int_equal(wgmma_gens, 1);
    assert_true(rt_gpu_module_applies(module_of("wgmma.cu"), rt_gpu_arch_find(&archs, 90)));
    assert_false(rt_gpu_module_applies(module_of("wgmma.cu"), NULL));
    assert_true(rt_gpu_module_applies(module_of("mma.cu"), NULL));
    rt_gpu_archs_release(&archs);
}

/* The machine code itself, where a cuobjdump is at hand ($ROOFTIME_CUOBJDUMP, else the toolkit's):
 * each kernel's warpgroup MMA at N = 256 with its K, as the SASS names them. */
static void check_sass(const char *cubin, size_t size)
{
    const char *tool = getenv("ROOFTIME_CUOBJDUMP");
    if (!tool || !*tool)
        tool = "/usr/local/cuda/bin/cuobjdump";
    if (!tu_exists(tool)) {
        fprintf(stderr, "note: no cuobjdump (%s): the wgmma SASS is not checked\n", tool);
        return;
    }
    char *dir = tu_tmpdir();
    char path[4096], cmd[8400];
    snprintf(path, sizeof path, "%s/wgmma.cubin", dir);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(cubin, 1, size, fp), size);
    assert_int_equal(fclose(fp), 0);
    snprintf(cmd, sizeof cmd, "'%s' -sass '%s'", tool, path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 20, n = 0;
    char *sass = malloc(cap + 1);
    size_t got;
    while (n < cap && (got = fread(sass + n, 1, cap - n, p)) > 0)
        n += got;
    sass[n] = 0;
    assert_int_equal(pclose(p), 0);
    static const char *const want[] = {
        "HGMMA.64x256x16.F32 ",           "HGMMA.64x256x16.F32.BF16 ", "HGMMA.64x256x8.F32.TF32 ",
        "QGMMA.64x256x32.F32.E4M3.E4M3 ", "IGMMA.64x256x32.S8.S8 ",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(sass, want[i]))
            fail_msg("the sm_90a SASS (%s) lacks %s", tool, want[i]);
    /* no dead-code dummies: every wgmma is a full 64x256 one */
    assert_null(strstr(sass, "GMMA.64x8x"));
    free(sass);
    tu_rmtree(dir);
    free(dir);
}

/* The wgmma kernels for sm_90a: the cubin holds each kernel, and the PTX (for compute_90a) holds
 * each wgmma shape with its K, the descriptors, and the fence / commit / wait around them. */
static void test_wgmma_sm90a(void **state)
{
    (void)state;
    if (!rt_nvrtc_supports(&nv, 90)) {
        fprintf(stderr, "note: NVRTC %d.%d cannot compile for sm_90: wgmma not checked\n", nv.major,
                nv.minor);
        return;
    }
    rt_error err;
    char *src = rt_gpu_kernel_source("wgmma.cu", &err);
    if (!src)
        fail_msg("%s", err.msg);
    char *cubin = NULL;
    size_t size = 0;
    if (rt_nvrtc_compile_feature(&nv, src, "wgmma.cu", 90, "a", &cubin, &size, &err) != 0)
        fail_msg("%s", err.msg);
    const char *const *kernels = module_of("wgmma.cu")->kernels;
    for (size_t k = 0; kernels[k]; k++)
        if (!contains(cubin, size, kernels[k]))
            fail_msg("wgmma.cu for sm_90a lacks kernel %s", kernels[k]);
    check_sass(cubin, size);
    free(cubin);
    /* a feature suffix that is none */
    assert_int_equal(rt_nvrtc_compile_feature(&nv, src, "wgmma.cu", 90, "xyz", &cubin, &size, &err),
                     -1);
    assert_non_null(strstr(err.msg, "cannot compile for sm_90xyz"));

    /* the PTX, through the same library */
    int (*get_ptx_size)(void *, size_t *) =
        (int (*)(void *, size_t *))(uintptr_t)dlsym(nv.lib, "nvrtcGetPTXSize");
    int (*get_ptx)(void *, char *) =
        (int (*)(void *, char *))(uintptr_t)dlsym(nv.lib, "nvrtcGetPTX");
    assert_non_null(get_ptx_size);
    assert_non_null(get_ptx);
    void *prog = NULL;
    assert_int_equal(nv.CreateProgram(&prog, src, "wgmma.cu", 0, NULL, NULL), 0);
    const char *opts[] = {"--gpu-architecture=compute_90a", "--std=c++17", "-default-device"};
    int rc = nv.CompileProgram(prog, 3, opts);
    if (rc != 0) {
        size_t ln = 0;
        nv.GetProgramLogSize(prog, &ln);
        char *log = calloc(ln + 1, 1);
        nv.GetProgramLog(prog, log);
        fail_msg("compute_90a: %s", log);
    }
    size_t n = 0;
    assert_int_equal(get_ptx_size(prog, &n), 0);
    char *ptx = calloc(n + 1, 1);
    assert_int_equal(get_ptx(prog, ptx), 0);
    nv.DestroyProgram(&prog);
    static const char *const want[] = {
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16",
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16",
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32",
        "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3",
        "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8",
        "wgmma.fence.sync.aligned",
        "wgmma.commit_group.sync.aligned",
        "wgmma.wait_group.sync.aligned 1",
        "wgmma.wait_group.sync.aligned 0",
        "fence.proxy.async.shared::cta",
        ".target sm_90a",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(ptx, want[i]))
            fail_msg("the sm_90a PTX lacks '%s'", want[i]);
    /* 128 accumulators per wgmma: the last one is %127 (or a register named for it) */
    assert_non_null(strstr(ptx, "m64n256k16.f32.f16.f16"));
    free(ptx);

    /* for plain sm_90 (and sm_80) the source compiles to kernels that report the instruction
     * absent: no wgmma in their PTX */
    assert_int_equal(nv.CreateProgram(&prog, src, "wgmma.cu", 0, NULL, NULL), 0);
    const char *opts90[] = {"--gpu-architecture=compute_90", "--std=c++17", "-default-device"};
    assert_int_equal(nv.CompileProgram(prog, 3, opts90), 0);
    assert_int_equal(get_ptx_size(prog, &n), 0);
    ptx = calloc(n + 1, 1);
    assert_int_equal(get_ptx(prog, ptx), 0);
    nv.DestroyProgram(&prog);
    assert_null(strstr(ptx, "wgmma.mma_async"));
    free(ptx);
    free(src);
}

static void test_compile_error(void **state)
{
    (void)state;
    char *cubin = (char *)1;
    size_t size = 1;
    rt_error err;
    assert_int_equal(rt_nvrtc_compile(&nv, "extern \"C\" __global__ void k() { nonsense; }",
                                      "broken.cu", 80, &cubin, &size, &err),
                     -1);
    assert_null(cubin);
    assert_non_null(strstr(err.msg, "broken.cu: NVRTC cannot compile it for sm_80"));
    assert_non_null(strstr(err.msg, "nonsense"));
    assert_int_equal(rt_nvrtc_compile(&nv, "", "empty.cu", 12, &cubin, &size, &err), -1);
    assert_non_null(strstr(err.msg, "cannot compile for sm_12"));
}

static void test_missing_driver(void **state)
{
    (void)state;
    rt_cuda cu;
    rt_error err;
    setenv("ROOFTIME_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    assert_int_equal(rt_cuda_open(&cu, &err), -1);
    assert_non_null(strstr(err.msg, "no NVIDIA driver: cannot load /nonexistent/libcuda.so.1"));
    assert_null(cu.lib);
    /* the toolkit's link-time stub is not a driver */
    const char *stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
    if (tu_exists(stub)) {
        setenv("ROOFTIME_LIBCUDA", stub, 1);
        assert_int_equal(rt_cuda_open(&cu, &err), -1);
        assert_non_null(strstr(err.msg, "link-time stub, not a driver"));
        assert_null(cu.lib);
    } else {
        fprintf(stderr, "note: %s absent: the stub check is not run\n", stub);
    }
    /* a library that is no driver at all lacks the entry points */
    setenv("ROOFTIME_LIBCUDA", "libm.so.6", 1);
    assert_int_equal(rt_cuda_open(&cu, &err), -1);
    assert_non_null(strstr(err.msg, "lacks cuInit"));
    unsetenv("ROOFTIME_LIBCUDA");

    rt_gpu_opts o = {0};
    rt_machine *m = (rt_machine *)1;
    setenv("ROOFTIME_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    assert_int_equal(rt_gpu_measure(&o, &m, NULL, &err), -1);
    assert_null(m);
    assert_non_null(strstr(err.msg, "no NVIDIA driver"));
    unsetenv("ROOFTIME_LIBCUDA");
}

static void test_missing_nvrtc(void **state)
{
    (void)state;
    rt_nvrtc other;
    rt_error err;
    setenv("ROOFTIME_NVRTC", "/nonexistent/libnvrtc.so", 1);
    assert_int_equal(rt_nvrtc_open(&other, 0, &err), -1);
    assert_non_null(strstr(err.msg, "no NVRTC: cannot load /nonexistent/libnvrtc.so"));
    unsetenv("ROOFTIME_NVRTC");
    /* an architecture no NVRTC compiles for */
    assert_int_equal(rt_nvrtc_open(&other, 12, &err), -1);
    assert_non_null(strstr(err.msg, "compiles for sm_12"));
}

static void test_tau_names(void **state)
{
    (void)state;
    rt_gpu_tau t;
    rt_error err;
    const char *names[] = {"paper", "async", "cpu", "graph"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(rt_gpu_tau_parse(names[i], &t, &err), 0);
        assert_int_equal(t, i);
        assert_string_equal(rt_gpu_tau_name(t), names[i]);
        assert_true(strncmp(rt_gpu_tau_overhead_name(t), "cuda_", 5) == 0);
    }
    assert_int_equal(rt_gpu_tau_parse("wall", &t, &err), -1);
    assert_non_null(strstr(err.msg, "unknown launch-overhead definition 'wall'"));
}

int main(void)
{
    rt_error err;
    if (rt_nvrtc_open(&nv, 0, &err) != 0) {
        printf("skipped: %s\n", err.msg);
        return 77;
    }
    const char *older = getenv("ROOFTIME_NVRTC_OLD");
    if (older && *older && !rt_nvrtc_supports(&nv, 70)) {
        char *was = getenv("ROOFTIME_NVRTC") ? rt_strdup(getenv("ROOFTIME_NVRTC")) : NULL;
        setenv("ROOFTIME_NVRTC", older, 1);
        if (rt_nvrtc_open(&old, 70, &err) != 0) {
            /* named but unusable: a broken set-up, not a skip */
            fprintf(stderr, "ROOFTIME_NVRTC_OLD=%s: %s\n", older, err.msg);
            return 1;
        }
        if (was)
            setenv("ROOFTIME_NVRTC", was, 1);
        else
            unsetenv("ROOFTIME_NVRTC");
        free(was);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sources_compile), cmocka_unit_test(test_compile_error),
        cmocka_unit_test(test_missing_driver),  cmocka_unit_test(test_missing_nvrtc),
        cmocka_unit_test(test_tau_names),       cmocka_unit_test(test_wgmma_sm90a),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_nvrtc_close(&nv);
    rt_nvrtc_close(&old);
    return rc;
}
