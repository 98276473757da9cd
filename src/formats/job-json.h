/* Private to formats: a job's ceilings as the "job" member of a machine file (job-json.c). */
#ifndef ROOFTIME_FORMATS_JOB_JSON_H
#define ROOFTIME_FORMATS_JOB_JSON_H

#include <jansson.h>

#include "rooftime/core/job.h"

/* {"fraction", "figures": [{"name", "kind", "ranks": {median,min,max}, "nodes": {...},
 * "contention"}], "ranks": [...], "nodes": [...], "slow": [...]}; new reference. */
json_t *rt_job_to_json(const rt_job *j);

#endif
