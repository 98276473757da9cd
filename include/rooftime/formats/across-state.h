/* The whole state of an analysis across ranks as JSON, to be merged elsewhere (across-state.c):
 * how `analyze --across rank --mpi` sends a rank's partial fold to the rank that reduces it. */
#ifndef ROOFTIME_FORMATS_ACROSS_STATE_H
#define ROOFTIME_FORMATS_ACROSS_STATE_H

#include <jansson.h>

#include "rooftime/core/across.h"
#include "rooftime/util/error.h"
#include "rooftime/util/json-read.h"

/* Every entry's key, figures, slowest ranks and sketch counts, and every rank's total; new
 * reference (before rt_across_finish or after: the finished figures are not sent). */
json_t *rt_across_state_to_json(const rt_across *a);
/* A new accumulator holding what rt_across_state_to_json wrote (opts from it); -1 naming the field
 * when the text is not such a state. */
int rt_across_state_from_json(const json_t *j, const rt_json_src *src, rt_across **out,
                              rt_error *err);

#endif
