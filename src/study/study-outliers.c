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
    static const char *const skip[] = {"implementation", "precision", NULL};
    return rt_tags_text(t, skip);
}

rt_noise rt_study_config_noise(const rt_analysis *a, const rt_config *c)
{
    rt_noise z = {0};
    for (size_t i = 0; i < c->n_items; i++) {
        const rt_kernel *k = a->items[c->items[i]].kernel;
        rt_noise_add(&z, k->time, &k->spread);
    }
    return z;
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

/* A list of pairs, and a set of them: those whose ratio is within the noise of both sides. */
typedef struct pairs {
    pair *v;
    size_t n, cap;
    size_t n_noise;      /* within noise: counted, not listed */
    double noise_widest; /* the widest combined spread among them */
} pairs;

static void pairs_add(pairs *ps, const rt_analysis *a, size_t slow, size_t fast, double ratio)
{
    rt_noise zs = rt_study_config_noise(a, &a->configs[slow]),
             zf = rt_study_config_noise(a, &a->configs[fast]);
    double c;
    if (rt_noise_compare(&zf, &zs, ratio, &c) == RT_RATIO_WITHIN_NOISE) {
        ps->n_noise++;
        ps->noise_widest = fmax(ps->noise_widest, c);
        return;
    }
    if (ps->n == ps->cap) {
        ps->cap = ps->cap ? 2 * ps->cap : 16;
        ps->v = rt_xrealloc(ps->v, ps->cap * sizeof *ps->v);
    }
    ps->v[ps->n++] = (pair){slow, fast, ratio};
}

static void list(rt_findings *o, const rt_analysis *a, char **shape, pairs *ps, const char *what)
{
    qsort(ps->v, ps->n, sizeof *ps->v, by_ratio);
    for (size_t i = 0; i < ps->n && i < RT_OUTLIER_ROWS; i++) {
        const pair *p = &ps->v[i];
        const rt_config *s = &a->configs[p->slow], *f = &a->configs[p->fast];
        rt_noise zs = rt_study_config_noise(a, s), zf = rt_study_config_noise(a, f);
        char note[96];
        rt_noise_note(note, sizeof note, &zf, &zs, p->ratio);
        char *ws = who(s), *wf = who(f);
        rt_findings_item(o, "%s: %s takes x%.*f the time of %s (%s; %s)", shape[p->slow], ws,
                         p->ratio < 10 ? 2 : 0, p->ratio, wf, what, note);
        free(ws);
        free(wf);
    }
    if (ps->n > RT_OUTLIER_ROWS)
        rt_findings_item(o, "and %zu more", ps->n - RT_OUTLIER_ROWS);
}

/* Pairs left out as noise, said once. */
static void noise_note(rt_findings *o, const pairs *ps, const char *one, const char *many)
{
    if (ps->n_noise)
        rt_findings_item(o,
                         "Not listed, within noise (IQR up to \u00b1%.0f%% from the two sides' "
                         "per-invocation times): %zu %s.",
                         ps->noise_widest * 100, ps->n_noise, ps->n_noise == 1 ? one : many);
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
    pairs out = {0}, narrow = {0};
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
                if (wx && wy && wx < wy && x->sum.time > y->sum.time)
                    pairs_add(&narrow, a, d, e, x->sum.time / y->sum.time);
            }
        }
        double r = a->configs[fast].sum.time > 0
                       ? a->configs[slow].sum.time / a->configs[fast].sum.time
                       : NAN;
        if (members > 1 && r > RT_OUTLIER_RATIO)
            pairs_add(&out, a, slow, fast, r);
    }
    rt_findings_list(o);
    if (out.n)
        list(o, a, shape, &out, "slowest against fastest at this shape");
    else
        rt_findings_item(o,
                         "No shape has one implementation or precision more than x%.0f slower "
                         "than another%s.",
                         RT_OUTLIER_RATIO, out.n_noise ? " beyond noise" : "");
    noise_note(o, &out, "shape whose slowest config is that much slower than its fastest",
               "shapes whose slowest config is that much slower than their fastest");
    if (narrow.n)
        list(o, a, shape, &narrow,
             "a narrower precision slower than a wider one: emulated, or converted on the way");
    else
        rt_findings_item(o,
                         "No narrower precision is slower than a wider one of the same "
                         "implementation at the same shape%s.",
                         narrow.n_noise ? " beyond noise" : "");
    noise_note(o, &narrow, "narrower precision slower than a wider one",
               "narrower precisions slower than a wider one");
    for (size_t c = 0; c < nc; c++)
        free(shape[c]);
    free(shape);
    free(done);
    free(out.v);
    free(narrow.v);
}
