/* The oneDNN cost model's knowledge: data/onednn/cost.json read, checked and evaluated (its
 * formulas through util/formula.c over the counts of rt_onednn_counts). */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onednn-internal.h"
#include "rooftime/util/data-file.h"
#include "rooftime/util/json-read.h"
#include "rooftime/util/strings.h"

static const struct {
    const char *name;
    size_t offset;
} counts[] = {
#define C(f)                                                                                       \
    {                                                                                              \
#f, offsetof(rt_onednn_counts, f)                                                          \
    }
    C(macs),        C(bias_adds), C(cells), C(gemm_macs), C(elems),  C(global_stats),
    C(scale_shift), C(scale),     C(shift), C(relu),      C(two_op), C(window_taps),
    C(avg),         C(dst),       C(src),   C(sources),
#undef C
};

int rt_onednn_count_offset(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (strlen(counts[i].name) == len && memcmp(counts[i].name, name, len) == 0)
            return (int)counts[i].offset;
    return -1;
}

/* A name in a formula: one of the counts its kind provides (a word of `allowed`). */
static int resolve(void *ctx, const char *name, size_t len, int *bank, int *index, const char **why)
{
    const char *allowed = ctx;
    for (const char *p = allowed; *p;) {
        size_t n = strcspn(p, " ");
        if (n == len && memcmp(p, name, len) == 0) {
            *bank = 0;
            *index = rt_onednn_count_offset(name, len) / (int)sizeof(double);
            return 0;
        }
        p += n;
        p += strspn(p, " ");
    }
    *why = "not a count this kind provides";
    return -1;
}

static int compile(const rt_onednn_model *m, const char *kind, const char *dir, json_t *v,
                   rt_formula *f, rt_error *err)
{
    if (!json_is_string(v)) {
        rt_error_set(err, "%s: kinds.%s.flops%s%s: a formula (a string) expected", m->path, kind,
                     dir ? "." : "", dir ? dir : "");
        return -1;
    }
    if (rt_formula_compile(f, json_string_value(v), resolve, (void *)m->counts_of(kind), err) !=
        0) {
        rt_error_prefix(err, "%s: kinds.%s.flops%s%s (counts: %s)", m->path, kind, dir ? "." : "",
                        dir ? dir : "", m->counts_of(kind));
        return -1;
    }
    return 0;
}

static int load_kind(rt_onednn_model *m, const char *kind, json_t *o, rt_error *err)
{
    if (!m->counts_of(kind)) {
        rt_error_set(err, "%s: kinds.%s: not a primitive kind the importer reads", m->path, kind);
        return -1;
    }
    json_t *flops = json_object_get(o, "flops");
    if (!json_is_object(o) || !flops) {
        rt_error_set(err, "%s: kinds.%s: needs \"flops\"", m->path, kind);
        return -1;
    }
    rt_onednn_kind_model *k = &m->k[m->n++];
    k->kind = rt_strdup(kind);
    if (json_is_object(flops)) {
        if (compile(m, kind, "forward", json_object_get(flops, "forward"), &k->forward, err) != 0 ||
            compile(m, kind, "backward", json_object_get(flops, "backward"), &k->backward, err) !=
                0)
            return -1;
    } else if (compile(m, kind, NULL, flops, &k->forward, err) != 0 ||
               compile(m, kind, NULL, flops, &k->backward, err) != 0) {
        return -1;
    }
    json_t *algs = json_object_get(o, "two_op_algs");
    if (algs) {
        if (!json_is_array(algs)) {
            rt_error_set(err, "%s: kinds.%s.two_op_algs: an array of names expected", m->path,
                         kind);
            return -1;
        }
        k->two_op_algs = rt_xcalloc(json_array_size(algs) + 1, sizeof(char *));
        size_t i;
        json_t *a;
        json_array_foreach(algs, i, a)
        {
            if (!json_is_string(a)) {
                rt_error_set(err, "%s: kinds.%s.two_op_algs[%zu]: a name expected", m->path, kind,
                             i);
                return -1;
            }
            k->two_op_algs[k->n_two_op++] = rt_strdup(json_string_value(a));
        }
    }
    return 0;
}

int rt_onednn_model_load(const char *path, const char *(*counts_of)(const char *kind),
                         rt_onednn_model *m, rt_error *err)
{
    memset(m, 0, sizeof *m);
    m->counts_of = counts_of;
    /* The one loader of data files: bounded, duplicate keys refused, the schema checked. */
    rt_data_file f;
    if (rt_data_file_load(&f, path, "onednn/cost.json", "rooftime.onednn-cost/1", err) != 0)
        return -1;
    m->path = rt_strdup(f.path);
    int rc = -1;
    rt_jr r = {rt_data_file_src(&f), err};
    const json_t *kinds;
    if (rt_jr_member_object(&r, f.root, "", "kinds", true, &kinds) != 0)
        goto done;
    m->k = rt_xcalloc(json_object_size(kinds) + 1, sizeof *m->k);
    const char *kind;
    json_t *o;
    json_object_foreach((json_t *)kinds, kind, o)
    {
        if (load_kind(m, kind, o, err) != 0)
            goto done;
    }
    rc = 0;
done:
    rt_data_file_release(&f);
    if (rc != 0)
        rt_onednn_model_release(m);
    return rc;
}

void rt_onednn_model_release(rt_onednn_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++) {
        rt_onednn_kind_model *k = &m->k[i];
        free(k->kind);
        rt_formula_release(&k->forward);
        rt_formula_release(&k->backward);
        for (size_t j = 0; j < k->n_two_op; j++)
            free(k->two_op_algs[j]);
        free(k->two_op_algs);
    }
    free(m->k);
    free(m->path);
    memset(m, 0, sizeof *m);
}

const rt_onednn_kind_model *rt_onednn_model_kind(const rt_onednn_model *m, const char *kind)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->k[i].kind, kind) == 0)
            return &m->k[i];
    return NULL;
}

double rt_onednn_model_flops(const rt_onednn_kind_model *k, const char *prop,
                             const rt_onednn_counts *n)
{
    const double *bank[] = {(const double *)n};
    return rt_formula_eval(rt_onednn_is_forward(prop) ? &k->forward : &k->backward, bank);
}
