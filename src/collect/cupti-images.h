/* The kept raw counter images of one process, checked against their manifest and evaluated
 * (cupti-images.c). Private to the collector. */
#ifndef ROOFTIME_COLLECT_CUPTI_IMAGES_H
#define ROOFTIME_COLLECT_CUPTI_IMAGES_H

#include "cupti-reevaluate-run.h"

/* Process pid: the images its images.PID.csv lists, checked and evaluated into
 * out_dir/ranges.PID.csv (cupti-images.c). 0, or -1 with the reason in r->err. */
int re_process(re_run *r, long pid);

#endif
