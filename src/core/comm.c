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
    rt_comm_pattern *c = &p->v[p->n++];
    c->stars_only = !strpbrk(match, "?[\\");
    c->shape = 0;
    c->lit = NULL;
    c->lit_len = 0;
    size_t len = strlen(match);
    const char *star = strchr(match, '*');
    if (!c->stars_only)
        return;
    if (!star) {
        c->shape = 'e';
        c->lit = rt_strdup(match);
    } else if (len >= 2 && match[0] == '*' && match[len - 1] == '*' &&
               !memchr(match + 1, '*', len - 2)) {
        c->shape = 'm';
        c->lit = rt_strndup(match + 1, len - 2);
    } else if (match[0] == '*' && !strchr(match + 1, '*')) {
        c->shape = 's';
        c->lit = rt_strdup(match + 1);
    } else if (star == match + len - 1) {
        c->shape = 'p';
        c->lit = rt_strndup(match, len - 1);
    }
    if (c->lit)
        c->lit_len = strlen(c->lit);
}

void rt_comm_patterns_release(rt_comm_patterns *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].match);
        free(p->v[i].library);
        free(p->v[i].lit);
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

/* Whether name (len bytes) matches pattern c: by its shape where it has one. */
static bool matches(const rt_comm_pattern *c, const char *name, size_t len)
{
    switch (c->shape) {
    case 'e':
        return strcmp(name, c->lit) == 0;
    case 'p':
        return strncmp(name, c->lit, c->lit_len) == 0;
    case 's':
        return len >= c->lit_len && memcmp(name + len - c->lit_len, c->lit, c->lit_len) == 0;
    case 'm':
        return strstr(name, c->lit) != NULL;
    default:
        return c->stars_only ? stars_match(c->match, name) : fnmatch(c->match, name, 0) == 0;
    }
}

const char *rt_comm_library(const rt_comm_patterns *p, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; p && i < p->n; i++)
        if (matches(&p->v[i], name, len))
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
