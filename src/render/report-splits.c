/* The report's splits: the distinct values of the --split-by tags, each a chart section with a
 * title, a file-name slug and its filter list; and the tags as the kernels spell them. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report-internal.h"
#include "rooftime/util/strings.h"

static char *slugify(const char *s)
{
    char *o = rt_strdup(s);
    size_t j = 0;
    for (size_t i = 0; o[i]; i++) {
        unsigned char c = (unsigned char)o[i];
        if (isalnum(c))
            o[j++] = (char)tolower(c);
        else if (j && o[j - 1] != '-')
            o[j++] = '-';
    }
    while (j && o[j - 1] == '-')
        j--;
    o[j] = '\0';
    if (!j) {
        free(o);
        o = rt_strdup("all");
    }
    return o;
}

size_t rt_report_splits_build(const rt_analysis *a, const rt_report_opts *o, rt_report_split **out)
{
    rt_report_split *s = NULL;
    size_t n = 0;
    /* Each split tag as the kernels spell it, as the styling tags are found ("pass" splits by
     * "Pass"); one no kernel carries splits nothing. */
    const char **key = rt_xcalloc(o->n_split_by + 1, sizeof *key);
    for (size_t k = 0; k < o->n_split_by; k++)
        key[k] = rt_report_tag_find(a, o->split_by[k]);
    for (size_t i = 0; i < a->n_items; i++) {
        char **w = rt_xcalloc(o->n_split_by + 1, sizeof *w);
        size_t nw = 0;
        for (size_t k = 0; k < o->n_split_by; k++) {
            const char *v = key[k] ? rt_tags_get(&a->items[i].tags, key[k]) : NULL;
            if (v)
                w[nw++] = rt_asprintf("%s=%s", key[k], v);
        }
        size_t j = 0;
        for (; j < n; j++) {
            bool same = s[j].n_where == nw;
            for (size_t k = 0; k < nw && same; k++)
                same = strcmp(s[j].where[k], w[k]) == 0;
            if (same)
                break;
        }
        if (j < n) {
            for (size_t k = 0; k < nw; k++)
                free(w[k]);
            free(w);
            continue;
        }
        s = rt_xrealloc(s, (n + 1) * sizeof *s);
        size_t len = 1;
        for (size_t k = 0; k < nw; k++)
            len += strlen(w[k]) + 1;
        char *title = rt_xcalloc(len, 1);
        for (size_t k = 0; k < nw; k++) {
            if (k)
                strcat(title, " ");
            strcat(title, w[k]);
        }
        s[n] = (rt_report_split){.where = w, .n_where = nw, .title = title, .slug = slugify(title)};
        /* Two titles can slug alike ("a b" and "a-b"): number the later ones. */
        for (size_t k = 0; k < n; k++)
            if (strcmp(s[k].slug, s[n].slug) == 0) {
                char *t = rt_asprintf("%s-%zu", s[n].slug, n + 1);
                free(s[n].slug);
                s[n].slug = t;
                break;
            }
        n++;
    }
    free(key);
    *out = s;
    return n;
}

void rt_report_splits_free(rt_report_split *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < s[i].n_where; k++)
            free(s[i].where[k]);
        free(s[i].where);
        free(s[i].title);
        free(s[i].slug);
    }
    free(s);
}

const char *rt_report_tag_find(const rt_analysis *a, const char *tag)
{
    if (!tag)
        return NULL;
    for (size_t i = 0; i < a->n_items; i++)
        if (rt_tags_get(&a->items[i].tags, tag))
            return tag;
    for (size_t i = 0; i < a->n_items; i++)
        for (size_t k = 0; k < a->items[i].tags.n; k++)
            if (strcasecmp(a->items[i].tags.v[k].key, tag) == 0)
                return a->items[i].tags.v[k].key;
    return NULL;
}
