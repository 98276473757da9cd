/* The CUPTI collector from the API's side, for rooftime.gpu.profile(): where librooftime-cupti.so
 * is (found as `profile --gpu` finds it) and the metrics its counters mode collects on this
 * machine's GPUs. The collector itself is loaded by the caller (it is not linked here). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api-internal.h"
#include "rooftime/api/api.h"
#include "rooftime/import/cupti.h"
#include "rooftime/probe/gpu-driver.h"
#include "rooftime/util/strings.h"

/* librooftime-cupti.so: $ROOFTIME_CUPTI_LIB, else beside this library (api-internal.h). */
char *api_find_cupti_lib(void)
{
    const char *env = getenv("ROOFTIME_CUPTI_LIB");
    if (env && *env) {
        char *r = access(env, R_OK) == 0 ? realpath(env, NULL) : NULL;
        if (!r)
            api_fail(
                "librooftime-cupti.so not found: ROOFTIME_CUPTI_LIB='%s' is not a readable file",
                env);
        return r;
    }
    Dl_info info;
    if (!dladdr((void *)api_find_cupti_lib, &info) || !info.dli_fname) {
        api_fail("librooftime-cupti.so not found: librooftime.so cannot tell where it is; set "
                 "ROOFTIME_CUPTI_LIB to its path");
        return NULL;
    }
    char *self = realpath(info.dli_fname, NULL);
    char *copy = rt_strdup(self ? self : info.dli_fname);
    const char *dir = dirname(copy);
    char *p = rt_asprintf("%s/librooftime-cupti.so", dir), *r = NULL;
    if (access(p, R_OK) == 0)
        r = realpath(p, NULL);
    else
        api_fail("librooftime-cupti.so not found beside %s (rooftime was built without CUPTI?); "
                 "set ROOFTIME_CUPTI_LIB to its path",
                 self ? self : info.dli_fname);
    free(p);
    free(copy);
    free(self);
    return r;
}

char *rt_api_cupti_lib(void)
{
    api_begin();
    return api_find_cupti_lib();
}

char *rt_api_cupti_metrics(void)
{
    api_begin();
    rt_cuda cu;
    rt_error err = {{0}};
    if (rt_cuda_open(&cu, &err) != 0) {
        api_fail("%s", err.msg);
        return NULL;
    }
    int n = 0, sms[16];
    size_t n_sms = 0;
    if (cu.DeviceGetCount(&n) == RT_CU_SUCCESS)
        for (int d = 0; d < n && n_sms < 16; d++) {
            rt_cu_device dev;
            int major = 0, minor = 0;
            if (cu.DeviceGet(&dev, d) == RT_CU_SUCCESS &&
                cu.DeviceGetAttribute(&major, RT_CU_ATTR_CC_MAJOR, dev) == RT_CU_SUCCESS &&
                cu.DeviceGetAttribute(&minor, RT_CU_ATTR_CC_MINOR, dev) == RT_CU_SUCCESS)
                sms[n_sms++] = major * 10 + minor;
        }
    rt_cuda_close(&cu);
    char *m = rt_cupti_metrics_for(sms, n_sms, &err);
    if (!m)
        api_fail("%s", err.msg);
    return m;
}
