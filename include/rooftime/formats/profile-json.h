/* Profile files (rooftime.profile/1): JSON in and out (profile-json.c). */
#ifndef ROOFTIME_FORMATS_PROFILE_JS_H
#define ROOFTIME_FORMATS_PROFILE_JS_H

#include <jansson.h>
#include <stdio.h>
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"
#include "rooftime/util/json-read.h"

int rt_profile_from_json(const json_t *j, const rt_json_src *src, rt_profile **out, rt_error *err);
/* The profile's JSON as a tree: its text (rt_profile_write_json) parsed; NULL when that fails. */
json_t *rt_profile_to_json(const rt_profile *p);
/* The profile as JSON text (indent 2, 17 digits, a newline at the end, as jansson dumps the same
 * values), written a kernel at a time. Returns 0, or -1 when writing failed. */
int rt_profile_write_json(const rt_profile *p, FILE *fp);
int rt_profile_load(const char *path, rt_profile **out, rt_error *err);
/* A deep copy through the profile's JSON text: what a save and a load would give. */
int rt_profile_copy(const rt_profile *p, rt_profile **out, rt_error *err);
int rt_profile_save(const rt_profile *p, const char *path, rt_error *err);

#endif
