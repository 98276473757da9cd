/* The Nsight Compute metric mapping: loads data/ncu/metrics.json, compiles and evaluates its
 * formulas. */
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/formats/gpu-arch-json.h"
#include "rooftime/util/data-file.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "rooftime/util/formula.h"
#include "rooftime/util/strings.h"

#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- formulas: util/formula.c over three banks: metric slots, constants, launch time ---- */

enum { BANK_METRIC, BANK_CONST, BANK_TIME };

typedef struct fctx {
    rt_ncu_map *m;
    rt_ncu_formula *f;
} fctx;

static int f_slot(rt_ncu_map *m, const char *name, size_t n)
{
    for (size_t i = 0; i < m->n_metric; i++)
        if (strlen(m->metric[i]) == n && memcmp(m->metric[i], name, n) == 0)
            return (int)i;
    if (m->n_metric == NCU_MAX_METRICS)
        return -1;
    m->metric[m->n_metric] = rt_strndup(name, n);
    return (int)m->n_metric++;
}

/* launch_time, a constant of the mapping, or else a metric (a new slot). */
static int f_resolve(void *ctx, const char *b, size_t n, int *bank, int *index, const char **why)
{
    fctx *c = ctx;
    if (n == 11 && memcmp(b, "launch_time", 11) == 0) {
        c->f->uses_time = 1;
        *bank = BANK_TIME;
        *index = 0;
        return 0;
    }
    for (size_t i = 0; i < c->m->n_const; i++)
        if (strlen(c->m->const_name[i]) == n && memcmp(c->m->const_name[i], b, n) == 0) {
            *bank = BANK_CONST;
            *index = (int)i;
            if (i < 64)
                c->f->consts |= (uint64_t)1 << i;
            return 0;
        }
    int slot = f_slot(c->m, b, n);
    if (slot < 0) {
        *why = "more than 64 distinct metrics in the mapping";
        return -1;
    }
    c->f->metrics |= (uint64_t)1 << slot;
    *bank = BANK_METRIC;
    *index = slot;
    return 0;
}

double rt_ncu_formula_eval(const rt_ncu_formula *f, const double *metric, const double *constants,
                           double launch_time)
{
    const double *bank[] = {metric, constants, &launch_time};
    return rt_formula_eval(&f->e, bank);
}

/* ---- architectures ---- */

int rt_ncu_parse_arch(const char *s)
{
    if (!s)
        return -1;
    if (strncmp(s, "sm_", 3) == 0) {
        /* "sm_" and the major and minor digits: major 1 to 99 as for "7.0" ("sm_9", a typo of
         * sm_90, is no architecture: it was read as one below sm_70 and got its constants) */
        size_t nd = strspn(s + 3, "0123456789");
        if (nd < 2 || nd > 3 || s[3 + nd] != '\0' || s[3] == '0')
            return -1;
        return (int)strtol(s + 3, NULL, 10);
    }
    /* "7.0", "8.9": major.minor */
    if (isdigit((unsigned char)s[0])) {
        char *end;
        long major = strtol(s, &end, 10); /* LONG_MAX on overflow: refused below */
        if (*end == '.' && isdigit((unsigned char)end[1]) && end[2] == '\0' && major > 0 &&
            major < 100)
            return (int)(major * 10 + (end[1] - '0'));
    }
    return -1;
}

const double *rt_ncu_map_constants(const rt_ncu_map *m, int sm)
{
    if (m->n_arch == 0)
        return NULL;
    const rt_ncu_arch *best = &m->arch[0];
    for (size_t i = 0; i < m->n_arch; i++)
        if (m->arch[i].sm <= sm)
            best = &m->arch[i];
    return best->value;
}

int rt_ncu_map_slot(const rt_ncu_map *m, const char *name)
{
    for (size_t i = 0; i < m->n_metric; i++)
        if (strcmp(m->metric[i], name) == 0)
            return (int)i;
    return -1;
}

int rt_ncu_quantity_applies(const rt_ncu_map *m, const rt_ncu_quantity *q, int sm, int lift_tf)
{
    if (lift_tf && m->tensor_factor_const >= 0 && m->tensor_factor_const < 64 &&
        ((q->f.consts >> m->tensor_factor_const) & 1))
        return 1;
    return sm >= q->from_sm && sm <= q->to_sm;
}

size_t rt_ncu_map_choose(const rt_ncu_map *m, uint64_t avail, const int *sms, size_t n_sms,
                         int lift_tf, int *chosen, int *lacking, size_t *n_lacking)
{
    size_t n = 0;
    *n_lacking = 0;
    for (size_t i = 0; i < m->n_q; i++) {
        const char *qn = m->q[i].quantity;
        int first = 1; /* the quantity's first entry: each quantity is decided once */
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(m->q[j].quantity, qn) != 0;
        if (!first)
            continue;
        int lack = -1;
        for (size_t a = 0; a < n_sms; a++) {
            int in_scope = -1, pick = -1;
            for (size_t j = i; j < m->n_q && pick < 0; j++) {
                const rt_ncu_quantity *q = &m->q[j];
                if (strcmp(q->quantity, qn) != 0 || !rt_ncu_quantity_applies(m, q, sms[a], lift_tf))
                    continue;
                if (in_scope < 0)
                    in_scope = (int)j;
                if ((q->f.metrics & avail) == q->f.metrics)
                    pick = (int)j;
            }
            if (pick >= 0) {
                int have = 0;
                for (size_t c = 0; c < n; c++)
                    have |= chosen[c] == pick;
                if (!have)
                    chosen[n++] = pick;
            } else if (in_scope >= 0 && lack < 0) {
                lack = in_scope;
            }
        }
        if (lack >= 0)
            lacking[(*n_lacking)++] = lack;
    }
    /* Mapping order: where two chosen entries of a quantity apply, the earlier one counts. */
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0 && chosen[b - 1] > chosen[b]; b--) {
            int t = chosen[b];
            chosen[b] = chosen[b - 1];
            chosen[b - 1] = t;
        }
    return n;
}

static size_t add_arch(int *out, size_t n, int sm)
{
    for (size_t i = 0; i < n; i++)
        if (out[i] == sm)
            return n;
    out[n] = sm;
    return n + 1;
}

size_t rt_ncu_map_archs(const rt_ncu_map *m, const int *extra, size_t n_extra, int *out)
{
    size_t n = 0;
    for (size_t i = 0; i < n_extra; i++)
        n = add_arch(out, n, extra[i]);
    for (size_t i = 0; i < m->n_arch; i++)
        n = add_arch(out, n, m->arch[i].sm);
    for (size_t i = 0; i < m->n_q; i++) {
        if (m->q[i].from_sm > 0)
            n = add_arch(out, n, m->q[i].from_sm);
        if (m->q[i].to_sm < INT_MAX)
            n = add_arch(out, n, m->q[i].to_sm);
    }
    return n;
}

uint64_t rt_ncu_map_applying(const rt_ncu_map *m, const int *chosen, size_t n, int sm, int lift_tf)
{
    uint64_t on = 0;
    for (size_t i = 0; i < n && i < 64; i++) {
        const rt_ncu_quantity *q = &m->q[chosen[i]];
        if (!rt_ncu_quantity_applies(m, q, sm, lift_tf))
            continue;
        int taken = 0;
        for (size_t j = 0; j < i && !taken; j++)
            taken = ((on >> j) & 1) && strcmp(m->q[chosen[j]].quantity, q->quantity) == 0;
        if (!taken)
            on |= (uint64_t)1 << i;
    }
    return on;
}

static int arch_cmp(const void *a, const void *b)
{
    return ((const rt_ncu_arch *)a)->sm - ((const rt_ncu_arch *)b)->sm;
}

/* Compile the formula of member key of o (path: o's JSON path); its errors name the field. */
static int f_member(rt_jr *r, rt_ncu_map *m, const json_t *o, const char *path, const char *key,
                    rt_ncu_formula *f)
{
    char *text = NULL;
    if (rt_jr_string(r, o, path, key, true, &text) != 0)
        return -1;
    memset(f, 0, sizeof *f);
    fctx c = {.m = m, .f = f};
    rt_error ferr;
    int rc = rt_formula_compile(&f->e, text, f_resolve, &c, &ferr);
    if (rc != 0)
        rt_jr_fail(r, path, key, "%s", ferr.msg);
    free(text);
    return rc;
}

/* "constants": {"sm_70": {"name": number, ...}, ...}: the names of all architectures, then
 * each architecture's values (NAN where it lacks one), sorted by architecture. */
static int load_constants(rt_jr *r, rt_ncu_map *m, json_t *root)
{
    json_t *consts = json_object_get(root, "constants");
    if (!consts)
        return 0;
    if (rt_jr_object(r, consts, "constants") != 0)
        return -1;
    const char *aname;
    json_t *aval;
    json_object_foreach(consts, aname, aval)
    {
        const char *cname;
        json_t *cval;
        json_object_foreach(aval, cname, cval)
        {
            size_t i;
            for (i = 0; i < m->n_const; i++)
                if (strcmp(m->const_name[i], cname) == 0)
                    break;
            if (i == m->n_const) {
                m->const_name = rt_xrealloc(m->const_name, (m->n_const + 1) * sizeof(char *));
                m->const_name[m->n_const++] = rt_strdup(cname);
            }
        }
    }
    m->arch = rt_xcalloc(json_object_size(consts) + 1, sizeof *m->arch);
    json_object_foreach(consts, aname, aval)
    {
        int sm = rt_ncu_parse_arch(aname);
        if (sm < 0) {
            rt_jr_fail(r, "constants", aname, "'%s' is not an architecture like sm_70", aname);
            return -1;
        }
        if (!json_is_object(aval)) {
            rt_jr_fail(r, "constants", aname, "not an object of constants");
            return -1;
        }
        rt_ncu_arch *a = &m->arch[m->n_arch++];
        a->sm = sm;
        a->value = rt_xcalloc(m->n_const ? m->n_const : 1, sizeof(double));
        for (size_t i = 0; i < m->n_const; i++) {
            json_t *v = json_object_get(aval, m->const_name[i]);
            if (v && !json_is_number(v)) {
                char path[256];
                snprintf(path, sizeof path, "constants.%s", aname);
                rt_jr_fail(r, path, m->const_name[i], "expected a number");
                return -1;
            }
            a->value[i] = v ? json_number_value(v) : NAN; /* NAN: none for this architecture */
        }
    }
    qsort(m->arch, m->n_arch, sizeof *m->arch, arch_cmp);
    return 0;
}

/* The constants the GPU generations give (data/gpu/architectures.json, not restated here):
 * tensor_peak, the dense FP16 Tensor Core FLOP/s of the generation's reference part, for each
 * architecture of the constants whose entry gives none (a user's mapping may). NAN where the
 * generation names no reference part. */
static int add_generation_constants(rt_ncu_map *m, rt_error *err)
{
    if (m->n_arch == 0)
        return 0;
    rt_gpu_archs archs;
    if (rt_gpu_archs_load(NULL, &archs, err) != 0)
        return -1;
    size_t c = 0;
    while (c < m->n_const && strcmp(m->const_name[c], "tensor_peak") != 0)
        c++;
    if (c == m->n_const) {
        m->const_name = rt_xrealloc(m->const_name, (m->n_const + 1) * sizeof(char *));
        m->const_name[m->n_const++] = rt_strdup("tensor_peak");
        for (size_t i = 0; i < m->n_arch; i++) {
            m->arch[i].value = rt_xrealloc(m->arch[i].value, m->n_const * sizeof(double));
            m->arch[i].value[c] = NAN;
        }
    }
    for (size_t i = 0; i < m->n_arch; i++) {
        double peak = rt_gpu_generation_peak(&archs, m->arch[i].sm, "tensor_fp16");
        if (isnan(m->arch[i].value[c]))
            m->arch[i].value[c] = peak > 0 ? peak : NAN;
    }
    rt_gpu_archs_release(&archs);
    return 0;
}

/* Whether entry qv (path "quantities[i]") belongs to the map's recipe: 1, 0 (another recipe's:
 * left out), -1 with the error when its "recipe" names none of the mapping's. */
static int in_recipe(rt_jr *r, const rt_ncu_map *m, const json_t *root, const json_t *qv,
                     const char *path)
{
    if (rt_jr_object(r, qv, path) != 0)
        return -1;
    const json_t *rv = json_object_get(qv, "recipe");
    if (!rv)
        return 1;
    const json_t *recipes = json_object_get(root, "recipes");
    if (!json_is_string(rv) || !json_is_object(recipes) ||
        !json_object_get(recipes, json_string_value(rv))) {
        rt_jr_fail(r, path, "recipe", "not one of the recipes the mapping's 'recipes' names");
        return -1;
    }
    return m->recipe && strcmp(m->recipe, json_string_value(rv)) == 0;
}

/* One entry of "quantities" (path "quantities[i]"): the quantity, its set, the architectures it
 * applies to and its formula. */
static int load_quantity(rt_jr *r, rt_ncu_map *m, const json_t *qv, const char *path)
{
    rt_ncu_quantity *q = &m->q[m->n_q++];
    q->from_sm = 0;
    q->to_sm = INT_MAX;
    if (rt_jr_string(r, qv, path, "quantity", true, &q->quantity) != 0)
        return -1;
    const char *qn = q->quantity;
    if ((strncmp(qn, "flops.", 6) != 0 && strncmp(qn, "bytes.", 6) != 0) || !qn[6]) {
        rt_jr_fail(r, path, "quantity", "'%.80s' is not flops.UNIT or bytes.LEVEL", qn);
        return -1;
    }
    if (rt_jr_string(r, qv, path, "set", false, &q->set) != 0)
        return -1;
    if (!q->set)
        q->set = rt_strdup("");
    static const char *const bound[] = {"from_arch", "to_arch"};
    for (int b = 0; b < 2; b++) {
        json_t *a = json_object_get(qv, bound[b]);
        if (!a)
            continue;
        int sm = json_is_string(a) ? rt_ncu_parse_arch(json_string_value(a)) : -1;
        if (sm < 0) {
            if (json_is_string(a))
                rt_jr_fail(r, path, bound[b], "'%.80s' is not an architecture like sm_80",
                           json_string_value(a));
            else
                rt_jr_fail(r, path, bound[b], "not an architecture like sm_80 (a string)");
            return -1;
        }
        *(b ? &q->to_sm : &q->from_sm) = sm;
    }
    if (q->from_sm > q->to_sm) {
        rt_jr_fail(r, path, "from_arch", "sm_%d is above to_arch sm_%d", q->from_sm, q->to_sm);
        return -1;
    }
    return f_member(r, m, qv, path, "formula", &q->f);
}

/* "default_arch": the architecture of launches that name none (default sm_70). */
static int load_default_arch(rt_jr *r, rt_ncu_map *m, const json_t *root)
{
    char *da = NULL;
    if (rt_jr_string(r, root, "", "default_arch", false, &da) != 0)
        return -1;
    m->default_sm = da ? rt_ncu_parse_arch(da) : 70;
    if (m->default_sm < 0)
        rt_jr_fail(r, "", "default_arch", "'%.80s' is not an architecture like sm_70", da);
    free(da);
    return m->default_sm < 0 ? -1 : 0;
}

/* "recipes" and "default_recipe": the recipe to load (recipe, else the default) into m->recipe;
 * a mapping without recipes takes none, and refuses a named one. */
static int load_recipe(rt_jr *r, rt_ncu_map *m, const json_t *root, const char *recipe)
{
    const json_t *recipes;
    if (rt_jr_member_object(r, root, "", "recipes", false, &recipes) != 0)
        return -1;
    if (!recipes) {
        if (recipe)
            rt_error_set(r->err, "%s: the mapping has no recipes (asked for '%s')", m->path,
                         recipe);
        return recipe ? -1 : 0;
    }
    char *dflt = NULL;
    if (rt_jr_string(r, root, "", "default_recipe", true, &dflt) != 0)
        return -1;
    if (!json_object_get(recipes, dflt)) {
        rt_jr_fail(r, "", "default_recipe", "'%.80s' is not one of 'recipes'", dflt);
        free(dflt);
        return -1;
    }
    if (recipe && !json_object_get(recipes, recipe)) {
        char names[256] = "";
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)recipes, k, v)
        {
            size_t l = strlen(names);
            snprintf(names + l, sizeof names - l, "%s%s", l ? ", " : "", k);
        }
        rt_error_set(r->err, "%s: no recipe '%.80s' (the mapping has %s)", m->path, recipe, names);
        free(dflt);
        return -1;
    }
    m->recipe = recipe ? rt_strdup(recipe) : dflt;
    if (recipe)
        free(dflt);
    return 0;
}

/* "time": cycles and rate, and the optional duration read when they are absent. */
static int load_time(rt_jr *r, rt_ncu_map *m, const json_t *root)
{
    const json_t *time;
    if (rt_jr_member_object(r, root, "", "time", true, &time) != 0 ||
        f_member(r, m, time, "time", "cycles", &m->cycles) != 0 ||
        f_member(r, m, time, "time", "rate", &m->rate) != 0)
        return -1;
    if (!json_object_get(time, "duration"))
        return 0;
    if (f_member(r, m, time, "time", "duration", &m->duration) != 0)
        return -1;
    if (m->duration.uses_time) {
        rt_jr_fail(r, "time", "duration", "the launch's time cannot read launch_time");
        return -1;
    }
    m->has_duration = 1;
    return 0;
}

int rt_ncu_map_load(const char *path, rt_ncu_map *m, rt_error *err)
{
    return rt_ncu_map_load_recipe(path, NULL, m, err);
}

int rt_ncu_map_load_recipe(const char *path, const char *recipe, rt_ncu_map *m, rt_error *err)
{
    memset(m, 0, sizeof *m);
    m->path = rt_strdup(path);
    m->tensor_factor_const = -1;
    /* The one loader of data files: bounded, duplicate keys refused, the schema checked. */
    rt_data_file f;
    if (rt_data_file_load(&f, path, NULL, "rooftime.ncu-metrics/1", err) != 0) {
        rt_ncu_map_release(m);
        return -1;
    }
    m->label = f.label;
    f.label = NULL;
    json_t *root = f.root;
    rt_jr r = {rt_data_file_src(&f), err};
    int rc = -1;
    /* Constants first: formulas refer to them by name. */
    if (load_constants(&r, m, root) != 0 || add_generation_constants(m, err) != 0)
        goto done;
    for (size_t i = 0; i < m->n_const; i++)
        if (strcmp(m->const_name[i], "tensor_factor") == 0)
            m->tensor_factor_const = (int)i;
    const json_t *qs;
    if (load_default_arch(&r, m, root) != 0 || load_recipe(&r, m, root, recipe) != 0 ||
        load_time(&r, m, root) != 0 || rt_jr_array(&r, root, "", "quantities", true, &qs) != 0)
        goto done;
    if (json_array_size(qs) > NCU_MAX_QUANTITIES) {
        rt_jr_fail(&r, "", "quantities", "%zu quantity entries, more than the limit of %d",
                   json_array_size(qs), NCU_MAX_QUANTITIES);
        goto done;
    }
    m->q = rt_xcalloc(json_array_size(qs) + 1, sizeof *m->q);
    for (size_t i = 0; i < json_array_size(qs); i++) {
        char where[64];
        snprintf(where, sizeof where, "quantities[%zu]", i);
        int in = in_recipe(&r, m, root, json_array_get(qs, i), where);
        if (in < 0 || (in && load_quantity(&r, m, json_array_get(qs, i), where) != 0))
            goto done;
    }
    rc = 0;
done:
    rt_data_file_release(&f);
    if (rc != 0)
        rt_ncu_map_release(m);
    return rc;
}

static void f_release(rt_ncu_formula *f)
{
    rt_formula_release(&f->e);
}

void rt_ncu_map_release(rt_ncu_map *m)
{
    if (!m)
        return;
    free(m->path);
    free(m->label);
    free(m->recipe);
    f_release(&m->duration);
    for (size_t i = 0; i < m->n_metric; i++)
        free(m->metric[i]);
    f_release(&m->cycles);
    f_release(&m->rate);
    for (size_t i = 0; i < m->n_q; i++) {
        free(m->q[i].quantity);
        free(m->q[i].set);
        f_release(&m->q[i].f);
    }
    free(m->q);
    for (size_t i = 0; i < m->n_const; i++)
        free(m->const_name[i]);
    free(m->const_name);
    for (size_t i = 0; i < m->n_arch; i++)
        free(m->arch[i].value);
    free(m->arch);
    memset(m, 0, sizeof *m);
}
