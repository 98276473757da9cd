/* Communication kernels: recognised by name (the patterns are data), tagged, told apart by the
 * model. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/comm.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/strings.h"

void rt_comm_patterns_add(rt_comm_patterns *p, const char *match, const char *library)
{
    p->v = rt_xrealloc(p->v, (p->n + 1) * sizeof *p->v);
    p->v[p->n].match = rt_strdup(match);
    p->v[p->n].library = rt_strdup(library ? library : "");
    p->v[p->n].stars_only = !strpbrk(match, "?[\\");
    p->n++;
}

void rt_comm_patterns_release(rt_comm_patterns *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].match);
        free(p->v[i].library);
    }
    free(p->v);
    p->v = NULL;
    p->n = 0;
}

/* Whether s matches pat, a glob of literal bytes and '*' only: what fnmatch without flags
 * decides for such a pattern ('*' takes any bytes, '/' and a leading '.' too), at a fraction of
 * its cost per call (a million kernel names against every pattern). */
static bool stars_match(const char *pat, const char *s)
{
    const char *star = NULL, *resume = NULL; /* after the last '*', and where it began in s */
    while (*s) {
        if (*pat == '*') {
            star = ++pat;
            resume = s;
        } else if (*pat == *s) {
            pat++;
            s++;
        } else if (star) {
            pat = star; /* the last '*' takes one byte more */
            s = ++resume;
        } else {
            return false;
        }
    }
    while (*pat == '*')
        pat++;
    return !*pat;
}

const char *rt_comm_library(const rt_comm_patterns *p, const char *name)
{
    for (size_t i = 0; p && i < p->n; i++)
        if (p->v[i].stars_only ? stars_match(p->v[i].match, name)
                               : fnmatch(p->v[i].match, name, 0) == 0)
            return p->v[i].library;
    return NULL;
}

size_t rt_comm_tag_profile(const rt_comm_patterns *p, rt_profile *prof)
{
    size_t n = 0;
    for (size_t i = 0; i < prof->n_kernels; i++) {
        rt_kernel *k = &prof->kernels[i];
        const char *lib = rt_comm_library(p, k->name);
        if (!lib || rt_tags_get(&k->tags, "class"))
            continue;
        rt_tags_set(&k->tags, "class", "communication");
        if (*lib)
            rt_tags_set(&k->tags, "comm_library", lib);
        n++;
    }
    return n;
}

bool rt_kernel_is_communication(const rt_kernel *k)
{
    const char *c = rt_tags_get(&k->tags, "class");
    return c && strcmp(c, "communication") == 0;
}
