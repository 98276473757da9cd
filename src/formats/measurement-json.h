/* Private to formats: the measurement record of a machine as JSON (measurement-json.c). */
#ifndef ROOFTIME_FORMATS_MEASUREMENT_JSON_H
#define ROOFTIME_FORMATS_MEASUREMENT_JSON_H

#include <jansson.h>

#include "rooftime/core/measurement.h"

/* {"cpu": ..., "clock": ..., "flops": [...], "caches": [...], "bandwidth": {...}, ...}; new
 * reference. */
json_t *rt_measurement_to_json(const rt_measurement *x);

#endif
