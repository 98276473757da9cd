/* Profile files (rooftime.profile/1): JSON in and out (profile-json.c). */
#ifndef ROOFTIME_FORMATS_PROFILE_JS_H
#define ROOFTIME_FORMATS_PROFILE_JS_H

#include <jansson.h>
#include <stdio.h>
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"
#include "rooftime/util/json-read.h"

int rt_profile_from_json(const json_t *j, const rt_json_src *src, rt_profile **out, rt_error *err);
json_t *rt_profile_to_json(const rt_profile *p);
/* The profile as the JSON text rt_profile_to_json's tree dumps to (indent 2, 17 digits, a newline
 * at the end), written a kernel at a time. Returns 0, or -1 when writing failed. */
int rt_profile_write_json(const rt_profile *p, FILE *fp);
int rt_profile_load(const char *path, rt_profile **out, rt_error *err);
int rt_profile_save(const rt_profile *p, const char *path, rt_error *err);

#endif
