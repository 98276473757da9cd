/* In-process collection: rooftime_cupti_attach and rooftime_cupti_detach
 * (include/rooftime/import/cupti.h), the same start and end as the injection (cupti-inject.c),
 * after checking for a driver and a device so that a machine without them gets one line, no
 * crash and no files. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "cupti-collector.h"
#include "rooftime/import/cupti.h"

#define RTC_EXPORT __attribute__((visibility("default")))

/* A driver with at least one device, asked through libcuda.so.1 itself before CUPTI is touched
 * (CUPTI's queries crash without one). 0, or -1 with the line in err. */
static int check_device(char *err, size_t errlen)
{
    void *h = rtc_open_libcuda(err, errlen);
    if (!h)
        return -1;
    /* Left loaded: the driver stays for the collection (rtc_load_driver takes it again). */
    CUresult (*init)(unsigned) = (CUresult(*)(unsigned))dlsym(h, "cuInit");
    CUresult (*count)(int *) = (CUresult(*)(int *))dlsym(h, "cuDeviceGetCount");
    int devices = 0;
    CUresult r;
    if (!init || !count) {
        snprintf(err, errlen, "libcuda.so.1 lacks cuInit or cuDeviceGetCount");
        return -1;
    }
    if ((r = init(0)) != CUDA_SUCCESS) {
        snprintf(err, errlen, "no usable GPU: cuInit failed with CUDA error %d", (int)r);
        return -1;
    }
    if ((r = count(&devices)) != CUDA_SUCCESS || devices < 1) {
        snprintf(err, errlen, "no CUDA device (cuDeviceGetCount: error %d, %d devices)", (int)r,
                 devices);
        return -1;
    }
    return 0;
}

RTC_EXPORT int rooftime_cupti_attach(const char *dir, const char *mode, char *err, size_t errlen)
{
    char spare[1024];
    if (!err || errlen == 0) {
        err = spare;
        errlen = sizeof spare;
    }
    err[0] = '\0';
    if (!dir || !*dir) {
        snprintf(err, errlen, "no directory given to collect into");
        return -1;
    }
    int counters = mode && strcmp(mode, "counters") == 0;
    if (mode && !counters && strcmp(mode, "trace") != 0) {
        snprintf(err, errlen, "mode '%.60s': trace or counters", mode);
        return -1;
    }
    pthread_mutex_lock(&rtc_g.lock);
    int active = rtc_g.active;
    if (active) /* under the injection, or attached before */
        snprintf(err, errlen, "already collecting (into %s)", rtc_g.dir);
    pthread_mutex_unlock(&rtc_g.lock);
    if (active)
        return -1;
    if (check_device(err, errlen) != 0)
        return -1;
    struct stat st;
    if (mkdir(dir, 0777) != 0 && !(errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))) {
        snprintf(err, errlen, "cannot create the directory '%s': %s", dir,
                 errno == EEXIST ? "a file is in the way" : strerror(errno));
        return -1;
    }
    const char *keep = getenv("ROOFTIME_CUPTI_KEEP_IMAGES");
    return rtc_start(dir, counters, getenv("ROOFTIME_CUPTI_METRICS"),
                     keep && strcmp(keep, "1") == 0, err, errlen);
}

RTC_EXPORT int rooftime_cupti_detach(char *err, size_t errlen)
{
    char spare[256];
    if (!err || errlen == 0) {
        err = spare;
        errlen = sizeof spare;
    }
    err[0] = '\0';
    return rtc_finish(1, err, errlen);
}
