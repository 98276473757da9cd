/* Outliers at the same shape: one implementation or precision far slower than another running the
 * same operation, pass and parameters, and narrower precisions slower than wider ones. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study-outliers.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/util/strings.h"

static const char *tag(const rt_tags *t, const char *k)
{
    const char *v = rt_tags_get(t, k);
    return v ? v : "";
}

/* Bits of a precision's number format; 0 when unknown. */
static int width(const char *p)
{
    static const struct {
        const char *name;
        int bits;
    } w[] = {{"fp64", 64}, {"fp32", 32}, {"tf32", 19}, {"bf16", 16}, {"fp16", 16}, {"int8", 8}};
    for (size_t i = 0; i < sizeof w / sizeof *w; i++)
        if (strcmp(p, w[i].name) == 0)
            return w[i].bits;
    return 0;
}

/* The shape of a config: its tags other than implementation and precision. */
static char *shape_of(const rt_tags *t)
{
    size_t len = 1;
    for (size_t i = 0; i < t->n; i++)
        len += strlen(t->v[i].key) + strlen(t->v[i].value) + 2;
    char *s = rt_xmalloc(len);
    s[0] = '\0';
    for (size_t i = 0; i < t->n; i++) {
        if (strcmp(t->v[i].key, "implementation") == 0 || strcmp(t->v[i].key, "precision") == 0)
            continue;
        if (*s)
            strcat(s, " ");
        strcat(s, t->v[i].key);
        strcat(s, "=");
        strcat(s, t->v[i].value);
    }
    return s;
}

typedef struct pair {
    size_t slow, fast; /* config indices */
    double ratio;
} pair;

static int by_ratio(const void *x, const void *y)
{
    double a = ((const pair *)x)->ratio, b = ((const pair *)y)->ratio;
    return a > b ? -1 : a < b;
}

static char *who(const rt_config *c)
{
    return rt_asprintf("%s %s", tag(&c->tags, "implementation"), tag(&c->tags, "precision"));
}

static void list(rt_findings *o, const rt_analysis *a, char **shape, pair *p, size_t n,
                 const char *what)
{
    qsort(p, n, sizeof *p, by_ratio);
    for (size_t i = 0; i < n && i < RT_OUTLIER_ROWS; i++) {
        const rt_config *s = &a->configs[p[i].slow], *f = &a->configs[p[i].fast];
        char *ws = who(s), *wf = who(f);
        rt_findings_item(o, "%s: %s takes x%.*f the time of %s (%s)", shape[p[i].slow], ws,
                         p[i].ratio < 10 ? 2 : 0, p[i].ratio, wf, what);
        free(ws);
        free(wf);
    }
    if (n > RT_OUTLIER_ROWS)
        rt_findings_item(o, "and %zu more", n - RT_OUTLIER_ROWS);
}

void rt_study_section_outliers(rt_findings *o, const rt_analysis *a)
{
    rt_findings_section_add(o, "Outliers at the same shape");
    size_t nc = a->n_configs;
    char **shape = rt_xcalloc(nc ? nc : 1, sizeof *shape);
    for (size_t c = 0; c < nc; c++)
        shape[c] = shape_of(&a->configs[c].tags);
    /* The slowest against the fastest of each shape, and narrow against wide precisions. Shapes
     * hold a handful of configs: the pairs are few. */
    pair *out = NULL, *narrow = NULL;
    size_t n_out = 0, n_narrow = 0, cap_out = 0, cap_narrow = 0;
    bool *done = rt_xcalloc(nc ? nc : 1, sizeof *done);
    for (size_t c = 0; c < nc; c++) {
        if (done[c])
            continue;
        size_t slow = c, fast = c, members = 0;
        for (size_t d = c; d < nc; d++) {
            if (strcmp(shape[d], shape[c]) != 0)
                continue;
            done[d] = true;
            members++;
            const rt_config *x = &a->configs[d];
            if (!(x->sum.time > 0))
                continue;
            if (x->sum.time > a->configs[slow].sum.time)
                slow = d;
            if (x->sum.time < a->configs[fast].sum.time || !(a->configs[fast].sum.time > 0))
                fast = d;
            /* A narrower precision of the same implementation slower than a wider one. */
            for (size_t e = c; e < nc; e++) {
                const rt_config *y = &a->configs[e];
                if (e == d || strcmp(shape[e], shape[c]) != 0 ||
                    strcmp(tag(&x->tags, "implementation"), tag(&y->tags, "implementation")) != 0)
                    continue;
                int wx = width(tag(&x->tags, "precision")), wy = width(tag(&y->tags, "precision"));
                if (wx && wy && wx < wy && x->sum.time > y->sum.time) {
                    if (n_narrow == cap_narrow) {
                        cap_narrow = cap_narrow ? 2 * cap_narrow : 16;
                        narrow = rt_xrealloc(narrow, cap_narrow * sizeof *narrow);
                    }
                    narrow[n_narrow++] = (pair){d, e, x->sum.time / y->sum.time};
                }
            }
        }
        double r = a->configs[fast].sum.time > 0
                       ? a->configs[slow].sum.time / a->configs[fast].sum.time
                       : NAN;
        if (members > 1 && r > RT_OUTLIER_RATIO) {
            if (n_out == cap_out) {
                cap_out = cap_out ? 2 * cap_out : 16;
                out = rt_xrealloc(out, cap_out * sizeof *out);
            }
            out[n_out++] = (pair){slow, fast, r};
        }
    }
    rt_findings_list(o);
    if (n_out)
        list(o, a, shape, out, n_out, "slowest against fastest at this shape");
    else
        rt_findings_item(o,
                         "No shape has one implementation or precision more than x%.0f slower "
                         "than another.",
                         RT_OUTLIER_RATIO);
    if (n_narrow)
        list(o, a, shape, narrow, n_narrow,
             "a narrower precision slower than a wider one: emulated, or converted on the way");
    else
        rt_findings_item(o, "No narrower precision is slower than a wider one of the same "
                            "implementation at the same shape.");
    for (size_t c = 0; c < nc; c++)
        free(shape[c]);
    free(shape);
    free(done);
    free(out);
    free(narrow);
}
