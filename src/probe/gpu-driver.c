/* Loads the CUDA driver (libcuda.so.1) and NVRTC with dlopen and resolves their entry points. */
#define _GNU_SOURCE
#include "rooftime/probe/gpu-driver.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/strings.h"

/* Resolve the first of the names that the library exports (newer versions first). */
static void *sym(void *lib, const char *a, const char *b)
{
    void *p = dlsym(lib, a);
    if (!p && b)
        p = dlsym(lib, b);
    return p;
}

static void lib_path(void *lib, const char *fallback, char *out, size_t n)
{
    struct link_map *lm = NULL;
    if (dlinfo(lib, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0])
        snprintf(out, n, "%s", lm->l_name);
    else
        snprintf(out, n, "%s", fallback);
}

const char *rt_cuda_strerror(const rt_cuda *cu, rt_cu_result rc, char *buf, size_t n)
{
    const char *name = NULL, *text = NULL;
    if (cu && cu->GetErrorName)
        cu->GetErrorName(rc, &name);
    if (cu && cu->GetErrorString)
        cu->GetErrorString(rc, &text);
    if (name && text)
        snprintf(buf, n, "%s: %s", name, text);
    else
        snprintf(buf, n, "CUDA error %d", rc);
    return buf;
}

#define RESOLVE(field, a, b)                                                                       \
    do {                                                                                           \
        *(void **)(&cu->field) = sym(cu->lib, a, b);                                               \
        if (!cu->field) {                                                                          \
            rt_error_set(err,                                                                      \
                         "the CUDA driver '%s' lacks %s: a driver for CUDA 11.4 or newer is "      \
                         "needed",                                                                 \
                         cu->path, a);                                                             \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

/* Both libraries are opened RTLD_NODELETE: dlclose leaves them mapped, as drivers expect, and what
 * they allocated for the process stays reachable. */
int rt_cuda_open(rt_cuda *cu, rt_error *err)
{
    memset(cu, 0, sizeof *cu);
    const char *want = getenv("ROOFTIME_LIBCUDA");
    if (!want || !*want)
        want = "libcuda.so.1";
    cu->lib = dlopen(want, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!cu->lib) {
        const char *why = dlerror();
        rt_error_set(err,
                     "no NVIDIA driver: cannot load %s (%s); install the NVIDIA driver, which "
                     "provides libcuda.so.1",
                     want, why ? why : "not found");
        return -1;
    }
    lib_path(cu->lib, want, cu->path, sizeof cu->path);
    RESOLVE(Init, "cuInit", NULL);
    RESOLVE(DriverGetVersion, "cuDriverGetVersion", NULL);
    RESOLVE(GetErrorName, "cuGetErrorName", NULL);
    RESOLVE(GetErrorString, "cuGetErrorString", NULL);
    RESOLVE(DeviceGetCount, "cuDeviceGetCount", NULL);
    RESOLVE(DeviceGet, "cuDeviceGet", NULL);
    RESOLVE(DeviceGetName, "cuDeviceGetName", NULL);
    RESOLVE(DeviceGetAttribute, "cuDeviceGetAttribute", NULL);
    RESOLVE(DeviceTotalMem, "cuDeviceTotalMem_v2", NULL);
    RESOLVE(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL);
    RESOLVE(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
    RESOLVE(CtxSetCurrent, "cuCtxSetCurrent", NULL);
    RESOLVE(CtxSynchronize, "cuCtxSynchronize", NULL);
    RESOLVE(ModuleLoadData, "cuModuleLoadData", NULL);
    RESOLVE(ModuleUnload, "cuModuleUnload", NULL);
    RESOLVE(ModuleGetFunction, "cuModuleGetFunction", NULL);
    RESOLVE(FuncSetAttribute, "cuFuncSetAttribute", NULL);
    RESOLVE(OccupancyMaxActiveBlocksPerMultiprocessor,
            "cuOccupancyMaxActiveBlocksPerMultiprocessor", NULL);
    RESOLVE(MemAlloc, "cuMemAlloc_v2", NULL);
    RESOLVE(MemFree, "cuMemFree_v2", NULL);
    RESOLVE(MemsetD32, "cuMemsetD32_v2", NULL);
    RESOLVE(MemcpyDtoH, "cuMemcpyDtoH_v2", NULL);
    RESOLVE(LaunchKernel, "cuLaunchKernel", NULL);
    RESOLVE(StreamCreate, "cuStreamCreate", NULL);
    RESOLVE(StreamDestroy, "cuStreamDestroy_v2", "cuStreamDestroy");
    RESOLVE(StreamSynchronize, "cuStreamSynchronize", NULL);
    RESOLVE(EventCreate, "cuEventCreate", NULL);
    RESOLVE(EventDestroy, "cuEventDestroy_v2", "cuEventDestroy");
    RESOLVE(EventRecord, "cuEventRecord", NULL);
    RESOLVE(EventSynchronize, "cuEventSynchronize", NULL);
    RESOLVE(EventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
    RESOLVE(StreamBeginCapture, "cuStreamBeginCapture_v2", NULL);
    RESOLVE(StreamEndCapture, "cuStreamEndCapture", NULL);
    RESOLVE(GraphInstantiate, "cuGraphInstantiateWithFlags", NULL);
    RESOLVE(GraphLaunch, "cuGraphLaunch", NULL);
    RESOLVE(GraphExecDestroy, "cuGraphExecDestroy", NULL);
    RESOLVE(GraphDestroy, "cuGraphDestroy", NULL);

    rt_cu_result rc = cu->Init(0);
    if (rc == RT_CU_ERROR_STUB_LIBRARY || strstr(cu->path, "/stubs/")) {
        rt_error_set(err,
                     "no NVIDIA driver: '%s' is the CUDA toolkit's link-time stub, not a driver; "
                     "install the NVIDIA driver, which provides libcuda.so.1",
                     cu->path);
        goto fail;
    }
    if (rc != RT_CU_SUCCESS) {
        char buf[256];
        rt_error_set(err, "no usable NVIDIA GPU: cuInit failed (%s) with driver '%s'",
                     rt_cuda_strerror(cu, rc, buf, sizeof buf), cu->path);
        goto fail;
    }
    cu->DriverGetVersion(&cu->version);
    return 0;
fail:
    rt_cuda_close(cu);
    return -1;
}

void rt_cuda_close(rt_cuda *cu)
{
    if (cu && cu->lib)
        dlclose(cu->lib);
    if (cu)
        memset(cu, 0, sizeof *cu);
}

#undef RESOLVE
#define RESOLVE(field, name)                                                                       \
    do {                                                                                           \
        *(void **)(&nv->field) = dlsym(nv->lib, name);                                             \
        if (!nv->field)                                                                            \
            goto next;                                                                             \
    } while (0)

int rt_nvrtc_supports(const rt_nvrtc *nv, int sm)
{
    for (int i = 0; i < nv->n_archs; i++)
        if (nv->archs[i] == sm)
            return 1;
    return 0;
}

int rt_nvrtc_open(rt_nvrtc *nv, int sm, rt_error *err)
{
    static const char *const names[] = {"libnvrtc.so",
                                        "libnvrtc.so.13",
                                        "libnvrtc.so.12",
                                        "libnvrtc.so.11.2",
                                        "/usr/local/cuda/lib64/libnvrtc.so",
                                        "/usr/local/cuda/lib64/libnvrtc.so.13",
                                        "/usr/local/cuda/lib64/libnvrtc.so.12"};
    const char *env = getenv("ROOFTIME_NVRTC");
    const char *list[sizeof names / sizeof *names + 1];
    size_t n = 0;
    if (env && *env)
        list[n++] = env;
    else
        for (size_t i = 0; i < sizeof names / sizeof *names; i++)
            list[n++] = names[i];
    char seen[512] = "";
    for (size_t i = 0; i < n; i++) {
        memset(nv, 0, sizeof *nv);
        nv->lib = dlopen(list[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (!nv->lib)
            continue;
        lib_path(nv->lib, list[i], nv->path, sizeof nv->path);
        RESOLVE(GetErrorString, "nvrtcGetErrorString");
        RESOLVE(Version, "nvrtcVersion");
        RESOLVE(GetNumSupportedArchs, "nvrtcGetNumSupportedArchs");
        RESOLVE(GetSupportedArchs, "nvrtcGetSupportedArchs");
        RESOLVE(CreateProgram, "nvrtcCreateProgram");
        RESOLVE(DestroyProgram, "nvrtcDestroyProgram");
        RESOLVE(CompileProgram, "nvrtcCompileProgram");
        RESOLVE(GetProgramLogSize, "nvrtcGetProgramLogSize");
        RESOLVE(GetProgramLog, "nvrtcGetProgramLog");
        RESOLVE(GetCUBINSize, "nvrtcGetCUBINSize");
        RESOLVE(GetCUBIN, "nvrtcGetCUBIN");
        nv->Version(&nv->major, &nv->minor);
        int k = 0;
        if (nv->GetNumSupportedArchs(&k) != 0 || k <= 0 || k > 64)
            goto next;
        nv->GetSupportedArchs(nv->archs);
        nv->n_archs = k;
        if (sm <= 0 || rt_nvrtc_supports(nv, sm))
            return 0;
        size_t l = strlen(seen);
        if (!strstr(seen, nv->path)) /* names and links of one library are said once */
            snprintf(seen + l, sizeof seen - l, "%s%s (NVRTC %d.%d, sm_%d..sm_%d)", l ? ", " : "",
                     nv->path, nv->major, nv->minor, nv->archs[0], nv->archs[k - 1]);
    next:
        dlclose(nv->lib);
        memset(nv, 0, sizeof *nv);
    }
    if (seen[0])
        rt_error_set(err, "no NVRTC here compiles for sm_%d: found %s", sm, seen);
    else
        rt_error_set(err,
                     "no NVRTC: cannot load %s; install the CUDA toolkit's NVRTC (Debian "
                     "libnvrtc, or /usr/local/cuda/lib64 on the loader's path)",
                     env && *env ? env : "libnvrtc.so");
    return -1;
}

void rt_nvrtc_close(rt_nvrtc *nv)
{
    if (nv && nv->lib)
        dlclose(nv->lib);
    if (nv)
        memset(nv, 0, sizeof *nv);
}

int rt_nvrtc_compile(const rt_nvrtc *nv, const char *src, const char *name, int sm, char **cubin,
                     size_t *size, rt_error *err)
{
    return rt_nvrtc_compile_feature(nv, src, name, sm, "", cubin, size, err);
}

int rt_nvrtc_compile_feature(const rt_nvrtc *nv, const char *src, const char *name, int sm,
                             const char *feature, char **cubin, size_t *size, rt_error *err)
{
    *cubin = NULL;
    *size = 0;
    if (!feature)
        feature = "";
    if (!rt_nvrtc_supports(nv, sm) || strlen(feature) > 2) {
        rt_error_set(err, "NVRTC %d.%d (%s) cannot compile for sm_%d%s", nv->major, nv->minor,
                     nv->path, sm, feature);
        return -1;
    }
    void *prog = NULL;
    int rc = nv->CreateProgram(&prog, src, name, 0, NULL, NULL);
    if (rc != 0) {
        rt_error_set(err, "%s: nvrtcCreateProgram: %s", name, nv->GetErrorString(rc));
        return -1;
    }
    char arch[32];
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%s", sm, feature);
    const char *opts[] = {arch, "--std=c++17", "-default-device"};
    rc = nv->CompileProgram(prog, 3, opts);
    if (rc != 0) {
        size_t ln = 0;
        nv->GetProgramLogSize(prog, &ln);
        char *log = rt_xcalloc(ln + 1, 1);
        nv->GetProgramLog(prog, log);
        rt_error_set(err, "%s: NVRTC cannot compile it for sm_%d%s: %s: %.1500s", name, sm, feature,
                     nv->GetErrorString(rc), log);
        free(log);
        nv->DestroyProgram(&prog);
        return -1;
    }
    size_t n = 0;
    if (nv->GetCUBINSize(prog, &n) != 0 || n == 0) {
        rt_error_set(err, "%s: NVRTC produced no machine code for sm_%d%s", name, sm, feature);
        nv->DestroyProgram(&prog);
        return -1;
    }
    *cubin = rt_xmalloc(n);
    nv->GetCUBIN(prog, *cubin);
    *size = n;
    nv->DestroyProgram(&prog);
    return 0;
}
