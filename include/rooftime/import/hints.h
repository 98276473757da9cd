/* Advice from patterns in a run: a rule table (data/torch/hints.json) over the kernels of
 * profiles and their verdicts on a machine (hints.c). */
#ifndef ROOFTIME_IMPORT_HINTS_H
#define ROOFTIME_IMPORT_HINTS_H

#include <stddef.h>

#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

typedef struct rt_hints rt_hints;

/* Load a rule table (NULL: the shipped data/torch/hints.json); -1 naming the file and field. */
int rt_hints_load(const char *path, rt_hints **out, rt_error *err);
void rt_hints_free(rt_hints *h);

/* The rules that fire on these profiles, one line of advice each with its figure, into out (as
 * warnings are kept: out->msg[i]). m may be NULL: rules on verdicts then do not apply. */
void rt_hints_eval(const rt_hints *h, const rt_machine *m, rt_mode mode, rt_profile *const *ps,
                   size_t n, rt_warnings *out);

#endif
