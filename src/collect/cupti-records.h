/* CUPTI activity records into the collector's CSV rows (cupti-records.c): one code path for the
 * injection library and for the test that feeds it hand-built records. */
#ifndef ROOFTIME_COLLECT_CUPTI_RECORDS_H
#define ROOFTIME_COLLECT_CUPTI_RECORDS_H

#include <cupti_activity.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The demangled name (a C++ symbol such as _Z5saxpyifPKfPf) or a copy of name; caller frees. */
char *rtc_demangle(const char *name);
/* One CSV field, quoted when it holds a comma, a quote or a line break. */
void rtc_csv_field(FILE *f, const char *s);
/* A kernel record (CUPTI_ACTIVITY_KIND_KERNEL or CONCURRENT_KERNEL, CUpti_ActivityKernel10) as a
 * row of kernels.PID.csv; returns 1 when it wrote one, 0 for another kind of record. */
int rtc_write_kernel(FILE *f, const CUpti_Activity *rec);
/* FNV-1a, 64 bits, of n bytes: each raw image's checksum in images.PID.csv. */
uint64_t rtc_fnv1a64(const uint8_t *p, size_t n);
/* One row of images.PID.csv (RT_CUPTI_IMAGE_HEADER) for the image file (a name in the directory).
 */
void rtc_write_image_row(FILE *f, const char *file, const char *kind, unsigned context,
                         const char *chip, size_t bytes, uint64_t hash);
/* The names of an image's ranges into path, one per line (line breaks become spaces); 0 or -1. */
int rtc_write_names(const char *path, char *const *names, size_t n);
/* Every record of a completed activity buffer (valid bytes of buf); the kernel rows go to f.
 * Returns the number of kernel rows, or -1 when CUPTI could not walk the buffer. */
long rtc_write_buffer(FILE *f, uint8_t *buf, size_t valid);

#endif
