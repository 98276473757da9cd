/* Hints: the first rule whose class (and unit or level) matches the verdict's bound. */
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/verdict-hints.h"
#include "rooftime/core/model.h"
#include "rooftime/util/strings.h"

void rt_verdict_hints_release(rt_verdict_hints *h)
{
    for (size_t i = 0; i < h->n; i++) {
        free(h->rules[i].bound);
        free(h->rules[i].detail);
        free(h->rules[i].text);
    }
    free(h->rules);
    memset(h, 0, sizeof *h);
}

void rt_verdict_hints_add(rt_verdict_hints *h, const char *bound, const char *detail,
                          const char *text)
{
    h->rules = rt_xrealloc(h->rules, (h->n + 1) * sizeof *h->rules);
    h->rules[h->n++] = (rt_verdict_hint_rule){.bound = rt_strdup(bound),
                                              .detail = detail ? rt_strdup(detail) : NULL,
                                              .text = rt_strdup(text)};
}

/* The class of a verdict as the rules name it, and its detail (after ':' of the label). */
static const char *verdict_class(const rt_verdict *v, const char **detail)
{
    const char *colon = strchr(v->bound_label, ':');
    *detail = colon ? colon + 1 : "";
    if (v->zero_ai)
        return "zero-ai";
    switch (v->bound) {
    case RT_BOUND_OVERHEAD:
        return "overhead";
    case RT_BOUND_BANDWIDTH:
        return "bandwidth";
    case RT_BOUND_COMPUTE:
        return "compute";
    default:
        return "none";
    }
}

void rt_verdict_hint_for(const rt_verdict_hints *h, const rt_verdict *v, char *buf, size_t n)
{
    if (n)
        buf[0] = '\0';
    if (!h || !n)
        return;
    const char *detail, *cls = verdict_class(v, &detail);
    for (size_t i = 0; i < h->n; i++) {
        const rt_verdict_hint_rule *r = &h->rules[i];
        if (strcmp(r->bound, cls) != 0 || (r->detail && strcmp(r->detail, detail) != 0))
            continue;
        /* Copy the text, "{detail}" replaced. */
        size_t o = 0;
        for (const char *p = r->text; *p && o + 1 < n;) {
            if (strncmp(p, "{detail}", 8) == 0) {
                for (const char *d = detail; *d && o + 1 < n; d++)
                    buf[o++] = *d;
                p += 8;
            } else {
                buf[o++] = *p++;
            }
        }
        buf[o] = '\0';
        return;
    }
}
