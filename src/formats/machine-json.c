/* Machine files: JSON in and out, presets by name. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpu-measurement-json.h"
#include "identity-json.h"
#include "job-json.h"
#include "json-write.h"
#include "measurement-json.h"
#include "rooftime/core/machine.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/util/data-file.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static const char *const top_known[] = {"schema",    "name",     "source",    "method",
                                        "units",     "levels",   "overheads", "launch_overhead",
                                        "reference", "identity", "link",      NULL};

/* "derivation": {"factor": number, ..., "_note": "text"}: numbers multiply to the unit's figure,
 * members starting with '_' document them. */
static int read_derivation(rt_jr *r, const json_t *d, const char *path, rt_unit *u)
{
    char sub[96];
    snprintf(sub, sizeof sub, "%s.derivation", path);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)d, key, v)
    {
        if (key[0] == '_' && json_is_string(v)) {
            rt_tags_set(&u->derivation_notes, key, json_string_value(v));
        } else if (key[0] != '_' && json_is_number(v) && isfinite(json_number_value(v))) {
            rt_values_set(&u->derivation, key, json_number_value(v));
        } else {
            rt_jr_fail(r, sub, key, key[0] == '_' ? "expected a string" : "expected a number");
            return -1;
        }
    }
    return 0;
}

/* "overheads": [{"name", "threads", "seconds", "min", "max", "method"}] */
static int read_overheads(rt_jr *r, rt_machine *m, const json_t *j)
{
    const json_t *arr;
    if (rt_jr_array(r, j, "", "overheads", false, &arr) != 0)
        return -1;
    for (size_t i = 0; arr && i < json_array_size(arr); i++) {
        const json_t *o = json_array_get(arr, i);
        char path[64];
        snprintf(path, sizeof path, "overheads[%zu]", i);
        char *name = NULL, *method = NULL;
        double threads = 0;
        rt_spread sec = {0, 0, 0};
        int bad = rt_jr_object(r, o, path) != 0 ||
                  rt_jr_string(r, o, path, "name", true, &name) != 0 ||
                  rt_jr_number(r, o, path, "threads", false, 0, &threads) != 0 ||
                  rt_jr_number(r, o, path, "seconds", true, 0, &sec.median) != 0 ||
                  rt_jr_number(r, o, path, "min", false, 0, &sec.min) != 0 ||
                  rt_jr_number(r, o, path, "max", false, 0, &sec.max) != 0 ||
                  rt_jr_string(r, o, path, "method", false, &method) != 0;
        if (!bad && threads > 1e6) {
            rt_jr_fail(r, path, "threads", "%g is not a thread count", threads);
            bad = 1;
        }
        if (!bad)
            rt_machine_add_overhead(m, name, (int)threads, sec, method);
        free(name);
        free(method);
        if (bad)
            return -1;
    }
    return 0;
}

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
        rt_jr_number(r, j, path, "typical", false, 0, &u->typical) != 0 ||
        rt_jr_number(r, j, path, "theoretical", false, 0, &u->theoretical) != 0 ||
        rt_jr_string(r, j, path, "note", false, &u->note) != 0 ||
        rt_jr_member_object(r, j, path, "derivation", false, &d) != 0)
        return -1;
    if (d && read_derivation(r, d, path, u) != 0)
        return -1;
    return 0;
}

/* An optional count (a whole number, 1 to 2^24; absent: 0). */
static int read_count(rt_jr *r, const json_t *j, const char *path, const char *key, int *out)
{
    double v = 0;
    if (rt_jr_number(r, j, path, key, false, 0, &v) != 0)
        return -1;
    if (v != floor(v) || v > 16777216 || (json_object_get(j, key) && v < 1)) {
        rt_jr_fail(r, path, key, "%g is not a count (a whole number from 1 to 2^24)", v);
        return -1;
    }
    *out = (int)v;
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
        rt_jr_number(r, j, path, "typical", false, 0, &l->typical) != 0 ||
        rt_jr_number(r, j, path, "size_bytes", false, 0, &l->size_bytes) != 0 ||
        rt_jr_string(r, j, path, "note", false, &l->note) != 0 ||
        read_count(r, j, path, "shared_by", &l->shared_by) != 0 ||
        read_count(r, j, path, "instances", &l->instances) != 0 ||
        rt_jr_string(r, j, path, "size_source", false, &l->size_source) != 0 ||
        rt_jr_number(r, j, path, "swept_bytes", false, 0, &l->swept_bytes) != 0 ||
        read_count(r, j, path, "swept_threads", &l->swept_threads) != 0)
        return -1;
    if (l->size_bytes > RT_MAX_CAPACITY || l->swept_bytes > RT_MAX_CAPACITY) {
        rt_jr_fail(r, path, l->size_bytes > RT_MAX_CAPACITY ? "size_bytes" : "swept_bytes",
                   "%g bytes is beyond any memory (at most 2^64)",
                   fmax(l->size_bytes, l->swept_bytes));
        return -1;
    }
    return 0;
}

int rt_machine_from_json(const json_t *j, const rt_json_src *src, rt_machine **out, rt_error *err)
{
    rt_jr r = {*src, err};
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
    if (read_overheads(&r, m, j) != 0 || rt_identity_read(&r, j, &m->identity) != 0)
        goto fail;
    /* "link": {"name", "bytes_per_s"}: what communication kernels are judged against. */
    const json_t *link;
    if (rt_jr_member_object(&r, j, "", "link", false, &link) != 0)
        goto fail;
    if (link && (rt_jr_number(&r, link, "link", "bytes_per_s", true, 0, &m->link_bw) != 0 ||
                 rt_jr_string(&r, link, "link", "name", false, &m->link_name) != 0))
        goto fail;
    /* A measurement record read back, and what other tools add, go through untouched; its run
     * counts feed the sanity rules. */
    const json_t *meas = json_object_get(j, "measurement");
    if (json_is_object(meas)) {
        const json_t *tr = json_object_get(meas, "timed_runs");
        const json_t *dr = json_object_get(meas, "disturbed_runs");
        if (json_is_integer(tr) && json_is_integer(dr) && json_integer_value(tr) > 0 &&
            json_integer_value(dr) >= 0 && json_integer_value(dr) <= json_integer_value(tr)) {
            m->timed_runs = (long)json_integer_value(tr);
            m->disturbed_runs = (long)json_integer_value(dr);
        }
    }
    m->unknown_json = rt_json_opaque_text(rt_json_extra(j, top_known));
    if (rt_machine_check(m, err) != 0) {
        rt_error_prefix(err, "cannot read '%s'", src->name);
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
        set_pos(o, "typical", u->typical);
        set_pos(o, "theoretical", u->theoretical);
        set_str(o, "note", u->note);
        if (u->derivation.n || u->derivation_notes.n) {
            json_t *d = json_object();
            for (size_t f = 0; f < u->derivation.n; f++)
                json_object_set_new(d, u->derivation.v[f].key,
                                    rt_json_num(u->derivation.v[f].value));
            for (size_t f = 0; f < u->derivation_notes.n; f++)
                json_object_set_new(d, u->derivation_notes.v[f].key,
                                    json_string(u->derivation_notes.v[f].value));
            json_object_set_new(o, "derivation", d);
        }
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
        set_pos(o, "typical", l->typical);
        set_pos(o, "size_bytes", l->size_bytes);
        set_str(o, "note", l->note);
        if (l->shared_by > 0)
            json_object_set_new(o, "shared_by", json_integer(l->shared_by));
        if (l->instances > 0)
            json_object_set_new(o, "instances", json_integer(l->instances));
        set_str(o, "size_source", l->size_source);
        set_pos(o, "swept_bytes", l->swept_bytes);
        if (l->swept_threads > 0)
            json_object_set_new(o, "swept_threads", json_integer(l->swept_threads));
        json_array_append_new(levels, o);
    }
    json_object_set_new(j, "levels", levels);
    if (m->n_overheads) {
        json_t *arr = json_array();
        for (size_t i = 0; i < m->n_overheads; i++) {
            const rt_overhead *x = &m->overheads[i];
            json_t *o = json_object();
            set_str(o, "name", x->name);
            if (x->threads > 0)
                json_object_set_new(o, "threads", json_integer(x->threads));
            json_object_set_new(o, "seconds", json_real(x->seconds.median));
            set_pos(o, "min", x->seconds.min);
            set_pos(o, "max", x->seconds.max);
            set_str(o, "method", x->method);
            json_array_append_new(arr, o);
        }
        json_object_set_new(j, "overheads", arr);
    }
    json_t *oh = json_object();
    json_object_set_new(oh, "seconds", json_real(m->tau));
    set_str(oh, "method", m->tau_method);
    json_object_set_new(j, "launch_overhead", oh);
    json_t *ref = json_object();
    set_str(ref, "unit", m->ref_unit);
    set_str(ref, "level", m->ref_level);
    json_object_set_new(j, "reference", ref);
    if (m->link_bw > 0) {
        json_t *link = json_object();
        set_str(link, "name", m->link_name);
        json_object_set_new(link, "bytes_per_s", rt_json_num(m->link_bw));
        json_object_set_new(j, "link", link);
    }
    if (m->identity)
        json_object_set_new(j, "identity", rt_identity_to_json(m->identity));
    if (m->measurement)
        json_object_set_new(j, "measurement", rt_measurement_to_json(m->measurement));
    if (m->gpu)
        json_object_set_new(j, "gpu", rt_gpu_measurement_to_json(m->gpu));
    if (m->job) /* written, and read back as an opaque member */
        json_object_set_new(j, "job", rt_job_to_json(m->job));
    json_t *unknown = rt_json_opaque_parse(m->unknown_json);
    rt_json_merge_extra(j, unknown);
    json_decref(unknown);
    return j;
}

int rt_machine_load(const char *path, rt_machine **out, rt_error *err)
{
    *out = NULL;
    rt_data_file f; /* presets are data files; a measured machine file is read alike */
    if (rt_data_file_load(&f, path, NULL, NULL, err) != 0)
        return -1;
    rt_json_src src = rt_data_file_src(&f);
    int rc = rt_machine_from_json(f.root, &src, out, err);
    rt_data_file_release(&f);
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
