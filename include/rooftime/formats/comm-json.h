/* The patterns of communication kernels, data/comm/kernels.json (comm-json.c). */
#ifndef ROOFTIME_FORMATS_COMM_JSON_H
#define ROOFTIME_FORMATS_COMM_JSON_H

#include <jansson.h>

#include "rooftime/core/comm.h"
#include "rooftime/util/error.h"
#include "rooftime/util/json-read.h"

/* {"patterns": [{"match": GLOB, "library": NAME}, ...]} into out (appended); -1 naming the field.
 */
int rt_comm_patterns_from_json(const json_t *j, const rt_json_src *src, rt_comm_patterns *out,
                               rt_error *err);
/* Load a patterns file; path NULL: data/comm/kernels.json of the data directory. */
int rt_comm_patterns_load(const char *path, rt_comm_patterns *out, rt_error *err);

#endif
