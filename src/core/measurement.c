/* How a machine was measured: typed records, their appends and their release. */
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/measurement.h"
#include "rooftime/util/strings.h"

rt_measurement *rt_measurement_new(void)
{
    return rt_xcalloc(1, sizeof(rt_measurement));
}

void rt_measurement_free(rt_measurement *x)
{
    if (!x)
        return;
    free(x->cpu_vendor);
    free(x->cpu_model);
    free(x->isa_used);
    free(x->max_isa);
    free(x->thread_counts);
    free(x->clock_method);
    for (size_t i = 0; i < x->n_peaks; i++) {
        free(x->peaks[i].unit);
        free(x->peaks[i].isa);
        free(x->peaks[i].instruction);
    }
    free(x->peaks);
    free(x->caches);
    free(x->cache_source);
    free(x->bw_isa);
    free(x->bw_method);
    for (size_t i = 0; i < x->n_curves; i++) {
        free(x->curves[i].kernel);
        free(x->curves[i].isa);
        free(x->curves[i].bytes);
        free(x->curves[i].bw);
        free(x->curves[i].ceil);
    }
    free(x->curves);
    for (size_t i = 0; i < x->n_plateaus; i++) {
        free(x->plateaus[i].kernel);
        free(x->plateaus[i].name);
        free(x->plateaus[i].note);
    }
    free(x->plateaus);
    for (size_t i = 0; i < x->n_skipped; i++)
        free(x->skipped[i]);
    free(x->skipped);
    free(x);
}

/* Grow an array by one zeroed element of size sz; returns the new element. */
static void *append(void **arr, size_t *n, size_t sz)
{
    *arr = rt_xrealloc(*arr, (*n + 1) * sz);
    void *e = (char *)*arr + *n * sz;
    memset(e, 0, sz);
    (*n)++;
    return e;
}

rt_peak_trial *rt_measurement_add_peak(rt_measurement *x, const char *unit, const char *isa,
                                       const char *instruction, int threads)
{
    rt_peak_trial *p = append((void **)&x->peaks, &x->n_peaks, sizeof *p);
    p->unit = rt_strdup(unit);
    p->isa = rt_strdup(isa);
    p->instruction = rt_strdup(instruction);
    p->threads = threads;
    return p;
}

rt_bw_curve *rt_measurement_add_curve(rt_measurement *x, const char *kernel, const char *isa,
                                      int threads, size_t n)
{
    rt_bw_curve *c = append((void **)&x->curves, &x->n_curves, sizeof *c);
    c->kernel = rt_strdup(kernel);
    c->isa = rt_strdup(isa);
    c->threads = threads;
    c->n = n;
    c->bytes = rt_xcalloc(n ? n : 1, sizeof *c->bytes);
    c->bw = rt_xcalloc(n ? n : 1, sizeof *c->bw);
    c->ceil = rt_xcalloc(n ? n : 1, sizeof *c->ceil);
    return c;
}

rt_bw_plateau *rt_measurement_add_plateau(rt_measurement *x, const char *kernel, int threads,
                                          const char *name, const char *note)
{
    rt_bw_plateau *p = append((void **)&x->plateaus, &x->n_plateaus, sizeof *p);
    p->kernel = rt_strdup(kernel);
    p->threads = threads;
    p->name = rt_strdup(name);
    p->note = note ? rt_strdup(note) : NULL;
    return p;
}

void rt_measurement_add_cache(rt_measurement *x, int level, double size_bytes, int shared_by)
{
    rt_cache_level *c = append((void **)&x->caches, &x->n_caches, sizeof *c);
    c->level = level;
    c->size_bytes = size_bytes;
    c->shared_by = shared_by;
}

void rt_measurement_add_skipped(rt_measurement *x, const char *why)
{
    x->skipped = rt_xrealloc(x->skipped, (x->n_skipped + 1) * sizeof *x->skipped);
    x->skipped[x->n_skipped++] = rt_strdup(why);
}
