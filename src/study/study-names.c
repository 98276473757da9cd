/* Names in the study's findings: a small insertion-ordered set of strings, an operator's name
 * without the shapes a trace appends, and a config's series. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study-names.h"
#include "rooftime/util/strings.h"

size_t rt_study_strset_add(rt_study_strset *s, const char *x)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], x) == 0)
            return i;
    s->v = rt_xrealloc(s->v, (s->n + 1) * sizeof *s->v);
    s->v[s->n] = rt_strdup(x);
    return s->n++;
}

void rt_study_strset_release(rt_study_strset *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* An operator's name without the input shapes torch's traces append ("aten::mm [[2,3],[3,4]]"). */
void rt_study_base_name(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%.*s", (int)strcspn(name, "["), name);
    size_t l = strlen(buf);
    while (l && buf[l - 1] == ' ')
        buf[--l] = '\0';
}

static const char *tag(const rt_tags *t, const char *key)
{
    const char *v = rt_tags_get(t, key);
    return v ? v : "";
}

void rt_study_impl_of(const rt_tags *t, char *buf, size_t n)
{
    const char *v = tag(t, "variant");
    snprintf(buf, n, "%s%s%s", tag(t, "implementation"), *v ? " " : "", v);
}

void rt_study_series_of(const rt_tags *t, char *buf, size_t n)
{
    char im[64];
    rt_study_impl_of(t, im, sizeof im);
    snprintf(buf, n, "%s %s %s %s", im, tag(t, "precision"), tag(t, "operation"), tag(t, "pass"));
}
