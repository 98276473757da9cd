/* Families: configs that differ only in one numeric parameter (a batch size, a shape), each
 * ordered by that parameter's value, grouped through hashes of their other tags. */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis-families.h"
#include "analysis-tagset.h"
#include "rooftime/core/analysis.h"
#include "rooftime/util/strings.h"

/* The whole number a run of digits at s spells when strtod would read just those digits and
 * read them exactly (at most 15, not followed by what strtod reads on: a decimal point, an
 * exponent, "0x"), with *end after them; -1 otherwise. */
static long long plain_int(const char *s, const char **end)
{
    long long v = 0;
    const char *p = s;
    while (isdigit((unsigned char)*p) && p - s < 16)
        v = v * 10 + (*p++ - '0');
    if (p - s > 15 || *p == '.' || *p == ',' || *p == 'e' || *p == 'E' ||
        (p - s == 1 && *s == '0' && (*p == 'x' || *p == 'X')))
        return -1;
    *end = p;
    return v;
}

/* Compare strings with digit runs as numbers, so "3x3x64x64" < "3x3x64x128" and "9" < "16". */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            /* Most runs are small whole numbers ("16", "3x3"): compared without strtod, as it
             * would compare them (a million configs' families are sorted by them). */
            const char *pa, *pb;
            long long ia = plain_int(a, &pa), ib = ia < 0 ? -1 : plain_int(b, &pb);
            if (ib >= 0) {
                if (ia != ib)
                    return ia < ib ? -1 : 1;
                a = pa;
                b = pb;
                continue;
            }
            char *ea, *eb;
            double da = strtod(a, &ea), db = strtod(b, &eb);
            if (da != db)
                return da < db ? -1 : 1;
            a = ea;
            b = eb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++, b++;
    }
    return *a ? 1 : (*b ? -1 : 0);
}

/* A value can be a family parameter when it starts like a number ("16", "3x3x64x64"). */
static int numeric_like(const char *s)
{
    return s && (isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1])) ||
                 (s[0] == '.' && isdigit((unsigned char)s[1])));
}

/* The configs' tags other than param and the ignored ones, as text: the family's label. */
static char *signature(const rt_config *c, const char *param, const rt_group_opts *o)
{
    size_t len = 1;
    for (size_t i = 0; i < c->tags.n; i++)
        len += strlen(c->tags.v[i].key) + strlen(c->tags.v[i].value) + 2;
    char *s = rt_xmalloc(len);
    s[0] = '\0';
    for (size_t i = 0; i < c->tags.n; i++) {
        const char *k = c->tags.v[i].key;
        if (!rt_tagset_family_tag(k, param, o))
            continue;
        strcat(s, k);
        strcat(s, "=");
        strcat(s, c->tags.v[i].value);
        strcat(s, " ");
    }
    if (*s)
        s[strlen(s) - 1] = '\0';
    return s;
}

/* The family parameter's value of each config, for the sort (one family sorted at a time). */
static _Thread_local const char *const *sort_vals; /* analyses may run side by side */
static int cmp_by_param(const void *x, const void *y)
{
    return natural_cmp(sort_vals[*(const size_t *)x], sort_vals[*(const size_t *)y]);
}

static void add_family(rt_analysis *a, size_t *cap, const char *param, char *label, size_t *members,
                       size_t n)
{
    if (a->n_families == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        a->families = rt_xrealloc(a->families, *cap * sizeof *a->families);
    }
    a->families[a->n_families++] =
        (rt_family){.param = rt_strdup(param), .label = label, .configs = members, .n = n};
}

typedef struct family_probe {
    const rt_analysis *a;
    const char *param;
    const rt_group_opts *o;
    size_t config;
    const size_t *first; /* each group's first config */
} family_probe;

static bool family_same(const void *ctx, size_t g)
{
    const family_probe *p = ctx;
    return rt_tagset_same(&p->a->configs[p->config].tags, &p->a->configs[p->first[g]].tags,
                          p->param, p->o);
}

/* The families of one parameter: configs that carry it, grouped by a hash of their other tags,
 * in order of each group's first config, each ordered by the parameter's value. */
static void families_of(rt_analysis *a, const char *param, const char *const *vals,
                        const rt_group_opts *o, size_t *cap)
{
    size_t nc = a->n_configs, ng = 0;
    size_t *group = rt_xcalloc(nc ? nc : 1, sizeof *group);
    size_t *first = rt_xcalloc(nc ? nc : 1, sizeof *first);
    rt_tagset_table tt;
    rt_tagset_table_init(&tt, nc);
    for (size_t c = 0; c < nc; c++) {
        const rt_tags *t = &a->configs[c].tags;
        group[c] = (size_t)-1;
        if (!vals[c])
            continue;
        uint64_t h = rt_tagset_hash(t, param, o);
        family_probe probe = {a, param, o, c, first};
        size_t j = rt_tagset_table_find(&tt, h, family_same, &probe);
        if (!tt.slot[j]) {
            tt.slot[j] = ng + 1;
            tt.hash[ng] = h;
            first[ng++] = c;
        }
        group[c] = tt.slot[j] - 1;
    }
    rt_tagset_table_release(&tt);
    free(first);
    /* Counting sort by group keeps each group's configs in ascending order. */
    size_t *start = rt_xcalloc(ng + 1, sizeof *start);
    for (size_t c = 0; c < nc; c++)
        if (group[c] != (size_t)-1)
            start[group[c] + 1]++;
    for (size_t g = 0; g < ng; g++)
        start[g + 1] += start[g];
    size_t *order = rt_xcalloc(start[ng] ? start[ng] : 1, sizeof *order);
    size_t *fill = rt_xcalloc(ng ? ng : 1, sizeof *fill);
    for (size_t c = 0; c < nc; c++)
        if (group[c] != (size_t)-1)
            order[start[group[c]] + fill[group[c]]++] = c;
    for (size_t g = 0; g < ng; g++) {
        size_t n = start[g + 1] - start[g];
        const size_t *m = order + start[g];
        /* A family needs at least two distinct values of the parameter. */
        const char *v0 = vals[m[0]];
        int distinct = 0;
        for (size_t i = 1; i < n && !distinct; i++)
            distinct = strcmp(vals[m[i]], v0) != 0;
        if (!distinct)
            continue;
        size_t *members = rt_xmalloc(n * sizeof *members);
        memcpy(members, m, n * sizeof *members);
        sort_vals = vals;
        qsort(members, n, sizeof *members, cmp_by_param);
        add_family(a, cap, param, signature(&a->configs[m[0]], param, o), members, n);
    }
    free(group);
    free(start);
    free(order);
    free(fill);
}

/* Whether config c's tag keys are those of config p, in the same order. */
static bool same_keys(const rt_analysis *a, size_t c, size_t p)
{
    const rt_tags *x = &a->configs[c].tags, *y = &a->configs[p].tags;
    if (x->n != y->n)
        return false;
    for (size_t i = 0; i < x->n; i++)
        if (x->v[i].key != y->v[i].key && strcmp(x->v[i].key, y->v[i].key) != 0)
            return false;
    return true;
}

void rt_analysis_build_families(rt_analysis *a, const rt_group_opts *o)
{
    /* Candidate parameters: the tags configs carry, in first-seen order (a config with the keys
     * of the one before it brings none). */
    rt_tags params = {0};
    for (size_t c = 0; c < a->n_configs; c++) {
        if (c && same_keys(a, c, c - 1))
            continue;
        for (size_t i = 0; i < a->configs[c].tags.n; i++)
            if (!rt_tags_get(&params, a->configs[c].tags.v[i].key))
                rt_tags_set(&params, a->configs[c].tags.v[i].key, "");
    }
    size_t cap = 0, nc = a->n_configs;
    /* Each config's value of the parameter, looked up once per parameter. */
    const char **vals = rt_xmalloc((nc ? nc : 1) * sizeof *vals);
    for (size_t p = 0; p < params.n; p++) {
        const char *param = params.v[p].key;
        if (o && o->n_params && !rt_tagset_in_list(o->params, o->n_params, param))
            continue;
        if (o && rt_tagset_in_list(o->ignore, o->n_ignore, param))
            continue;
        int ok = 1;
        size_t at = 0; /* where the key sat in the config before: most configs share the order */
        for (size_t c = 0; c < nc && ok; c++) {
            const rt_tags *t = &a->configs[c].tags;
            const char *v;
            if (at < t->n && strcmp(t->v[at].key, param) == 0) {
                v = t->v[at].value;
            } else {
                v = NULL;
                for (size_t i = 0; i < t->n; i++)
                    if (strcmp(t->v[i].key, param) == 0) {
                        v = t->v[i].value;
                        at = i;
                        break;
                    }
            }
            vals[c] = v;
            if (v && !numeric_like(v) && !(o && o->n_params))
                ok = 0;
        }
        if (ok)
            families_of(a, param, vals, o, &cap);
    }
    free(vals);
    rt_tags_release(&params);
}
