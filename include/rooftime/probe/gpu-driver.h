/* The CUDA driver and NVRTC, loaded at run time with dlopen: no CUDA is needed to build rooftime.
 */
#ifndef ROOFTIME_PROBE_GPU_DRIVER_H
#define ROOFTIME_PROBE_GPU_DRIVER_H

#include <stddef.h>

#include "rooftime/util/error.h"

/* The few CUDA driver types rooftime uses, declared here (ABI-compatible with cuda.h). */
typedef int rt_cu_result;
typedef int rt_cu_device;
typedef unsigned long long rt_cu_ptr;
typedef struct rt_cu_ctx_st *rt_cu_context;
typedef struct rt_cu_mod_st *rt_cu_module;
typedef struct rt_cu_func_st *rt_cu_function;
typedef struct rt_cu_stream_st *rt_cu_stream;
typedef struct rt_cu_event_st *rt_cu_event;
typedef struct rt_cu_graph_st *rt_cu_graph;
typedef struct rt_cu_graph_exec_st *rt_cu_graph_exec;

/* CUdevice_attribute values. */
enum {
    RT_CU_ATTR_CLOCK_RATE = 13, /* kHz */
    RT_CU_ATTR_SM_COUNT = 16,
    RT_CU_ATTR_MEMORY_CLOCK = 36,     /* kHz */
    RT_CU_ATTR_MEMORY_BUS_WIDTH = 37, /* bits */
    RT_CU_ATTR_L2_SIZE = 38,
    RT_CU_ATTR_CC_MAJOR = 75,
    RT_CU_ATTR_CC_MINOR = 76,
    RT_CU_ATTR_SMEM_PER_SM = 81,
    RT_CU_ATTR_SMEM_PER_BLOCK_OPTIN = 97
};
enum { RT_CU_FUNC_MAX_DYNAMIC_SMEM = 8, RT_CU_FUNC_CARVEOUT = 9 };
#define RT_CU_SUCCESS 0
#define RT_CU_ERROR_STUB_LIBRARY 34
#define RT_CU_STREAM_NON_BLOCKING 1
#define RT_CU_CAPTURE_MODE_THREAD_LOCAL 1

/* The driver entry points rooftime calls, resolved from libcuda.so.1. */
typedef struct rt_cuda {
    void *lib;
    char path[512];
    int version; /* cuDriverGetVersion: 13000 for CUDA 13.0 */
    rt_cu_result (*Init)(unsigned flags);
    rt_cu_result (*DriverGetVersion)(int *v);
    rt_cu_result (*GetErrorName)(rt_cu_result rc, const char **s);
    rt_cu_result (*GetErrorString)(rt_cu_result rc, const char **s);
    rt_cu_result (*DeviceGetCount)(int *n);
    rt_cu_result (*DeviceGet)(rt_cu_device *d, int ordinal);
    rt_cu_result (*DeviceGetName)(char *name, int len, rt_cu_device d);
    rt_cu_result (*DeviceGetAttribute)(int *v, int attr, rt_cu_device d);
    rt_cu_result (*DeviceTotalMem)(size_t *bytes, rt_cu_device d);
    rt_cu_result (*PrimaryCtxRetain)(rt_cu_context *ctx, rt_cu_device d);
    rt_cu_result (*PrimaryCtxRelease)(rt_cu_device d);
    rt_cu_result (*CtxSetCurrent)(rt_cu_context ctx);
    rt_cu_result (*CtxSynchronize)(void);
    rt_cu_result (*ModuleLoadData)(rt_cu_module *m, const void *image);
    rt_cu_result (*ModuleUnload)(rt_cu_module m);
    rt_cu_result (*ModuleGetFunction)(rt_cu_function *f, rt_cu_module m, const char *name);
    rt_cu_result (*FuncSetAttribute)(rt_cu_function f, int attr, int value);
    rt_cu_result (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *n, rt_cu_function f, int block,
                                                              size_t smem);
    rt_cu_result (*MemAlloc)(rt_cu_ptr *p, size_t bytes);
    rt_cu_result (*MemFree)(rt_cu_ptr p);
    rt_cu_result (*MemsetD32)(rt_cu_ptr p, unsigned v, size_t n);
    rt_cu_result (*MemcpyDtoH)(void *dst, rt_cu_ptr src, size_t bytes);
    rt_cu_result (*LaunchKernel)(rt_cu_function f, unsigned gx, unsigned gy, unsigned gz,
                                 unsigned bx, unsigned by, unsigned bz, unsigned smem,
                                 rt_cu_stream s, void **params, void **extra);
    rt_cu_result (*StreamCreate)(rt_cu_stream *s, unsigned flags);
    rt_cu_result (*StreamDestroy)(rt_cu_stream s);
    rt_cu_result (*StreamSynchronize)(rt_cu_stream s);
    rt_cu_result (*EventCreate)(rt_cu_event *e, unsigned flags);
    rt_cu_result (*EventDestroy)(rt_cu_event e);
    rt_cu_result (*EventRecord)(rt_cu_event e, rt_cu_stream s);
    rt_cu_result (*EventSynchronize)(rt_cu_event e);
    rt_cu_result (*EventElapsedTime)(float *ms, rt_cu_event a, rt_cu_event b);
    rt_cu_result (*StreamBeginCapture)(rt_cu_stream s, int mode);
    rt_cu_result (*StreamEndCapture)(rt_cu_stream s, rt_cu_graph *g);
    rt_cu_result (*GraphInstantiate)(rt_cu_graph_exec *e, rt_cu_graph g, unsigned long long flags);
    rt_cu_result (*GraphLaunch)(rt_cu_graph_exec e, rt_cu_stream s);
    rt_cu_result (*GraphExecDestroy)(rt_cu_graph_exec e);
    rt_cu_result (*GraphDestroy)(rt_cu_graph g);
} rt_cuda;

/*
 * Load the driver: $ROOFTIME_LIBCUDA when set (a path or a library name), else libcuda.so.1,
 * resolve every entry point and call cuInit. Fails (-1, err naming what is missing) when the
 * library is absent, lacks an entry point, is the toolkit's link-time stub, or finds no GPU.
 */
int rt_cuda_open(rt_cuda *cu, rt_error *err);
void rt_cuda_close(rt_cuda *cu);
/* "CUDA_ERROR_X: text" for a driver result. */
const char *rt_cuda_strerror(const rt_cuda *cu, rt_cu_result rc, char *buf, size_t n);

/* NVRTC, the run-time CUDA C++ compiler. */
typedef struct rt_nvrtc {
    void *lib;
    char path[512];
    int major, minor;
    int archs[64]; /* the sm_XY it can compile for, as XY */
    int n_archs;
    const char *(*GetErrorString)(int rc);
    int (*Version)(int *major, int *minor);
    int (*GetNumSupportedArchs)(int *n);
    int (*GetSupportedArchs)(int *archs);
    int (*CreateProgram)(void **prog, const char *src, const char *name, int n_headers,
                         const char *const *headers, const char *const *include_names);
    int (*DestroyProgram)(void **prog);
    int (*CompileProgram)(void *prog, int n_opts, const char *const *opts);
    int (*GetProgramLogSize)(void *prog, size_t *n);
    int (*GetProgramLog)(void *prog, char *log);
    int (*GetCUBINSize)(void *prog, size_t *n);
    int (*GetCUBIN)(void *prog, char *cubin);
} rt_nvrtc;

/*
 * Load NVRTC: $ROOFTIME_NVRTC when set, else libnvrtc.so, libnvrtc.so.13, .12, .11.2 in the
 * loader's path and /usr/local/cuda/lib64. With sm > 0 the first one that can compile for
 * sm_<sm> is taken. -1 with err naming what was tried when none loads (or none supports sm).
 */
int rt_nvrtc_open(rt_nvrtc *nv, int sm, rt_error *err);
void rt_nvrtc_close(rt_nvrtc *nv);
int rt_nvrtc_supports(const rt_nvrtc *nv, int sm);

/*
 * Compile CUDA C++ source `src` (named `name` in messages) to a cubin for sm_<sm>; *cubin
 * (malloc'd) and *size on success; -1 with the compiler's log in err on failure.
 */
int rt_nvrtc_compile(const rt_nvrtc *nv, const char *src, const char *name, int sm, char **cubin,
                     size_t *size, rt_error *err);
/*
 * The same for an architecture-specific target: sm_<sm><feature>, e.g. feature "a" for sm_90a
 * (wgmma, setmaxnreg); "" is rt_nvrtc_compile. The support check is on sm alone, since NVRTC
 * lists only the plain architectures.
 */
int rt_nvrtc_compile_feature(const rt_nvrtc *nv, const char *src, const char *name, int sm,
                             const char *feature, char **cubin, size_t *size, rt_error *err);

#endif
