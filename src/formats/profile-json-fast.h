/* A direct reader of profile JSON text for the common case (profile-json-fast.c). */
#ifndef ROOFTIME_PROFILE_JSON_FAST_H
#define ROOFTIME_PROFILE_JSON_FAST_H

#include <stddef.h>

#include "rooftime/core/profile.h"

/* The profile in text (len bytes), as rt_profile_from_json would read it: 0 with *out set, or -1
 * when the text holds anything this reader leaves to the general one (which then gives the same
 * profile, or the error). Never an error of its own. */
int rt_profile_json_fast(const char *text, size_t len, rt_profile **out);
/* The same, with a kernels array of split bytes or more read in two halves side by side (where a
 * second processor is; rt_profile_json_fast: 4 MiB); the result does not depend on it. */
int rt_profile_json_fast_split(const char *text, size_t len, size_t split, rt_profile **out);

#endif
