/* Reads data/gpu/architectures.json: per GPU generation its per-SM peak rates, the instruction
 * family behind each Tensor Core ceiling, the quantities the counters report its units under and
 * its reference part; the parts of the presets. */
#include "rooftime/formats/gpu-arch-json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/data-file.h"
#include "rooftime/util/strings.h"

/* A string member that fits in n bytes with its NUL, copied into out. */
static int get_str(rt_jr *r, const json_t *o, const char *path, const char *key, char *out,
                   size_t n)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_string(v) || json_string_length(v) >= n) {
        rt_jr_fail(r, path, key,
                   v ? "expected a string of at most %zu bytes"
                     : "missing (a string of at most %zu bytes)",
                   n - 1);
        return -1;
    }
    snprintf(out, n, "%s", json_string_value(v));
    return 0;
}

/* "units": {"fp32": rate, ...}, FLOPs per SM per clock of each unit. */
static int load_units(rt_jr *r, rt_gpu_arch *a, const json_t *e, const char *path)
{
    const json_t *units;
    if (rt_jr_member_object(r, e, path, "units", true, &units) != 0)
        return -1;
    char sub[64];
    snprintf(sub, sizeof sub, "%s.units", path);
    if (json_object_size(units) > RT_GPU_MAX_UNITS) {
        rt_jr_fail(r, path, "units", "%zu rates, more than the limit of %d",
                   json_object_size(units), RT_GPU_MAX_UNITS);
        return -1;
    }
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)units, key, v)
    {
        rt_gpu_rate *u = &a->units[a->n_units];
        if (strlen(key) >= sizeof u->name) {
            rt_jr_fail(r, sub, key, "a unit name longer than %zu bytes", sizeof u->name - 1);
            return -1;
        }
        if (!json_is_number(v) || !(json_number_value(v) > 0)) {
            if (json_is_number(v))
                rt_jr_fail(r, sub, key, "%g is not a rate > 0", json_number_value(v));
            else
                rt_jr_fail(r, sub, key, "expected a rate > 0");
            return -1;
        }
        snprintf(u->name, sizeof u->name, "%s", key);
        u->flops_per_sm_clock = json_number_value(v);
        a->n_units++;
    }
    return 0;
}

/* A required whole number from 0 to 1000000 (an architecture's sm, a part's count of SMs). */
static int whole(rt_jr *r, const json_t *e, const char *where, const char *key, int *out)
{
    double v;
    if (rt_jr_number(r, e, where, key, true, 0, &v) != 0)
        return -1;
    if (v != floor(v) || v > 1e6) {
        rt_jr_fail(r, where, key, "expected a whole number from 0 to 1000000, got %g", v);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* An optional object of unit -> name (key "timed_by" or "counted_as"): each unit one of the
 * entry's rates, each name a string that fits. */
static int load_pairs(rt_jr *r, const rt_gpu_arch *a, const json_t *e, const char *path,
                      const char *key, rt_gpu_pair *out, size_t *n)
{
    const json_t *o;
    if (rt_jr_member_object(r, e, path, key, false, &o) != 0)
        return -1;
    char sub[64];
    snprintf(sub, sizeof sub, "%s.%s", path, key);
    const char *unit;
    json_t *v;
    json_object_foreach((json_t *)o, unit, v)
    {
        if (rt_gpu_arch_rate(a, unit) <= 0) {
            rt_jr_fail(r, sub, unit, "not one of this entry's units");
            return -1;
        }
        if (!json_is_string(v) || !json_string_length(v) ||
            json_string_length(v) >= sizeof out->name) {
            rt_jr_fail(r, sub, unit, "expected a name of 1 to %zu bytes", sizeof out->name - 1);
            return -1;
        }
        rt_gpu_pair *p = &out[(*n)++]; /* at most one per unit: no more than RT_GPU_MAX_UNITS */
        snprintf(p->unit, sizeof p->unit, "%s", unit);
        snprintf(p->name, sizeof p->name, "%s", json_string_value(v));
    }
    return 0;
}

/* One entry of "architectures": its number, name, L1, rates, instructions and counters. */
static int load_arch(rt_jr *r, rt_gpu_arch *a, const json_t *e, const char *where)
{
    if (rt_jr_object(r, e, where) != 0 || whole(r, e, where, "sm", &a->sm) != 0 ||
        get_str(r, e, where, "name", a->name, sizeof a->name) != 0 ||
        rt_jr_number(r, e, where, "l1_bytes_per_sm", true, 0, &a->l1_bytes_per_sm) != 0 ||
        rt_jr_number(r, e, where, "l1_bytes_per_clock_per_sm", true, 0,
                     &a->l1_bytes_per_clock_per_sm) != 0 ||
        load_units(r, a, e, where) != 0 ||
        get_str(r, e, where, "tensor_instruction", a->tensor_instruction,
                sizeof a->tensor_instruction) != 0 ||
        load_pairs(r, a, e, where, "timed_by", a->timed_by, &a->n_timed_by) != 0 ||
        load_pairs(r, a, e, where, "counted_as", a->counted_as, &a->n_counted_as) != 0)
        return -1;
    if (!a->tensor_instruction[0]) {
        rt_jr_fail(r, where, "tensor_instruction", "empty");
        return -1;
    }
    return json_object_get(e, "reference_part")
               ? get_str(r, e, where, "reference_part", a->reference_part, sizeof a->reference_part)
               : 0;
}

/* Each reference_part names a part of the same architecture. */
static int check_references(rt_jr *r, const rt_gpu_archs *out)
{
    for (size_t i = 0; i < out->n; i++) {
        const rt_gpu_arch *a = &out->arch[i];
        if (!a->reference_part[0])
            continue;
        int found = 0;
        for (size_t j = 0; j < out->n_parts; j++)
            found |= strcmp(out->part[j].name, a->reference_part) == 0 && out->part[j].sm == a->sm;
        if (!found) {
            char where[64];
            snprintf(where, sizeof where, "architectures[%zu]", i);
            rt_jr_fail(r, where, "reference_part", "'%s' is no part of sm_%d in 'parts'",
                       a->reference_part, a->sm);
            return -1;
        }
    }
    return 0;
}

int rt_gpu_archs_load(const char *path, rt_gpu_archs *out, rt_error *err)
{
    memset(out, 0, sizeof *out);
    rt_data_file f; /* the one loader of data files */
    if (rt_data_file_load(&f, path, "gpu/architectures.json", NULL, err) != 0)
        return -1;
    rt_jr r = {rt_data_file_src(&f), err};
    int rc = -1;
    const json_t *archs, *parts;
    if (rt_jr_array(&r, f.root, "", "architectures", true, &archs) != 0 ||
        rt_jr_array(&r, f.root, "", "parts", true, &parts) != 0)
        goto done;
    out->arch = rt_xcalloc(json_array_size(archs) + 1, sizeof *out->arch);
    out->part = rt_xcalloc(json_array_size(parts) + 1, sizeof *out->part);
    size_t i;
    const json_t *e;
    json_array_foreach(archs, i, e)
    {
        char where[64];
        snprintf(where, sizeof where, "architectures[%zu]", i);
        if (load_arch(&r, &out->arch[out->n], e, where) != 0)
            goto done;
        out->n++;
    }
    json_array_foreach(parts, i, e)
    {
        char where[64];
        snprintf(where, sizeof where, "parts[%zu]", i);
        rt_gpu_part *p = &out->part[out->n_parts];
        if (rt_jr_object(&r, e, where) != 0 ||
            get_str(&r, e, where, "name", p->name, sizeof p->name) != 0 ||
            whole(&r, e, where, "sm", &p->sm) != 0 || whole(&r, e, where, "sms", &p->sms) != 0 ||
            rt_jr_number(&r, e, where, "clock_hz", true, 0, &p->clock_hz) != 0 ||
            rt_jr_number(&r, e, where, "tensor_clock_hz", true, 0, &p->tensor_clock_hz) != 0 ||
            (json_object_get(e, "preset") &&
             get_str(&r, e, where, "preset", p->preset, sizeof p->preset) != 0))
            goto done;
        out->n_parts++;
    }
    rc = check_references(&r, out);
done:
    rt_data_file_release(&f);
    if (rc != 0)
        rt_gpu_archs_release(out);
    return rc;
}
