/* An analysis: kernels of several profiles with verdicts, grouped into configs and families. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* " and 3 more kernels" in a static buffer (one use per expression). */
static const char *more_kernels(double more)
{
    static char buf[64];
    snprintf(buf, sizeof buf, " and %.0f more kernel%s", more, more > 1 ? "s" : "");
    return buf;
}

/* Main memory is HBM on GPUs and DRAM on CPUs: either name finds the other (as in the model). */
static int level_known(const rt_machine *m, const char *name)
{
    if (rt_machine_level_index(m, name) >= 0)
        return 1;
    if (strcasecmp(name, "HBM") == 0)
        return rt_machine_level_index(m, "DRAM") >= 0;
    if (strcasecmp(name, "DRAM") == 0)
        return rt_machine_level_index(m, "HBM") >= 0;
    return 0;
}

static int in_list(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], s) == 0)
            return 1;
    return 0;
}

/* Compare strings with digit runs as numbers, so "3x3x64x64" < "3x3x64x128" and "9" < "16". */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
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

/* Text that identifies a tag set: "k=v k=v" in the given order. */
static char *tags_label(const rt_tags *t)
{
    size_t len = 1;
    for (size_t i = 0; i < t->n; i++)
        len += strlen(t->v[i].key) + strlen(t->v[i].value) + 2;
    char *s = rt_xmalloc(len);
    s[0] = '\0';
    for (size_t i = 0; i < t->n; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, t->v[i].key);
        strcat(s, "=");
        strcat(s, t->v[i].value);
    }
    return s;
}

/* Count kernels that name a unit or level the machine lacks; warn once per name. */
static void note_unknown(rt_values *seen, rt_tags *first, const char *name, const char *kernel)
{
    if (!rt_values_has(seen, name))
        rt_tags_set(first, name, kernel);
    rt_values_add(seen, name, 1);
}

static void warn_unknown(rt_analysis *a, const rt_values *seen, const rt_tags *first,
                         const char *what, const char *consequence)
{
    for (size_t i = 0; i < seen->n; i++) {
        double n = seen->v[i].value;
        rt_warnings_add(&a->warnings, "kernel '%s'%s: %s '%s' is not one of machine '%s': %s",
                        rt_tags_get(first, seen->v[i].key), n > 1 ? more_kernels(n - 1) : "", what,
                        seen->v[i].key, a->machine->name, consequence);
    }
}

static void build_items(rt_analysis *a, rt_profile *const *profiles, size_t n_profiles)
{
    rt_values bad_units = {0}, bad_levels = {0};
    rt_tags first_unit = {0}, first_level = {0};
    size_t total = 0;
    for (size_t p = 0; p < n_profiles; p++)
        total += profiles[p]->n_kernels;
    a->items = rt_xcalloc(total ? total : 1, sizeof *a->items);
    for (size_t p = 0; p < n_profiles; p++) {
        for (size_t k = 0; k < profiles[p]->n_kernels; k++) {
            rt_item *it = &a->items[a->n_items++];
            it->profile = profiles[p];
            it->kernel = &profiles[p]->kernels[k];
            it->profile_index = p;
            rt_tags_copy(&it->tags, &profiles[p]->tags);
            rt_tags_copy(&it->tags, &it->kernel->tags);
            for (size_t i = 0; i < it->kernel->flops.n; i++)
                if (it->kernel->flops.v[i].value > 0 &&
                    rt_machine_unit_index(a->machine, it->kernel->flops.v[i].key) < 0)
                    note_unknown(&bad_units, &first_unit, it->kernel->flops.v[i].key,
                                 it->kernel->name);
            for (size_t i = 0; i < it->kernel->bytes.n; i++)
                if (!level_known(a->machine, it->kernel->bytes.v[i].key))
                    note_unknown(&bad_levels, &first_level, it->kernel->bytes.v[i].key,
                                 it->kernel->name);
            char *what = rt_asprintf("kernel '%s'", it->kernel->name);
            rt_verdict_compute(a->machine, a->mode, it->kernel, what, &it->v, &a->warnings);
            free(what);
            a->total_time += it->kernel->time;
            a->total_W += it->v.W;
            a->total_n += it->kernel->invocations;
        }
    }
    char *cons = rt_asprintf("its FLOPs count at the reference peak (%s) in hier mode",
                             a->machine->ref_unit);
    warn_unknown(a, &bad_units, &first_unit, "compute unit", cons);
    free(cons);
    warn_unknown(a, &bad_levels, &first_level, "memory level", "its bytes are ignored");
    rt_values_release(&bad_units);
    rt_values_release(&bad_levels);
    rt_tags_release(&first_unit);
    rt_tags_release(&first_level);
}

static void build_configs(rt_analysis *a, const rt_group_opts *o)
{
    char **keys = rt_xcalloc(a->n_items ? a->n_items : 1, sizeof *keys);
    a->configs = rt_xcalloc(a->n_items ? a->n_items : 1, sizeof *a->configs);
    for (size_t i = 0; i < a->n_items; i++) {
        rt_item *it = &a->items[i];
        rt_tags g = {0};
        if (o && o->n_keys) {
            for (size_t k = 0; k < o->n_keys; k++) {
                const char *v = rt_tags_get(&it->tags, o->keys[k]);
                if (v)
                    rt_tags_set(&g, o->keys[k], v);
            }
        } else {
            rt_tags_copy(&g, &it->tags);
        }
        char *label = g.n ? tags_label(&g)
                          : rt_asprintf("profile %zu%s%s", it->profile_index + 1,
                                        it->profile->tool ? " " : "",
                                        it->profile->tool ? it->profile->tool : "");
        /* Untagged kernels of different profiles stay apart. */
        char *key = rt_asprintf("%zu\x1f%s", g.n ? (size_t)0 : it->profile_index, label);
        size_t c = 0;
        while (c < a->n_configs && strcmp(keys[c], key) != 0)
            c++;
        if (c == a->n_configs) {
            rt_config *cf = &a->configs[a->n_configs];
            keys[a->n_configs++] = key;
            cf->label = label;
            cf->tags = g;
            rt_kernel_init(&cf->sum, label);
            cf->items = rt_xcalloc(a->n_items, sizeof *cf->items);
        } else {
            free(key);
            free(label);
            rt_tags_release(&g);
        }
        rt_config *cf = &a->configs[c];
        cf->items[cf->n_items++] = i;
        rt_kernel_accumulate(&cf->sum, it->kernel);
        it->config = c;
    }
    for (size_t c = 0; c < a->n_configs; c++) {
        free(keys[c]);
        char *what = rt_asprintf("config '%s'", a->configs[c].label);
        /* Per-kernel warnings already name the causes; config warnings would repeat them. */
        rt_verdict_compute(a->machine, a->mode, &a->configs[c].sum, what, &a->configs[c].v, NULL);
        free(what);
    }
    free(keys);
}

/* A value can be a family parameter when it starts like a number ("16", "3x3x64x64"). */
static int numeric_like(const char *s)
{
    return s && (isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1])) ||
                 (s[0] == '.' && isdigit((unsigned char)s[1])));
}

/* The configs' tags other than param and the ignored ones, as one comparable string. */
static char *signature(const rt_config *c, const char *param, const rt_group_opts *o)
{
    size_t len = 1;
    for (size_t i = 0; i < c->tags.n; i++)
        len += strlen(c->tags.v[i].key) + strlen(c->tags.v[i].value) + 2;
    char *s = rt_xmalloc(len);
    s[0] = '\0';
    for (size_t i = 0; i < c->tags.n; i++) {
        const char *k = c->tags.v[i].key;
        if (strcmp(k, param) == 0 || (o && in_list(o->ignore, o->n_ignore, k)))
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

static const char *sort_param;
static const rt_analysis *sort_a;
static int cmp_by_param(const void *x, const void *y)
{
    const char *a = rt_tags_get(&sort_a->configs[*(const size_t *)x].tags, sort_param);
    const char *b = rt_tags_get(&sort_a->configs[*(const size_t *)y].tags, sort_param);
    return natural_cmp(a, b);
}

static void build_families(rt_analysis *a, const rt_group_opts *o)
{
    /* Candidate parameters: the tags configs carry, in first-seen order. */
    rt_tags params = {0};
    for (size_t c = 0; c < a->n_configs; c++)
        for (size_t i = 0; i < a->configs[c].tags.n; i++)
            rt_tags_set(&params, a->configs[c].tags.v[i].key, "");
    for (size_t p = 0; p < params.n; p++) {
        const char *param = params.v[p].key;
        if (o && o->n_params && !in_list(o->params, o->n_params, param))
            continue;
        if (o && in_list(o->ignore, o->n_ignore, param))
            continue;
        int ok = 1;
        for (size_t c = 0; c < a->n_configs && ok; c++) {
            const char *v = rt_tags_get(&a->configs[c].tags, param);
            if (v && !numeric_like(v) && !(o && o->n_params))
                ok = 0;
        }
        if (!ok)
            continue;
        char **sig = rt_xcalloc(a->n_configs, sizeof *sig);
        int *done = rt_xcalloc(a->n_configs, sizeof *done);
        for (size_t c = 0; c < a->n_configs; c++)
            if (rt_tags_get(&a->configs[c].tags, param))
                sig[c] = signature(&a->configs[c], param, o);
        for (size_t c = 0; c < a->n_configs; c++) {
            if (!sig[c] || done[c])
                continue;
            size_t *members = rt_xcalloc(a->n_configs, sizeof *members);
            size_t n = 0;
            for (size_t d = c; d < a->n_configs; d++)
                if (sig[d] && !done[d] && strcmp(sig[c], sig[d]) == 0) {
                    members[n++] = d;
                    done[d] = 1;
                }
            /* A family needs at least two distinct values of the parameter. */
            int distinct = 0;
            for (size_t i = 1; i < n; i++)
                if (strcmp(rt_tags_get(&a->configs[members[i]].tags, param),
                           rt_tags_get(&a->configs[members[0]].tags, param)) != 0)
                    distinct = 1;
            if (!distinct) {
                free(members);
                continue;
            }
            sort_param = param;
            sort_a = a;
            qsort(members, n, sizeof *members, cmp_by_param);
            a->families = rt_xrealloc(a->families, (a->n_families + 1) * sizeof *a->families);
            rt_family *f = &a->families[a->n_families++];
            f->param = rt_strdup(param);
            f->label = rt_strdup(sig[c]);
            f->configs = members;
            f->n = n;
        }
        for (size_t c = 0; c < a->n_configs; c++)
            free(sig[c]);
        free(sig);
        free(done);
    }
    rt_tags_release(&params);
}

rt_analysis *rt_analysis_new(const rt_machine *m, rt_mode mode, rt_profile *const *profiles,
                             size_t n_profiles, const rt_group_opts *opts, rt_error *err)
{
    if (rt_machine_check(m, err) != 0)
        return NULL;
    rt_analysis *a = rt_xcalloc(1, sizeof *a);
    a->machine = m;
    a->mode = mode;
    build_items(a, profiles, n_profiles);
    build_configs(a, opts);
    build_families(a, opts);
    a->overhead_ceiling = rt_overhead_ceiling(a->total_W, a->total_n, m->tau);
    return a;
}

void rt_analysis_free(rt_analysis *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n_items; i++) {
        rt_tags_release(&a->items[i].tags);
        rt_verdict_release(&a->items[i].v);
    }
    for (size_t c = 0; c < a->n_configs; c++) {
        rt_config *cf = &a->configs[c];
        free(cf->label);
        rt_tags_release(&cf->tags);
        rt_kernel_release(&cf->sum);
        free(cf->items);
        rt_verdict_release(&cf->v);
    }
    for (size_t f = 0; f < a->n_families; f++) {
        free(a->families[f].param);
        free(a->families[f].label);
        free(a->families[f].configs);
    }
    free(a->items);
    free(a->configs);
    free(a->families);
    rt_warnings_release(&a->warnings);
    free(a);
}

static const double *sort_times;
static int cmp_time_desc(const void *x, const void *y)
{
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    if (sort_times[i] != sort_times[j])
        return sort_times[i] > sort_times[j] ? -1 : 1;
    return i < j ? -1 : (i > j);
}

static size_t *order_by(const double *t, size_t n)
{
    size_t *idx = rt_xcalloc(n ? n : 1, sizeof *idx);
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    sort_times = t;
    qsort(idx, n, sizeof *idx, cmp_time_desc);
    return idx;
}

size_t *rt_analysis_items_by_time(const rt_analysis *a)
{
    double *t = rt_xcalloc(a->n_items ? a->n_items : 1, sizeof *t);
    for (size_t i = 0; i < a->n_items; i++)
        t[i] = a->items[i].kernel->time;
    size_t *idx = order_by(t, a->n_items);
    free(t);
    return idx;
}

size_t *rt_analysis_configs_by_time(const rt_analysis *a)
{
    double *t = rt_xcalloc(a->n_configs ? a->n_configs : 1, sizeof *t);
    for (size_t i = 0; i < a->n_configs; i++)
        t[i] = a->configs[i].sum.time;
    size_t *idx = order_by(t, a->n_configs);
    free(t);
    return idx;
}
