/* PyTorch GPU traces, the unit a kernel's FLOPs ran on: data/gpu/matrix-kernels.json names the
 * kernels of the math libraries that run on the matrix units (NVIDIA Tensor Cores, AMD Matrix
 * Cores) by glob, and the unit each input precision of the operator maps to there. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/data-file.h"
#include "rooftime/util/strings.h"
#include "torch-gpu.h"

#define MAX_ROWS 1000
#define MAX_MAP 16

typedef struct unit_row {
    char *match;
    size_t n_map;
    char *from[MAX_MAP], *to[MAX_MAP];
} unit_row;

struct gpu_units {
    unit_row *row;
    size_t n;
    char *label;
};

void rt_torch_gpu_units_free(gpu_units *u)
{
    if (!u)
        return;
    for (size_t i = 0; i < u->n; i++) {
        free(u->row[i].match);
        for (size_t j = 0; j < u->row[i].n_map; j++) {
            free(u->row[i].from[j]);
            free(u->row[i].to[j]);
        }
    }
    free(u->row);
    free(u->label);
    free(u);
}

/* "units": {"fp32": "tensor_tf32", ...}: the operator's precision to the matrix unit. */
static int read_map(rt_jr *r, const json_t *o, const char *path, unit_row *row)
{
    const json_t *map;
    if (rt_jr_member_object(r, o, path, "units", true, &map) != 0)
        return -1;
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)map, k, v)
    {
        if (row->n_map == MAX_MAP) {
            rt_jr_fail(r, path, "units", "more than %d precisions", MAX_MAP);
            return -1;
        }
        if (!json_is_string(v) || strncmp(json_string_value(v), "tensor", 6) != 0) {
            char key[80];
            snprintf(key, sizeof key, "units.%.60s", k);
            rt_jr_fail(r, path, key, "not the name of a matrix unit (tensor...)");
            return -1;
        }
        row->from[row->n_map] = rt_strdup(k);
        row->to[row->n_map++] = rt_strdup(json_string_value(v));
    }
    return 0;
}

int rt_torch_gpu_units_load(gpu_units **out, rt_error *err)
{
    *out = NULL;
    rt_data_file f;
    if (rt_data_file_load(&f, NULL, "gpu/math-kernels.json", "rooftime.math-kernels/1", err) != 0)
        return -1;
    rt_json_src src = rt_data_file_src(&f);
    rt_jr r = {src, err};
    gpu_units *u = rt_xcalloc(1, sizeof *u);
    u->label = rt_strdup(f.label);
    const json_t *arr;
    int rc = rt_jr_array(&r, f.root, "", "kernels", true, &arr);
    if (rc == 0 && json_array_size(arr) > MAX_ROWS) {
        rt_jr_fail(&r, "", "kernels", "more than %d rows", MAX_ROWS);
        rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < json_array_size(arr); i++) {
        const json_t *o = json_array_get(arr, i);
        char path[48];
        snprintf(path, sizeof path, "kernels[%zu]", i);
        u->row = rt_xrealloc(u->row, (u->n + 1) * sizeof *u->row);
        unit_row *row = &u->row[u->n++];
        memset(row, 0, sizeof *row);
        rc = rt_jr_object(&r, o, path) != 0 ||
                     rt_jr_string(&r, o, path, "match", true, &row->match) != 0 ||
                     read_map(&r, o, path, row) != 0
                 ? -1
                 : 0;
        if (rc == 0 && !*row->match) {
            rt_jr_fail(&r, path, "match", "empty pattern");
            rc = -1;
        }
    }
    rt_data_file_release(&f);
    if (rc != 0) {
        rt_torch_gpu_units_free(u);
        return -1;
    }
    *out = u;
    return 0;
}

int rt_torch_gpu_match(const gpu_units *u, const char *name)
{
    for (size_t i = 0; u && i < u->n; i++)
        if (fnmatch(u->row[i].match, name, 0) == 0)
            return (int)i;
    return -1;
}

const char *rt_torch_gpu_row_unit(const gpu_units *u, int row, const char *unit)
{
    if (row < 0 || !unit)
        return unit;
    const unit_row *r = &u->row[row];
    for (size_t j = 0; j < r->n_map; j++)
        if (strcmp(r->from[j], unit) == 0)
            return r->to[j];
    return unit; /* a precision the matrix units do not take: the vector units' */
}

const char *rt_torch_gpu_units_label(const gpu_units *u)
{
    return u ? u->label : "";
}
