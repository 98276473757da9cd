/* Private to formats: a rank identity as the "identity" member of profiles and machine files
 * (identity-json.c). */
#ifndef ROOFTIME_FORMATS_IDENTITY_JSON_H
#define ROOFTIME_FORMATS_IDENTITY_JSON_H

#include <jansson.h>

#include "json-write.h"
#include "rooftime/util/rank-identity.h"

/* {"launcher": "openmpi", "rank": 3, "local_rank": 1, "size": 8, "host": "n1", "device": "cuda:0"},
 * members absent when unknown; new reference. */
json_t *rt_identity_to_json(const rt_rank_identity *id);
/* The optional "identity" member of obj: *out a new identity, or NULL when absent; -1 naming the
 * field when it is malformed. */
int rt_identity_read(rt_jr *r, const json_t *obj, rt_rank_identity **out);

#endif
