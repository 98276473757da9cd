/* The hint rules of data/verdict-hints.json (verdict-hints-json.c). */
#ifndef ROOFTIME_FORMATS_VERDICT_HINTS_JSON_H
#define ROOFTIME_FORMATS_VERDICT_HINTS_JSON_H

#include "rooftime/core/verdict-hints.h"
#include "rooftime/util/error.h"

/* Read rules from a JSON text (origin names it in errors); 0, or -1 with err set and out empty. */
int rt_verdict_hints_parse(const char *text, size_t len, const char *origin, rt_verdict_hints *out,
                           rt_error *err);
/* Read path (NULL: DATADIR/hints.json). */
int rt_verdict_hints_load(const char *path, rt_verdict_hints *out, rt_error *err);

#endif
