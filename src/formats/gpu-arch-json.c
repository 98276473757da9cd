/* Reads data/gpu/architectures.json: the per-SM peak rates of each GPU architecture. */
#include "rooftime/formats/gpu-arch-json.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-write.h"
#include "rooftime/util/data-file.h"
#include "rooftime/util/strings.h"

static int get_num(json_t *o, const char *key, double *out, const char *file, const char *where,
                   rt_error *err)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v) || json_number_value(v) < 0) {
        rt_error_set(err, "%s: %s.%s: expected a number >= 0", file, where, key);
        return -1;
    }
    *out = json_number_value(v);
    return 0;
}

static int get_str(json_t *o, const char *key, char *out, size_t n, const char *file,
                   const char *where, rt_error *err)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v) || strlen(json_string_value(v)) >= n) {
        rt_error_set(err, "%s: %s.%s: expected a string of at most %zu bytes", file, where, key,
                     n - 1);
        return -1;
    }
    snprintf(out, n, "%s", json_string_value(v));
    return 0;
}

int rt_gpu_archs_load(const char *path, rt_gpu_archs *out, rt_error *err)
{
    memset(out, 0, sizeof *out);
    rt_data_file f; /* the one loader of data files */
    if (rt_data_file_load(&f, path, "gpu/architectures.json", NULL, err) != 0)
        return -1;
    const char *file = f.path;
    json_t *root = f.root;
    int rc = -1;
    json_t *archs = json_object_get(root, "architectures");
    json_t *parts = json_object_get(root, "parts");
    if (!json_is_array(archs) || !json_is_array(parts)) {
        rt_error_set(err, "%s: expected arrays 'architectures' and 'parts'", file);
        goto done;
    }
    out->arch = rt_xcalloc(json_array_size(archs) + 1, sizeof *out->arch);
    out->part = rt_xcalloc(json_array_size(parts) + 1, sizeof *out->part);
    size_t i;
    json_t *e;
    json_array_foreach(archs, i, e)
    {
        char where[64];
        snprintf(where, sizeof where, "architectures[%zu]", i);
        rt_gpu_arch *a = &out->arch[out->n];
        double sm;
        if (get_num(e, "sm", &sm, file, where, err) ||
            get_str(e, "name", a->name, sizeof a->name, file, where, err) ||
            get_num(e, "l1_bytes_per_sm", &a->l1_bytes_per_sm, file, where, err) ||
            get_num(e, "l1_bytes_per_clock_per_sm", &a->l1_bytes_per_clock_per_sm, file, where,
                    err))
            goto done;
        a->sm = (int)sm;
        json_t *units = json_object_get(e, "units");
        if (!json_is_object(units) || json_object_size(units) > RT_GPU_MAX_UNITS) {
            rt_error_set(err, "%s: %s.units: expected an object of at most %d rates", file, where,
                         RT_GPU_MAX_UNITS);
            goto done;
        }
        const char *key;
        json_t *v;
        json_object_foreach(units, key, v)
        {
            rt_gpu_rate *r = &a->units[a->n_units];
            if (!json_is_number(v) || json_number_value(v) <= 0 || strlen(key) >= sizeof r->name) {
                rt_error_set(err, "%s: %s.units.%s: expected a rate > 0", file, where, key);
                goto done;
            }
            snprintf(r->name, sizeof r->name, "%s", key);
            r->flops_per_sm_clock = json_number_value(v);
            a->n_units++;
        }
        out->n++;
    }
    json_array_foreach(parts, i, e)
    {
        char where[64];
        snprintf(where, sizeof where, "parts[%zu]", i);
        rt_gpu_part *p = &out->part[out->n_parts];
        double sm, sms;
        if (get_str(e, "name", p->name, sizeof p->name, file, where, err) ||
            get_num(e, "sm", &sm, file, where, err) || get_num(e, "sms", &sms, file, where, err) ||
            get_num(e, "clock_hz", &p->clock_hz, file, where, err) ||
            get_num(e, "tensor_clock_hz", &p->tensor_clock_hz, file, where, err) ||
            get_str(e, "preset", p->preset, sizeof p->preset, file, where, err))
            goto done;
        p->sm = (int)sm;
        p->sms = (int)sms;
        out->n_parts++;
    }
    rc = 0;
done:
    rt_data_file_release(&f);
    if (rc != 0)
        rt_gpu_archs_release(out);
    return rc;
}
