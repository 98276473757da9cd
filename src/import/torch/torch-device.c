/* PyTorch GPU traces, the GPU named: the trace's deviceProperties (name, SMs or CUs, compute
 * capability, wavefront, memory) against the rows of data/gpu/devices.json, which say which
 * machine preset has that device's rates; the trace's distributedInfo as the profile's rank. */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/data-file.h"
#include "rooftime/util/strings.h"
#include "torch-internal.h"

/* What the trace says of one device; numbers < 0 when it does not say. */
typedef struct device {
    const char *name;
    double sms, major, minor, warp, gib;
} device;

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) && json_number_value(v) >= 0 ? json_number_value(v) : -1;
}

/* The entry of deviceProperties for device d: the one whose "id" is d, else the d-th. */
static const json_t *entry_of(const json_t *props, uint32_t d)
{
    if (!json_is_array(props))
        return NULL;
    size_t i;
    const json_t *o;
    json_array_foreach(props, i, o)
    {
        if (json_is_object(o) && num(o, "id") == (double)d)
            return o;
    }
    o = json_array_get(props, d);
    return json_is_object(o) ? o : NULL;
}

static device read_device(const json_t *o)
{
    device dv = {json_string_value(json_object_get(o, "name")),
                 num(o, "numSms"),
                 num(o, "computeMajor"),
                 num(o, "computeMinor"),
                 num(o, "warpSize"),
                 -1};
    double mem = num(o, "totalGlobalMem");
    dv.gib = mem >= 0 ? mem / (1024.0 * 1024 * 1024) : -1;
    return dv;
}

/* "AMD Radeon Graphics: 104 CUs, GFX IP 9.0, wavefront 64, 64.0 GiB" */
static void describe(const device *dv, char *buf, size_t n)
{
    int amd = dv->warp == 64;
    int k = snprintf(buf, n, "%.120s", dv->name ? dv->name : "a GPU");
    const char *sep = ": ";
    if (dv->sms >= 0 && k >= 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, "%s%.0f %s", sep, dv->sms, amd ? "CUs" : "SMs"),
            sep = ", ";
    if (dv->major >= 0 && k >= 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, "%s%s %.0f.%.0f", sep,
                      amd ? "GFX IP" : "compute capability", dv->major,
                      dv->minor >= 0 ? dv->minor : 0),
            sep = ", ";
    if (dv->warp >= 0 && k >= 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, "%s%s %.0f", sep, amd ? "wavefront" : "warp",
                      dv->warp),
            sep = ", ";
    if (dv->gib >= 0 && k >= 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, "%s%.1f GiB", sep, dv->gib);
}

/* Whether row o of devices.json (path: its JSON path) matches dv; -1 on a malformed row. */
static int row_matches(rt_jr *jr, const json_t *o, const char *path, const device *dv)
{
    char *glob = NULL, *cc = NULL;
    double sms = -1, warp = -1;
    const json_t *mem = NULL;
    if (rt_jr_object(jr, o, path) != 0 || rt_jr_string(jr, o, path, "name", false, &glob) != 0 ||
        rt_jr_string(jr, o, path, "cc", false, &cc) != 0 ||
        rt_jr_number(jr, o, path, "sms", false, 1, &sms) != 0 ||
        rt_jr_number(jr, o, path, "warp", false, 1, &warp) != 0 ||
        rt_jr_array(jr, o, path, "memory_gib", false, &mem) != 0) {
        free(glob);
        free(cc);
        return -1;
    }
    if (mem && !(json_array_size(mem) == 2 && json_is_number(json_array_get(mem, 0)) &&
                 json_is_number(json_array_get(mem, 1)))) {
        rt_jr_fail(jr, path, "memory_gib", "expected [lowest, highest]");
        free(glob);
        free(cc);
        return -1;
    }
    int ok = 1;
    if (glob)
        ok &= dv->name && fnmatch(glob, dv->name, 0) == 0;
    if (cc) {
        char have[48];
        snprintf(have, sizeof have, "%.0f.%.0f", dv->major, dv->minor);
        ok &= dv->major >= 0 && dv->minor >= 0 && strcmp(cc, have) == 0;
    }
    if (sms >= 0)
        ok &= dv->sms == sms;
    if (warp >= 0)
        ok &= dv->warp == warp;
    if (mem)
        ok &= dv->gib >= json_number_value(json_array_get(mem, 0)) &&
              dv->gib <= json_number_value(json_array_get(mem, 1));
    free(glob);
    free(cc);
    return ok;
}

/* The preset of dv from data/gpu/devices.json into *preset (heap; NULL: none). */
static int find_preset(const device *dv, char **preset, rt_error *err)
{
    *preset = NULL;
    rt_data_file f;
    if (rt_data_file_load(&f, NULL, "gpu/devices.json", "rooftime.gpu-devices/1", err) != 0)
        return -1;
    rt_jr jr = {rt_data_file_src(&f), err};
    const json_t *arr;
    int rc = rt_jr_array(&jr, f.root, "", "devices", true, &arr);
    for (size_t i = 0; rc == 0 && i < json_array_size(arr); i++) {
        char path[48];
        snprintf(path, sizeof path, "devices[%zu]", i);
        const json_t *o = json_array_get(arr, i);
        int m = row_matches(&jr, o, path, dv);
        char *name = NULL;
        if (m < 0 || rt_jr_string(&jr, o, path, "preset", true, &name) != 0)
            rc = -1;
        else if (m > 0 && !*preset)
            *preset = name;
        else
            free(name);
    }
    rt_data_file_release(&f);
    if (rc != 0) {
        free(*preset);
        *preset = NULL;
    }
    return rc;
}

void rt_torch_note_rank(const reader *r, rt_profile *p)
{
    const json_t *d = r->gpu.dist_info;
    double rank = json_is_object(d) ? num(d, "rank") : -1;
    double size = json_is_object(d) ? num(d, "world_size") : -1;
    if (!(rank >= 0 && rank < RT_MAX_RANKS && rank == floor(rank)))
        return;
    rt_rank_identity *id = rt_xmalloc(sizeof *id);
    rt_rank_identity_init(id);
    id->rank = (long)rank;
    id->size = size > rank && size <= RT_MAX_RANKS && size == floor(size) ? (long)size : -1;
    char dev[16];
    snprintf(dev, sizeof dev, "%u", r->gpu.device);
    id->device = rt_strdup(dev);
    rt_rank_identity_free(p->identity);
    p->identity = id;
    const char *backend = json_string_value(json_object_get(d, "backend"));
    if (backend)
        rt_tags_set(&p->provenance.notes, "torch_distributed_backend", backend);
}

int rt_torch_device_describe(const reader *r, rt_profile *p, rt_warnings *w, rt_error *err)
{
    rt_torch_note_rank(r, p);
    const json_t *o = entry_of(r->gpu.device_props, r->gpu.device);
    if (!o) {
        rt_warnings_add(w,
                        "'%s': the trace names no GPU (no deviceProperties for device %u), so no "
                        "preset is chosen: analyze it against the machine it ran on (rooftime "
                        "machine list, or a measured machine file)",
                        r->origin, r->gpu.device);
        return 0;
    }
    device dv = read_device(o);
    char what[512];
    describe(&dv, what, sizeof what);
    free(p->machine);
    p->machine = rt_strdup_utf8(what);
    char *preset;
    if (find_preset(&dv, &preset, err) != 0)
        return -1;
    if (preset) {
        rt_tags_set(&p->provenance.notes, "gpu_preset", preset);
        free(preset);
    } else {
        rt_warnings_add(w,
                        "'%s': no preset for this GPU (%s) in data/gpu/devices.json: analyze it "
                        "against a machine file of its rates (rooftime machine list, or measure "
                        "it)",
                        r->origin, what);
    }
    return 0;
}
