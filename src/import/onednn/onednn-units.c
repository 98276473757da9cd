/* The compute unit of a oneDNN primitive from its implementation, kind and data type: the table
 * data/onednn/units.json read and applied (include/rooftime/import/onednn-units.h). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onednn-internal.h"
#include "rooftime/import/onednn-units.h"
#include "rooftime/util/data-file.h"
#include "rooftime/util/json-read.h"
#include "rooftime/util/strings.h"

typedef struct named_list {
    char *name; /* an ISA, or a data type */
    char **v;   /* its units */
    size_t n;
} named_list;

typedef struct without_isa {
    char *impl; /* a pattern: exact, "x*", "*x" or "*" */
    int cpu;    /* 1: the CPU's ISA; 0: "none" */
    char *why;
} without_isa;

struct rt_onednn_units {
    char *label, *name; /* in a profile's notes (with its hash), in messages */
    char **matrix_kinds;
    size_t n_matrix_kinds;
    named_list *matrix, *vector, *isas;
    size_t n_matrix, n_vector, n_isas;
    char **fp_mode, **fp_dt, **fp_attrs;
    size_t n_fp, n_fp_attrs;
    without_isa *without;
    size_t n_without;
    char **cpu_text, **cpu_isa;
    size_t n_cpus;
};

static const named_list *find(const named_list *l, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; name && i < n; i++)
        if (strlen(l[i].name) == len && memcmp(l[i].name, name, len) == 0)
            return &l[i];
    return NULL;
}

static int has(char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; s && i < n; i++)
        if (strcmp(v[i], s) == 0)
            return 1;
    return 0;
}

/* An object whose members are lists of strings ({"f32": ["fp32"], ...}). */
static int lists(rt_jr *r, const json_t *root, const char *path, const char *key, named_list **out,
                 size_t *n)
{
    const json_t *o;
    if (rt_jr_member_object(r, root, path, key, true, &o) != 0)
        return -1;
    *out = rt_xcalloc(json_object_size(o) + 1, sizeof **out);
    char sub[64];
    snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", key);
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)o, name, v)
    {
        named_list *l = &(*out)[(*n)++];
        l->name = rt_strdup(name);
        if (rt_onednn_jr_strings(r, o, sub, name, true, &l->v, &l->n) != 0)
            return -1;
        if (l->n == 0) {
            rt_jr_fail(r, sub, name, "expected at least one unit");
            return -1;
        }
    }
    return 0;
}

static int load_without(rt_jr *r, const json_t *root, rt_onednn_units *u)
{
    const json_t *a;
    if (rt_jr_array(r, root, "", "without_isa", true, &a) != 0)
        return -1;
    u->without = rt_xcalloc(json_array_size(a) + 1, sizeof *u->without);
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *o = json_array_get(a, i);
        char path[48];
        snprintf(path, sizeof path, "without_isa[%zu]", i);
        without_isa *w = &u->without[u->n_without++];
        char *isa = NULL;
        int rc = rt_jr_object(r, o, path) || rt_jr_string(r, o, path, "impl", true, &w->impl) ||
                 rt_jr_string(r, o, path, "isa", true, &isa) ||
                 rt_jr_string(r, o, path, "why", true, &w->why);
        if (rc == 0 && strcmp(isa, "cpu") != 0 && strcmp(isa, "none") != 0) {
            rt_jr_fail(r, path, "isa", "expected 'cpu' or 'none', got '%s'", isa);
            rc = -1;
        }
        w->cpu = rc == 0 && strcmp(isa, "cpu") == 0;
        free(isa);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Every ISA a CPU text names, and 'none', must be a row of isas. */
static int check(rt_jr *r, const rt_onednn_units *u)
{
    if (!find(u->isas, u->n_isas, "none", 4)) {
        rt_jr_fail(r, "", "isas", "needs the row 'none' (code compiled for no particular ISA)");
        return -1;
    }
    for (size_t i = 0; i < u->n_cpus; i++)
        if (!find(u->isas, u->n_isas, u->cpu_isa[i], strlen(u->cpu_isa[i]))) {
            rt_jr_fail(r, "cpus", u->cpu_text[i], "'%s' is not one of isas", u->cpu_isa[i]);
            return -1;
        }
    return 0;
}

rt_onednn_units *rt_onednn_units_load(const char *path, rt_error *err)
{
    rt_data_file f;
    if (rt_data_file_load(&f, path, "onednn/units.json", "rooftime.onednn-units/1", err) != 0)
        return NULL;
    rt_onednn_units *u = rt_xcalloc(1, sizeof *u);
    u->label = rt_strdup(f.label);
    u->name = rt_onednn_data_name(f.label);
    rt_jr r = {rt_data_file_src(&f), err};
    const json_t *compute;
    int rc = rt_onednn_jr_strings(&r, f.root, "", "matrix_kinds", true, &u->matrix_kinds,
                                  &u->n_matrix_kinds) ||
             rt_jr_member_object(&r, f.root, "", "compute", true, &compute) ||
             lists(&r, compute, "compute", "matrix", &u->matrix, &u->n_matrix) ||
             lists(&r, compute, "compute", "vector", &u->vector, &u->n_vector) ||
             lists(&r, f.root, "", "isas", &u->isas, &u->n_isas) ||
             rt_onednn_jr_pairs(&r, f.root, "fpmath", &u->fp_mode, &u->fp_dt, &u->n_fp) ||
             rt_onednn_jr_strings(&r, f.root, "", "fpmath_attributes", true, &u->fp_attrs,
                                  &u->n_fp_attrs) ||
             load_without(&r, f.root, u) ||
             rt_onednn_jr_pairs(&r, f.root, "cpus", &u->cpu_text, &u->cpu_isa, &u->n_cpus) ||
             check(&r, u);
    rt_data_file_release(&f);
    if (rc != 0) {
        rt_onednn_units_free(u);
        return NULL;
    }
    return u;
}

static void free_lists(named_list *l, size_t n)
{
    for (size_t i = 0; l && i < n; i++) {
        free(l[i].name);
        rt_onednn_strings_free(l[i].v, l[i].n);
    }
    free(l);
}

void rt_onednn_units_free(rt_onednn_units *u)
{
    if (!u)
        return;
    free(u->label);
    free(u->name);
    rt_onednn_strings_free(u->matrix_kinds, u->n_matrix_kinds);
    free_lists(u->matrix, u->n_matrix);
    free_lists(u->vector, u->n_vector);
    free_lists(u->isas, u->n_isas);
    rt_onednn_strings_free(u->fp_mode, u->n_fp);
    rt_onednn_strings_free(u->fp_dt, u->n_fp);
    rt_onednn_strings_free(u->fp_attrs, u->n_fp_attrs);
    for (size_t i = 0; u->without && i < u->n_without; i++) {
        free(u->without[i].impl);
        free(u->without[i].why);
    }
    free(u->without);
    rt_onednn_strings_free(u->cpu_text, u->n_cpus);
    rt_onednn_strings_free(u->cpu_isa, u->n_cpus);
    free(u);
}

const char *rt_onednn_units_label(const rt_onednn_units *u)
{
    return u->label;
}

const char *rt_onednn_units_name(const rt_onednn_units *u)
{
    return u->name;
}

const char *rt_onednn_units_cpu_isa(const rt_onednn_units *u, const char *description)
{
    for (size_t i = 0; description && i < u->n_cpus; i++)
        if (strcmp(u->cpu_text[i], description) == 0)
            return u->cpu_isa[i];
    return NULL;
}

const char *rt_onednn_units_fpmath(const rt_onednn_units *u, const char *attributes, char *buf,
                                   size_t n)
{
    for (size_t i = 0; attributes && i < u->n_fp_attrs; i++) {
        const char *a = u->fp_attrs[i];
        size_t l = strlen(a);
        for (const char *p = attributes; (p = strstr(p, a)) != NULL; p += l) {
            if (p != attributes && p[-1] != ' ')
                continue;
            size_t m = strcspn(p + l, ": ");
            if (m == 0 || m >= n)
                break;
            memcpy(buf, p + l, m);
            buf[m] = '\0';
            return buf;
        }
    }
    return NULL;
}

int rt_onednn_units_has_isa(const rt_onednn_units *u, const char *isa)
{
    return isa && find(u->isas, u->n_isas, isa, strlen(isa)) != NULL;
}

/* The ISA an implementation names among its ':'-separated parts ("brg_matmul:avx10_1_512_amx"). */
static const named_list *impl_isa(const rt_onednn_units *u, const char *impl)
{
    for (const char *p = impl; *p;) {
        size_t n = strcspn(p, ":");
        const named_list *isa = find(u->isas, u->n_isas, p, n);
        if (isa && !(n == 4 && memcmp(p, "none", 4) == 0))
            return isa;
        p += n + (p[n] == ':');
    }
    return NULL;
}

static int matches(const char *pat, const char *s)
{
    size_t lp = strlen(pat), ls = strlen(s);
    if (strcmp(pat, "*") == 0)
        return 1;
    if (pat[0] == '*')
        return ls >= lp - 1 && strcmp(s + ls - (lp - 1), pat + 1) == 0;
    if (pat[lp - 1] == '*')
        return strncmp(s, pat, lp - 1) == 0;
    return strcmp(pat, s) == 0;
}

const char *rt_onednn_units_unit(const rt_onednn_units *u, const char *kind, const char *impl,
                                 const char *dt, const char *fpmath, const char *cpu_isa,
                                 rt_onednn_unit_basis *basis, const char **why)
{
    rt_onednn_unit_basis b_ = RT_ONEDNN_UNIT_IMPL;
    const char *why_ = NULL;
    basis = basis ? basis : &b_;
    why = why ? why : &why_;
    *basis = RT_ONEDNN_UNIT_IMPL;
    *why = NULL;
    dt = dt ? dt : "f32";
    int matrix = has(u->matrix_kinds, u->n_matrix_kinds, kind);
    for (size_t i = 0; matrix && fpmath && strcmp(dt, "f32") == 0 && i < u->n_fp; i++)
        if (strcmp(u->fp_mode[i], fpmath) == 0)
            dt = u->fp_dt[i];
    const named_list *pref = matrix ? find(u->matrix, u->n_matrix, dt, strlen(dt))
                                    : find(u->vector, u->n_vector, dt, strlen(dt));
    if (!pref) {
        *basis = RT_ONEDNN_UNIT_UNKNOWN;
        return "unknown";
    }
    if (pref->n == 1) /* the same unit on every ISA */
        return pref->v[0];
    const named_list *isa = impl_isa(u, impl ? impl : "");
    for (size_t i = 0; !isa && i < u->n_without; i++) {
        if (!matches(u->without[i].impl, impl ? impl : ""))
            continue;
        if (u->without[i].cpu) {
            *why = u->without[i].why;
            isa = cpu_isa ? find(u->isas, u->n_isas, cpu_isa, strlen(cpu_isa)) : NULL;
            *basis = isa ? RT_ONEDNN_UNIT_WIDEST : RT_ONEDNN_UNIT_UNKNOWN;
            if (!isa)
                return "unknown";
        } else {
            isa = find(u->isas, u->n_isas, "none", 4);
        }
    }
    for (size_t i = 0; isa && i < pref->n; i++)
        if (has(isa->v, isa->n, pref->v[i]))
            return pref->v[i];
    *basis = RT_ONEDNN_UNIT_UNKNOWN;
    return "unknown";
}
