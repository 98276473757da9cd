/* The hint engine (hints.c). What to try for a verdict: rules read from data/verdict-hints.json
 * (formats/hints-json.c), matched in order against a verdict's bound class; the first match gives
 * the hint. Advice on a run: rules read from data/torch/hints.json (formats/hints-json.c) over the
 * kernels of profiles and their verdicts on a machine. Both name a bound by the same classes. */
#ifndef ROOFTIME_CORE_HINTS_H
#define ROOFTIME_CORE_HINTS_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"

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

/* The class name of a bound ("overhead", "bandwidth", "compute"; "none" for any other), and back
 * (RT_BOUND_NONE for a name that is none of the three). */
const char *rt_hint_bound_name(rt_bound b);
rt_bound rt_hint_bound_parse(const char *s);

/* ---- advice on a run ---- */

#define RT_HINT_MAX_RULES 64
#define RT_HINT_MAX_NAMES 64
#define RT_HINT_MAX_KEYS 8

/* What a rule looks at: kernels, configs (kernels summed by tags), or both. */
enum { RT_HINT_OVER_KERNELS = 1, RT_HINT_OVER_CONFIGS = 2 };

/* One rule: all that it gives must hold of what it matches; it fires when that holds at least
 * min_share of the run's time. Owns its strings. */
typedef struct rt_hint_rule {
    char *id, *advice, *tag;        /* tag: NULL, any */
    char *names[RT_HINT_MAX_NAMES]; /* kernel names, '*' at the start or end; none: any */
    size_t n_names;
    rt_bound bound; /* RT_BOUND_NONE: any */
    int zero_flops;
    double min_share;
    int over;                      /* RT_HINT_OVER_KERNELS, _CONFIGS or both */
    char *group[RT_HINT_MAX_KEYS]; /* configs: the tags that make them (none: every tag) */
    size_t n_group;
} rt_hint_rule;

typedef struct rt_hints {
    rt_hint_rule r[RT_HINT_MAX_RULES];
    size_t n;
} rt_hints;

/* An empty rule table (heap; rt_hints_free). */
rt_hints *rt_hints_new(void);
void rt_hints_free(rt_hints *h);

/* The rules that fire on these profiles, one line of advice each with its figure, into out (as
 * warnings are kept: out->msg[i]). m may be NULL: rules on verdicts then do not apply. */
void rt_hints_eval(const rt_hints *h, const rt_machine *m, rt_mode mode, rt_profile *const *ps,
                   size_t n, rt_warnings *out);

#endif
