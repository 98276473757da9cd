/* The host side of the CUPTI Range Profiler (cupti-host.cpp, C++ because cupti_profiler_host.h
 * is): configuration images, pass counts and metric evaluation, behind a C interface. */
#ifndef ROOFTIME_COLLECT_CUPTI_HOST_H
#define ROOFTIME_COLLECT_CUPTI_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rtc_host rtc_host;

/* A host object for chip ("GH100"); avail is the device's counter availability image or NULL
 * (no device: every counter assumed available). NULL on error, with the reason in err. */
rtc_host *rtc_host_new(const char *chip, const uint8_t *avail, char *err, size_t errn);
void rtc_host_free(rtc_host *h);

/* Add all n metrics in one call and build the configuration image (*config, malloc'ed) and its
 * pass count. 0, or -1 with the reason (the first metric the chip does not know) in err. */
int rtc_host_config(rtc_host *h, const char *const *metrics, size_t n, uint8_t **config,
                    size_t *config_size, size_t *passes, char *err, size_t errn);

/* The pass count of a configuration image (as rtc_host_config made it); 0, or -1 with the reason.
 */
int rtc_config_passes(const uint8_t *config, size_t size, size_t *passes, char *err, size_t errn);

/* The number of ranges in a counter data image; -1 on error. */
long rtc_counter_data_ranges(const uint8_t *image, size_t size, char *err, size_t errn);
/* Range i's name (into name, cut to namen) and the n metrics' values. 0 or -1. */
int rtc_host_evaluate(rtc_host *h, const uint8_t *image, size_t size, size_t range,
                      const char *const *metrics, size_t n, double *values, char *name,
                      size_t namen, char *err, size_t errn);

/* The chip's base counter metrics (no rollup suffix such as .sum), names owned by CUPTI, into
 * *names; their number, or -1 with the reason in err. */
long rtc_host_base_counters(rtc_host *h, const char *const **names, char *err, size_t errn);

/* The chips the host library knows, in its order; NULL-free array owned by CUPTI. */
size_t rtc_host_chips(const char *const **chips);

#ifdef __cplusplus
}
#endif

#endif
