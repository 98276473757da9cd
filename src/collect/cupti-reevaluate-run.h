/* The re-evaluation of kept raw counter images, its run and messages (cupti-reevaluate-run.c):
 * what cupti-reevaluate.c (runs it in a child process and reports back) and cupti-images.c (checks
 * and evaluates the images) share. Private to the collector. */
#ifndef ROOFTIME_COLLECT_CUPTI_REEVALUATE_RUN_H
#define ROOFTIME_COLLECT_CUPTI_REEVALUATE_RUN_H

#include <stddef.h>

#include "cupti-host.h"

#define RE_MAX_METRICS 64
#define RE_MAX_CONTEXTS 1024
#define RE_MAX_MANIFEST_LINE 4096
#define RE_MAX_TEXT ((long long)64 << 20) /* an images.PID.csv, a .names file */

/* A context's configuration: its chip and the host object that evaluates its images. */
typedef struct re_ctx {
    unsigned id;
    char chip[64];
    rtc_host *host;
} re_ctx;

/* What the child reevaluates, and the pipe its messages go back through. */
typedef struct re_run {
    const char *dir, *out_dir;
    int fd;
    char *err;
    size_t errn;
    char *metric_list; /* the metrics= line of collector.PID.txt, cut at the commas */
    const char *metric[RE_MAX_METRICS];
    size_t n_metric;
    long passes[16]; /* the passes= lines (one per context's configuration) */
    size_t n_passes;
    re_ctx ctx[RE_MAX_CONTEXTS];
    size_t n_ctx;
    unsigned long ranges; /* written, in all processes */
    size_t images;        /* counter data images read */
} re_run;

/* The reason into r->err. */
void re_fail(re_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A warning for the parent. */
void re_warn(re_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The file CUPTI is about to read, so that a crash can name it. */
void re_reading(re_run *r, const char *path);

/* One message to the parent on fd: a kind letter, the text with its line breaks as spaces, '\n'. */
void re_send(int fd, char kind, const char *text);

#endif
