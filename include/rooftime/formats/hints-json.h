/* The hint rules' files (hints-json.c): data/verdict-hints.json and data/torch/hints.json, read
 * for the core's hint engine (rooftime/core/hints.h). */
#ifndef ROOFTIME_FORMATS_HINTS_JSON_H
#define ROOFTIME_FORMATS_HINTS_JSON_H

#include "rooftime/core/hints.h"
#include "rooftime/util/error.h"

/* Read rules from a JSON text (origin names it in errors); 0, or -1 with err set and out empty. */
int rt_verdict_hints_parse(const char *text, size_t len, const char *origin, rt_verdict_hints *out,
                           rt_error *err);
/* Read path (NULL: DATADIR/verdict-hints.json). */
int rt_verdict_hints_load(const char *path, rt_verdict_hints *out, rt_error *err);

/* Load a table of advice on a run (NULL: the shipped data/torch/hints.json); -1 naming the file
 * and field. *out: rt_hints_free. */
int rt_hints_load(const char *path, rt_hints **out, rt_error *err);

#endif
