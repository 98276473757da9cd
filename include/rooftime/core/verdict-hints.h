/* What to try for a verdict (verdict-hints.c): rules read from data/verdict-hints.json
 * (formats/verdict-hints-json.c), matched in order against a verdict's bound class; the first match
 * gives the hint. */
#ifndef ROOFTIME_CORE_VERDICT_HINTS_H
#define ROOFTIME_CORE_VERDICT_HINTS_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"

typedef struct rt_verdict_hint_rule {
    char *bound;  /* "overhead", "bandwidth", "compute", "none", "zero-ai" (pure data movement) */
    char *detail; /* the unit or level after the class ("DRAM"); NULL: any */
    char *text;   /* "{detail}" is replaced by the unit or level of the verdict */
} rt_verdict_hint_rule;

typedef struct rt_verdict_hints {
    rt_verdict_hint_rule *rules;
    size_t n;
} rt_verdict_hints;

void rt_verdict_hints_release(rt_verdict_hints *h);
/* Add a rule (copies the strings; detail may be NULL). */
void rt_verdict_hints_add(rt_verdict_hints *h, const char *bound, const char *detail,
                          const char *text);
/* The hint for v in buf ("" when no rule matches or h is NULL). */
void rt_verdict_hint_for(const rt_verdict_hints *h, const rt_verdict *v, char *buf, size_t n);

#endif
