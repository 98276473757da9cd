/* oneDNN's verbose line formats: data/onednn/verbose-formats.json read (one row per format, keyed
 * by the header line its version prints), a line's fields matched to a format, its header's
 * columns, and its info lines (version, CPU instruction set). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onednn-internal.h"
#include "rooftime/util/data-file.h"
#include "rooftime/util/json-read.h"
#include "rooftime/util/strings.h"

/* The columns an execution record must have, in the order of the rt_onednn_col enum. */
static const char *const needed[RT_DN_NCOL] = {"engine",    "primitive",          "implementation",
                                               "prop_kind", "memory_descriptors", "attributes",
                                               "auxiliary", "problem_desc",       "exec_time"};

int rt_onednn_jr_strings(rt_jr *r, const json_t *obj, const char *path, const char *key,
                         bool required, char ***out, size_t *n)
{
    const json_t *a;
    *out = NULL;
    *n = 0;
    if (rt_jr_array(r, obj, path, key, required, &a) != 0)
        return -1;
    if (!a)
        return 0;
    *out = rt_xcalloc(json_array_size(a) + 1, sizeof **out);
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v)
    {
        if (!json_is_string(v) || !json_string_value(v)[0]) {
            char k[96];
            snprintf(k, sizeof k, "%s[%zu]", key, i);
            rt_jr_fail(r, path, k, "expected a non-empty string");
            return -1;
        }
        (*out)[(*n)++] = rt_strdup(json_string_value(v));
    }
    return 0;
}

char *rt_onednn_data_name(const char *label)
{
    const char *h = NULL;
    for (const char *p = label; (p = strstr(p, " sha256:")) != NULL; p++)
        h = p;
    return h ? rt_strndup(label, (size_t)(h - label)) : rt_strdup(label);
}

void rt_onednn_strings_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* Columns from a list of names (the first is the operation, or "timestamp" then the operation):
 * where each needed column lies in a record's fields, relative to its operation. -1 with a reason
 * when a needed one is missing. */
int rt_onednn_columns_set(rt_onednn_columns *c, char **names, size_t n, char *why, size_t why_n)
{
    size_t first = n > 0 && strcmp(names[0], "timestamp") == 0;
    if (first >= n || strcmp(names[first], "operation") != 0) {
        snprintf(why, why_n, "the columns do not start with 'operation'");
        return -1;
    }
    rt_onednn_columns t = {.n = (int)(n - first - 1), .attr = 0};
    for (size_t i = first + 1; i < n; i++)
        if (strcmp(names[i], "attributes") == 0)
            t.attr = (int)(i - first);
    for (int k = 0; k < RT_DN_NCOL; k++) {
        int p = 0;
        for (size_t i = first + 1; i < n && !p; i++)
            if (strcmp(names[i], needed[k]) == 0)
                p = (int)(i - first);
        if (!p) {
            snprintf(why, why_n, "no column '%s'", needed[k]);
            return -1;
        }
        /* after the free 'attributes' column: counted from the end (-1: the last field) */
        t.at[k] = t.attr && p > t.attr ? p - t.n - 1 : p;
    }
    size_t l = 0;
    for (size_t i = first + 1; i < n && l < sizeof t.list - 2; i++)
        l += (size_t)snprintf(t.list + l, sizeof t.list - l, "%s%s", i > first + 1 ? ", " : "",
                              names[i]);
    *c = t;
    return 0;
}

int rt_onednn_field_at(const rt_onednn_columns *c, int col, int op, int nf)
{
    int at = c->at[col];
    return at > 0 ? op + at : nf + at;
}

static int load_format(rt_jr *r, const json_t *o, size_t i, rt_onednn_format *f)
{
    char path[48];
    snprintf(path, sizeof path, "formats[%zu]", i);
    if (rt_jr_object(r, o, path) != 0 || rt_jr_string(r, o, path, "versions", true, &f->versions) ||
        rt_jr_string(r, o, path, "header", false, &f->header) ||
        rt_onednn_jr_strings(r, o, path, "record", true, &f->record, &f->n_record))
        return -1;
    for (size_t k = 0; k < f->n_record; k++) {
        const char *t = f->record[k];
        int last = k + 1 == f->n_record, op = strcmp(t, "operation") == 0;
        if (op != last) {
            rt_jr_fail(r, path, "record", "must end with 'operation', once");
            return -1;
        }
    }
    return 0;
}

int rt_onednn_jr_pairs(rt_jr *r, const json_t *root, const char *key, char ***keys, char ***vals,
                       size_t *n)
{
    const json_t *o;
    *n = 0;
    if (rt_jr_member_object(r, root, "", key, true, &o) != 0)
        return -1;
    *keys = rt_xcalloc(json_object_size(o) + 1, sizeof **keys);
    *vals = rt_xcalloc(json_object_size(o) + 1, sizeof **vals);
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)o, name, v)
    {
        (*keys)[(*n)++] = rt_strdup(name);
        if (rt_jr_string(r, o, key, name, true, &(*vals)[*n - 1]) != 0)
            return -1;
    }
    return 0;
}

/* An object of names to one of `values` ({"exec": "exec", ...}): the names, and each value's
 * index. */
static int load_map(rt_jr *r, const json_t *root, const char *key, const char *const *values,
                    char ***names, int **kinds, size_t *n)
{
    char **vals = NULL;
    size_t nv = 0;
    int rc = rt_onednn_jr_pairs(r, root, key, names, &vals, &nv);
    *n = nv;
    *kinds = rt_xcalloc(nv + 1, sizeof **kinds);
    for (size_t i = 0; rc == 0 && i < nv; i++) {
        int k = -1;
        for (int j = 0; values[j]; j++)
            if (strcmp(values[j], vals[i]) == 0)
                k = j;
        if (k < 0) {
            rt_jr_fail(r, key, (*names)[i], "'%s' is not one of %s, %s%s%s", vals[i], values[0],
                       values[1], values[2] ? ", " : "", values[2] ? values[2] : "");
            rc = -1;
        }
        (*kinds)[i] = k;
    }
    rt_onednn_strings_free(vals, nv);
    return rc;
}

int rt_onednn_formats_load(const char *path, rt_onednn_formats *t, rt_error *err)
{
    memset(t, 0, sizeof *t);
    rt_data_file f;
    if (rt_data_file_load(&f, path, "onednn/verbose-formats.json", "rooftime.onednn-verbose/1",
                          err) != 0)
        return -1;
    t->path = rt_onednn_data_name(f.label);
    rt_jr r = {rt_data_file_src(&f), err};
    const json_t *fmts;
    static const char *const cats[] = {"read", "skip", NULL};
    static const char *const ops[] = {"exec", "create", "info", "skip", NULL};
    int rc = -1;
    char why[96];
    if (rt_onednn_jr_strings(&r, f.root, "", "markers", true, &t->markers, &t->n_markers) ||
        rt_jr_array(&r, f.root, "", "formats", true, &fmts) ||
        rt_onednn_jr_strings(&r, f.root, "", "columns", true, &t->columns, &t->n_columns) ||
        load_map(&r, f.root, "categories", cats, &t->cat_names, &t->cat_read, &t->n_cat) ||
        load_map(&r, f.root, "operations", ops, &t->op_names, &t->op_kinds, &t->n_ops))
        goto done;
    if (rt_onednn_columns_set(&t->default_columns, t->columns, t->n_columns, why, sizeof why) !=
        0) {
        rt_jr_fail(&r, "", "columns", "%s", why);
        goto done;
    }
    if (json_array_size(fmts) == 0 || json_array_size(fmts) > RT_DN_MAX_FORMATS) {
        rt_jr_fail(&r, "", "formats", "expected 1 to %d formats", RT_DN_MAX_FORMATS);
        goto done;
    }
    t->f = rt_xcalloc(json_array_size(fmts), sizeof *t->f);
    for (size_t i = 0; i < json_array_size(fmts); i++, t->n++)
        if (load_format(&r, json_array_get(fmts, i), i, &t->f[i]) != 0) {
            t->n++;
            goto done;
        }
    t->primitive_cat = -1;
    for (int k = 0; k < (int)t->n_cat; k++) {
        t->cat_read[k] = t->cat_read[k] == 0; /* "read" is cats[0] */
        t->primitive_cat = strcmp(t->cat_names[k], "primitive") == 0 ? k : t->primitive_cat;
    }
    rc = 0;
done:
    rt_data_file_release(&f);
    if (rc != 0)
        rt_onednn_formats_release(t);
    return rc;
}

void rt_onednn_formats_release(rt_onednn_formats *t)
{
    for (size_t i = 0; t->f && i < t->n; i++) {
        free(t->f[i].versions);
        free(t->f[i].header);
        rt_onednn_strings_free(t->f[i].record, t->f[i].n_record);
    }
    free(t->f);
    rt_onednn_strings_free(t->markers, t->n_markers);
    rt_onednn_strings_free(t->columns, t->n_columns);
    rt_onednn_strings_free(t->cat_names, t->n_cat);
    rt_onednn_strings_free(t->op_names, t->n_ops);
    free(t->cat_read);
    free(t->op_kinds);
    free(t->path);
    memset(t, 0, sizeof *t);
}

static int category_of(const rt_onednn_formats *t, const char *s)
{
    for (size_t k = 0; k < t->n_cat; k++)
        if (strcmp(t->cat_names[k], s) == 0)
            return (int)k;
    return -1;
}

/* Does the line (fields f[1..nf-1] after the marker) fit format x? Sets the operation's index and
 * its category. */
static int fits(const rt_onednn_formats *t, const rt_onednn_format *x, char **f, int nf,
                rt_onednn_record *rec)
{
    int i = 1;
    rec->category = -1;
    for (size_t k = 0; k < x->n_record; k++) {
        const char *p = x->record[k];
        if (strcmp(p, "operation") == 0) {
            if (i >= nf)
                return 0;
            rec->op = i;
            return 1;
        }
        double ts;
        if (strcmp(p, "timestamp?") == 0) {
            i += i < nf && rt_parse_double(f[i], &ts);
        } else if (strcmp(p, "category?") == 0 || strcmp(p, "category") == 0) {
            int c = i < nf ? category_of(t, f[i]) : -1;
            if (c < 0 && p[8] != '?')
                return 0;
            if (c >= 0) {
                rec->category = c;
                i++;
            }
        } else if (i < nf && strcmp(f[i], p) == 0) {
            i++;
        } else {
            return 0;
        }
    }
    return 0;
}

static rt_onednn_op op_kind(const rt_onednn_formats *t, const char *op)
{
    const char *colon = strchr(op, ':');
    for (size_t k = 0; k < t->n_ops; k++)
        if (strcmp(t->op_names[k], op) == 0)
            return (rt_onednn_op)t->op_kinds[k];
    for (size_t k = 0; colon && k < t->n_ops; k++) {
        size_t l = strlen(t->op_names[k]);
        if (l >= 2 && strcmp(t->op_names[k] + l - 2, ":*") == 0 && (size_t)(colon - op) == l - 2 &&
            memcmp(op, t->op_names[k], l - 2) == 0)
            return (rt_onednn_op)t->op_kinds[k];
    }
    return RT_DN_OP_UNKNOWN;
}

int rt_onednn_record_parse(const rt_onednn_formats *t, const int *seen, size_t n_seen, char **f,
                           int nf, rt_onednn_record *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->format = -1;
    /* the formats whose header the input printed first, then every format in the table's order */
    for (size_t k = 0; k < n_seen + t->n && rec->format < 0; k++) {
        int x = k < n_seen ? seen[k] : (int)(k - n_seen);
        if (fits(t, &t->f[x], f, nf, rec))
            rec->format = x;
    }
    if (rec->format < 0)
        return -1;
    rec->kind = op_kind(t, f[rec->op]);
    return 0;
}

int rt_onednn_header_format(const rt_onednn_formats *t, char **f, int op)
{
    char prefix[256];
    size_t l = 0;
    for (int j = 1; j <= op + 1 && l < sizeof prefix; j++) {
        const char *s = f[j];
        size_t n = j == op + 1 ? (size_t)(strchr(s, ':') ? strchr(s, ':') - s + 1 : 0) : strlen(s);
        l += (size_t)snprintf(prefix + l, sizeof prefix - l, "%.*s%s", (int)n, s,
                              j <= op ? "," : "");
    }
    for (size_t k = 0; k < t->n; k++)
        if (t->f[k].header && strcmp(t->f[k].header, prefix) == 0)
            return (int)k;
    return -1;
}
