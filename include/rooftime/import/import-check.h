/* The check every importer's result passes before the importer returns it (import-check.c). */
#ifndef ROOFTIME_IMPORT_IMPORT_CHECK_H
#define ROOFTIME_IMPORT_IMPORT_CHECK_H

#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

/* The last step of every importer's library call: *p must pass rt_profile_check (core/profile.h
 * promises it of every importer's result: values a profile file cannot hold, sums that
 * overflow). 0 keeps *p; -1 frees it, sets *p to NULL and says "'INPUT': kernel 3 'x': time:
 * ..." in err, input being what the importer read (a path, or a text's origin). */
int rt_import_check(rt_profile **p, const char *input, rt_error *err);

#endif
