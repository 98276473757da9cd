/* The GPU measurement's details as JSON (the "gpu" member of a measured machine file). */
#ifndef ROOFTIME_PROBE_GPU_JSON_H
#define ROOFTIME_PROBE_GPU_JSON_H

#include <jansson.h>

#include "rooftime/probe/gpu-measure.h"

/* A new object: device, clocks, every compute and bandwidth kernel, the four launch overheads
 * (which one is tau), the sweep curves and their plateaus. */
json_t *rt_gpu_report_to_json(const rt_gpu_report *r);

#endif
