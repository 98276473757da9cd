/* The cost model of PyTorch operators, the recorded arguments of a call: shapes ('Input Dims'),
 * types ('Input type') and concrete values ('Concrete Inputs'), and the bytes of those an entry
 * reads; and how a cost is marked incomplete, which every model of the table does. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "torch-cost-args.h"

/* The largest element count of one tensor taken as recorded (2^50). */
#define TC_MAX_NUMEL 1125899906842624.0

/* ---- the recorded arguments ---- */

/* The recorded type names: bytes per element and FLOPs unit (NULL: not a floating type). */
static const struct {
    const char *name;
    double size;
    const char *unit;
} types[] = {
    {"float", 4, "fp32"},
    {"double", 8, "fp64"},
    {"c10::Half", 2, "fp16"},
    {"c10::BFloat16", 2, "bf16"},
    {"long int", 8, NULL},
    {"long", 8, NULL},
    {"int", 4, NULL},
    {"short int", 2, NULL},
    {"short", 2, NULL},
    {"signed char", 1, NULL},
    {"unsigned char", 1, NULL},
    {"bool", 1, NULL},
    {"c10::complex<float>", 8, NULL},
    {"c10::complex<double>", 16, NULL},
};

/* Bytes per element and FLOPs unit of a recorded type name; 0 when it is not a tensor's. */
static double type_size(const char *t, const char **unit)
{
    *unit = NULL;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(t, types[i].name) == 0) {
            *unit = types[i].unit;
            return types[i].size;
        }
    return 0;
}

const char *rt_torch_cost_unit_named(const char *name)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (types[i].unit && strcmp(types[i].unit, name) == 0)
            return types[i].unit;
    return NULL;
}

/* Elements of one shape ([16, 3, 32, 32]); -1 when it is not a list of whole sizes. */
static double shape_of(const json_t *s, tc_arg *a)
{
    size_t i;
    const json_t *v;
    double n = 1;
    a->nd = 0;
    json_array_foreach(s, i, v)
    {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return -1;
        double d = (double)json_integer_value(v);
        if (i < TC_MAX_DIMS)
            a->d[i] = d;
        n *= d;
        if (n > TC_MAX_NUMEL)
            return -1;
    }
    if (json_array_size(s) > TC_MAX_DIMS)
        return -1;
    a->nd = (int)json_array_size(s);
    return n;
}

/* The call's arguments from its recorded JSON; -1 with why when they cannot be read. */
int rt_torch_cost_read_call(const rt_torch_call *rc, tc_call *c, char *why, size_t wn)
{
    memset(c, 0, sizeof *c);
    c->concrete = rc->concrete;
    c->flops_arg = rc->flops_arg;
    if (!rc->dims) {
        snprintf(why, wn, "no input shapes recorded (record_shapes=True)");
        return -1;
    }
    json_t *dims = json_loads(rc->dims, JSON_DECODE_ANY, NULL);
    json_t *types = rc->types ? json_loads(rc->types, JSON_DECODE_ANY, NULL) : NULL;
    int rc_ = 0;
    if (!json_is_array(dims)) {
        snprintf(why, wn, "'Input Dims' is not a list");
        rc_ = -1;
        goto out;
    }
    c->typed = json_is_array(types);
    c->n_recorded = json_array_size(dims);
    c->n = (int)(c->n_recorded < TC_MAX_ARGS ? c->n_recorded : TC_MAX_ARGS);
    for (int i = 0; i < c->n; i++) {
        tc_arg *a = &c->arg[i];
        const json_t *s = json_array_get(dims, (size_t)i);
        const char *t = c->typed ? json_string_value(json_array_get(types, (size_t)i)) : NULL;
        const char *unit = NULL;
        double es = t ? type_size(t, &unit) : 0;
        if (!json_is_array(s)) {
            snprintf(why, wn, "'Input Dims' entry %d is not a list", i);
            rc_ = -1;
            goto out;
        }
        if (json_array_size(s) > 0 && json_is_array(json_array_get(s, 0))) {
            /* a tensor list: the sum of its members */
            size_t k;
            const json_t *m;
            double n = 0;
            json_array_foreach(s, k, m)
            {
                tc_arg one;
                double e = json_is_array(m) ? shape_of(m, &one) : -1;
                if (e < 0) {
                    snprintf(why, wn, "'Input Dims' entry %d is not a list of shapes", i);
                    rc_ = -1;
                    goto out;
                }
                n += e;
            }
            a->is_tensor = 1;
            a->nd = -1;
            a->numel = n;
        } else {
            double n = shape_of(s, a);
            if (n < 0) {
                snprintf(why, wn, "'Input Dims' entry %d is not a shape of whole sizes", i);
                rc_ = -1;
                goto out;
            }
            /* [] is a 0-dimensional tensor when its type is a tensor's, else not a tensor, or a
             * tensor list whose shapes were not recorded */
            a->is_tensor = a->nd > 0 || es > 0;
            a->numel = a->is_tensor ? n : 0;
            a->bare_list = a->nd == 0 && t && strcmp(t, "TensorList") == 0;
        }
        a->esize = es;
        a->unit = unit;
    }
out:
    json_decref(dims);
    json_decref(types);
    return rc_;
}

int rt_torch_cost_concrete_ints(const tc_call *c, int pos, int64_t *out, int max)
{
    if (pos < 0 || !c->concrete)
        return 0;
    json_t *all = json_loads(c->concrete, JSON_DECODE_ANY, NULL);
    const json_t *v = json_is_array(all) ? json_array_get(all, (size_t)pos) : NULL;
    const char *s = json_string_value(v);
    int n = 0;
    if (!s || !*s) {
        int was_list = json_is_array(all);
        json_decref(all);
        return was_list ? 0 : -1;
    }
    const char *p = s;
    while (*p) {
        while (*p == ' ' || *p == '[' || *p == ']' || *p == ',' || *p == '(' || *p == ')')
            p++;
        if (!*p)
            break;
        int64_t x;
        if (strncmp(p, "True", 4) == 0 || strncmp(p, "true", 4) == 0) {
            x = 1;
            p += 4;
        } else if (strncmp(p, "False", 5) == 0 || strncmp(p, "false", 5) == 0) {
            x = 0;
            p += 5;
        } else {
            char *end;
            long long v2 = strtoll(p, &end, 10);
            if (end == p || v2 < -TC_MAX_CONCRETE || v2 > TC_MAX_CONCRETE) {
                n = -1;
                break;
            }
            x = v2;
            p = end;
        }
        if (n == max) {
            n = -1;
            break;
        }
        out[n++] = x;
    }
    json_decref(all);
    return n;
}

double rt_torch_cost_reads(const tc_entry *e, const tc_call *c)
{
    double bytes = 0;
    int ok = 1;
    for (int i = 0; i < c->n; i++) {
        const tc_arg *a = &c->arg[i];
        if (!a->is_tensor || !(e->reads_all || (e->reads >> i & 1)))
            continue;
        bytes += a->numel * a->esize;
        ok &= a->esize > 0;
    }
    return ok ? bytes : -1;
}

void rt_torch_cost_incomplete(rt_torch_cost *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->why, sizeof out->why, fmt, ap);
    va_end(ap);
    out->status = RT_TC_INCOMPLETE;
    out->flops_known = out->bytes_known = 0;
    out->flops = out->bytes = 0;
}
