/* Machine files: JSON in and out, presets by name. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json-read.h"
#include "rooftime/core/machine.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static const char *const top_known[] = {
    "schema", "name", "source", "method", "units", "levels", "launch_overhead", "reference", NULL};

static int read_unit(rt_jr *r, rt_machine *m, const json_t *j, size_t i)
{
    char path[64];
    snprintf(path, sizeof path, "units[%zu]", i);
    if (rt_jr_object(r, j, path) != 0)
        return -1;
    char *name = NULL;
    double flops = 0;
    if (rt_jr_string(r, j, path, "name", true, &name) != 0)
        return -1;
    if (rt_jr_number(r, j, path, "flops", true, 0, &flops) != 0) {
        free(name);
        return -1;
    }
    rt_unit *u = rt_machine_add_unit(m, name, flops);
    free(name);
    const json_t *d = NULL;
    if (rt_jr_number(r, j, path, "min", false, 0, &u->min) != 0 ||
        rt_jr_number(r, j, path, "max", false, 0, &u->max) != 0 ||
        rt_jr_number(r, j, path, "theoretical", false, 0, &u->theoretical) != 0 ||
        rt_jr_string(r, j, path, "note", false, &u->note) != 0 ||
        rt_jr_member_object(r, j, path, "derivation", false, &d) != 0)
        return -1;
    if (d)
        u->derivation = json_deep_copy(d);
    return 0;
}

static int read_level(rt_jr *r, rt_machine *m, const json_t *j, size_t i)
{
    char path[64];
    snprintf(path, sizeof path, "levels[%zu]", i);
    if (rt_jr_object(r, j, path) != 0)
        return -1;
    char *name = NULL;
    double bw = 0;
    if (rt_jr_string(r, j, path, "name", true, &name) != 0)
        return -1;
    if (rt_jr_number(r, j, path, "bytes_per_s", true, 0, &bw) != 0) {
        free(name);
        return -1;
    }
    rt_level *l = rt_machine_add_level(m, name, bw);
    free(name);
    if (rt_jr_number(r, j, path, "min", false, 0, &l->min) != 0 ||
        rt_jr_number(r, j, path, "max", false, 0, &l->max) != 0 ||
        rt_jr_number(r, j, path, "size_bytes", false, 0, &l->size_bytes) != 0 ||
        rt_jr_string(r, j, path, "note", false, &l->note) != 0)
        return -1;
    return 0;
}

int rt_machine_from_json(const json_t *j, const char *origin, rt_machine **out, rt_error *err)
{
    rt_jr r = {origin, err};
    *out = NULL;
    if (rt_jr_object(&r, j, "") != 0 || rt_jr_schema(&r, j, RT_MACHINE_SCHEMA) != 0)
        return -1;
    rt_machine *m = rt_machine_new(NULL);
    const json_t *units, *levels, *oh, *ref;
    if (rt_jr_string(&r, j, "", "name", true, &m->name) != 0 ||
        rt_jr_string(&r, j, "", "source", false, &m->source) != 0 ||
        rt_jr_string(&r, j, "", "method", false, &m->method) != 0 ||
        rt_jr_array(&r, j, "", "units", true, &units) != 0 ||
        rt_jr_array(&r, j, "", "levels", true, &levels) != 0 ||
        rt_jr_member_object(&r, j, "", "launch_overhead", true, &oh) != 0 ||
        rt_jr_member_object(&r, j, "", "reference", true, &ref) != 0)
        goto fail;
    for (size_t i = 0; i < json_array_size(units); i++)
        if (read_unit(&r, m, json_array_get(units, i), i) != 0)
            goto fail;
    for (size_t i = 0; i < json_array_size(levels); i++)
        if (read_level(&r, m, json_array_get(levels, i), i) != 0)
            goto fail;
    if (rt_jr_number(&r, oh, "launch_overhead", "seconds", true, 0, &m->tau) != 0 ||
        rt_jr_string(&r, oh, "launch_overhead", "method", false, &m->tau_method) != 0 ||
        rt_jr_string(&r, ref, "reference", "unit", true, &m->ref_unit) != 0 ||
        rt_jr_string(&r, ref, "reference", "level", true, &m->ref_level) != 0)
        goto fail;
    m->extra = rt_json_extra(j, top_known);
    if (rt_machine_check(m, err) != 0) {
        rt_error_prefix(err, "cannot read '%s'", origin);
        goto fail;
    }
    *out = m;
    return 0;
fail:
    rt_machine_free(m);
    return -1;
}

static void set_str(json_t *o, const char *key, const char *v)
{
    if (v)
        json_object_set_new(o, key, json_string(v));
}

static void set_pos(json_t *o, const char *key, double v)
{
    if (v > 0)
        json_object_set_new(o, key, rt_json_num(v));
}

json_t *rt_machine_to_json(const rt_machine *m)
{
    json_t *j = json_object();
    json_object_set_new(j, "schema", json_string(RT_MACHINE_SCHEMA));
    set_str(j, "name", m->name);
    set_str(j, "source", m->source);
    set_str(j, "method", m->method);
    json_t *units = json_array();
    for (size_t i = 0; i < m->n_units; i++) {
        const rt_unit *u = &m->units[i];
        json_t *o = json_object();
        set_str(o, "name", u->name);
        json_object_set_new(o, "flops", rt_json_num(u->flops));
        set_pos(o, "min", u->min);
        set_pos(o, "max", u->max);
        set_pos(o, "theoretical", u->theoretical);
        set_str(o, "note", u->note);
        if (u->derivation)
            json_object_set(o, "derivation", u->derivation);
        json_array_append_new(units, o);
    }
    json_object_set_new(j, "units", units);
    json_t *levels = json_array();
    for (size_t i = 0; i < m->n_levels; i++) {
        const rt_level *l = &m->levels[i];
        json_t *o = json_object();
        set_str(o, "name", l->name);
        json_object_set_new(o, "bytes_per_s", rt_json_num(l->bytes_per_s));
        set_pos(o, "min", l->min);
        set_pos(o, "max", l->max);
        set_pos(o, "size_bytes", l->size_bytes);
        set_str(o, "note", l->note);
        json_array_append_new(levels, o);
    }
    json_object_set_new(j, "levels", levels);
    json_t *oh = json_object();
    json_object_set_new(oh, "seconds", json_real(m->tau));
    set_str(oh, "method", m->tau_method);
    json_object_set_new(j, "launch_overhead", oh);
    json_t *ref = json_object();
    set_str(ref, "unit", m->ref_unit);
    set_str(ref, "level", m->ref_level);
    json_object_set_new(j, "reference", ref);
    rt_json_merge_extra(j, m->extra);
    return j;
}

int rt_machine_load(const char *path, rt_machine **out, rt_error *err)
{
    json_t *j;
    *out = NULL;
    if (rt_json_load_file(path, &j, err) != 0)
        return -1;
    int rc = rt_machine_from_json(j, path, out, err);
    json_decref(j);
    return rc;
}

int rt_machine_save(const rt_machine *m, const char *path, rt_error *err)
{
    json_t *j = rt_machine_to_json(m);
    int rc = rt_json_save_file(j, path, err);
    json_decref(j);
    return rc;
}

int rt_machine_resolve(const char *name_or_path, rt_machine **out, rt_error *err)
{
    struct stat st;
    if (strchr(name_or_path, '/') || strstr(name_or_path, ".json") || stat(name_or_path, &st) == 0)
        return rt_machine_load(name_or_path, out, err);
    char *path = rt_asprintf("%s/machines/%s.json", rt_datadir(), name_or_path);
    if (stat(path, &st) != 0) {
        size_t n;
        char **names = rt_machine_presets(&n);
        char list[512] = "";
        for (size_t i = 0; i < n; i++) {
            if (strlen(list) + strlen(names[i]) + 3 < sizeof list) {
                strcat(list, i ? ", " : "");
                strcat(list, names[i]);
            }
            free(names[i]);
        }
        free(names);
        rt_error_set(err, "no machine file or preset named '%s' (presets: %s)", name_or_path,
                     n ? list : "none found");
        free(path);
        return -1;
    }
    int rc = rt_machine_load(path, out, err);
    free(path);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **rt_machine_presets(size_t *n)
{
    *n = 0;
    char *dir = rt_asprintf("%s/machines", rt_datadir());
    DIR *d = opendir(dir);
    free(dir);
    char **names = NULL;
    if (!d)
        return NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) {
            names = rt_xrealloc(names, (*n + 1) * sizeof *names);
            names[(*n)++] = rt_strndup(e->d_name, len - 5);
        }
    }
    closedir(d);
    if (*n)
        qsort(names, *n, sizeof *names, cmp_str);
    return names;
}
