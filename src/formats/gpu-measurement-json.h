/* Private to formats: the GPU measurement record of a machine as JSON (gpu-measurement-json.c). */
#ifndef ROOFTIME_FORMATS_GPU_MEASUREMENT_JSON_H
#define ROOFTIME_FORMATS_GPU_MEASUREMENT_JSON_H

#include <jansson.h>

#include "rooftime/core/gpu-measurement.h"

/* A new object: device, clocks, every compute and bandwidth kernel, the four launch overheads
 * (which one is tau), the sweep curves and their plateaus. */
json_t *rt_gpu_measurement_to_json(const rt_gpu_measurement *r);

#endif
