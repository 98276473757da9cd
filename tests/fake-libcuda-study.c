/* A stand-in libcuda.so.1 for tests/cli-study-gpu.sh: every entry point rooftime's driver loader
 * (probe/gpu-driver.c) resolves, one device "Fake GPU (test)" of compute capability 9.0, so that
 * `study --gpu` gets past its preconditions and runs its (fake) clients on a machine without a
 * GPU. Only the queries return success; everything that would touch a GPU fails. */
#include <string.h>

#define API __attribute__((visibility("default")))
#define FAIL_ON_USE(name)                                                                          \
    API int name(void)                                                                             \
    {                                                                                              \
        return 999; /* CUDA_ERROR_UNKNOWN */                                                       \
    }

API int cuInit(unsigned flags)
{
    (void)flags;
    return 0;
}
API int cuDriverGetVersion(int *v)
{
    *v = 13000;
    return 0;
}
API int cuDeviceGetCount(int *n)
{
    *n = 1;
    return 0;
}
API int cuDeviceGet(int *d, int ordinal)
{
    *d = ordinal;
    return ordinal == 0 ? 0 : 101; /* CUDA_ERROR_INVALID_DEVICE */
}
API int cuDeviceGetName(char *name, int len, int d)
{
    (void)d;
    strncpy(name, "Fake GPU (test)", (size_t)len - 1);
    name[len - 1] = '\0';
    return 0;
}
API int cuDeviceGetAttribute(int *v, int attr, int d)
{
    (void)d;
    *v = attr == 75 ? 9 : 0; /* compute capability 9.0 */
    return 0;
}
API int cuGetErrorName(int rc, const char **s)
{
    (void)rc;
    *s = "CUDA_ERROR_UNKNOWN";
    return 0;
}
API int cuGetErrorString(int rc, const char **s)
{
    (void)rc;
    *s = "a stand-in driver (tests/fake-libcuda-study.c)";
    return 0;
}
FAIL_ON_USE(cuDeviceTotalMem_v2)
FAIL_ON_USE(cuDevicePrimaryCtxRetain)
FAIL_ON_USE(cuDevicePrimaryCtxRelease_v2)
FAIL_ON_USE(cuCtxSetCurrent)
FAIL_ON_USE(cuCtxSynchronize)
FAIL_ON_USE(cuModuleLoadData)
FAIL_ON_USE(cuModuleUnload)
FAIL_ON_USE(cuModuleGetFunction)
FAIL_ON_USE(cuFuncSetAttribute)
FAIL_ON_USE(cuOccupancyMaxActiveBlocksPerMultiprocessor)
FAIL_ON_USE(cuMemAlloc_v2)
FAIL_ON_USE(cuMemFree_v2)
FAIL_ON_USE(cuMemsetD32_v2)
FAIL_ON_USE(cuMemcpyDtoH_v2)
FAIL_ON_USE(cuLaunchKernel)
FAIL_ON_USE(cuStreamCreate)
FAIL_ON_USE(cuStreamDestroy_v2)
FAIL_ON_USE(cuStreamSynchronize)
FAIL_ON_USE(cuEventCreate)
FAIL_ON_USE(cuEventDestroy_v2)
FAIL_ON_USE(cuEventRecord)
FAIL_ON_USE(cuEventSynchronize)
FAIL_ON_USE(cuEventElapsedTime_v2)
FAIL_ON_USE(cuStreamBeginCapture_v2)
FAIL_ON_USE(cuStreamEndCapture)
FAIL_ON_USE(cuGraphInstantiateWithFlags)
FAIL_ON_USE(cuGraphLaunch)
FAIL_ON_USE(cuGraphExecDestroy)
FAIL_ON_USE(cuGraphDestroy)
