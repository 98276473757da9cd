/* Profile files: JSON in and out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "identity-json.h"
#include "json-emit.h"
#include "json-write.h"
#include "rooftime/util/atomic-file.h"
#include "profile-json-fast.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/util/error.h"
#include "rooftime/util/read-file.h"

static const char *const top_known[] = {"schema",     "source",   "tags", "kernels",
                                        "provenance", "identity", NULL};
static const char *const source_known[] = {"tool", "version",  "command", "machine", "method",
                                           "time", "overhead", "bytes",   "threads", NULL};

/* {"name": number >= 0, ...} */
static int read_values(rt_jr *r, const json_t *obj, const char *path, const char *key,
                       rt_values *out)
{
    const json_t *o;
    if (rt_jr_member_object(r, obj, path, key, false, &o) != 0)
        return -1;
    if (!o)
        return 0;
    char sub[128];
    snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", key);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v)
    {
        double d = 0;
        if (rt_jr_number(r, o, sub, k, true, 0, &d) != 0)
            return -1;
        rt_values_set(out, k, d);
    }
    return 0;
}

/* {"name": "string" | number, ...}: numbers become their shortest text. */
static int read_tags_member(rt_jr *r, const json_t *obj, const char *path, const char *member,
                            rt_tags *out)
{
    const json_t *o;
    if (rt_jr_member_object(r, obj, path, member, false, &o) != 0)
        return -1;
    if (!o)
        return 0;
    char sub[128];
    snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "." : "", member);
    if (json_object_size(o) > RT_MAX_TAGS) {
        rt_jr_fail(r, path, member, "%zu tags, more than the limit of %d", json_object_size(o),
                   RT_MAX_TAGS);
        return -1;
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v)
    {
        if (json_is_string(v)) {
            rt_tags_set(out, k, json_string_value(v));
        } else if (json_is_number(v) && isfinite(json_number_value(v))) {
            char buf[64];
            snprintf(buf, sizeof buf, "%.17g", json_number_value(v));
            rt_tags_set(out, k, buf);
        } else {
            rt_jr_fail(r, sub, k, "expected a string or a number");
            return -1;
        }
    }
    return 0;
}

static int read_tags(rt_jr *r, const json_t *obj, const char *path, rt_tags *out)
{
    return read_tags_member(r, obj, path, "tags", out);
}

/* "provenance": {"inputs": [...], "launches": n, "formulas": {...}, "notes": {...},
 * "kernel_time_sum": {...}}, every member optional. */
static int read_provenance(rt_jr *r, const json_t *j, rt_provenance *pv)
{
    const json_t *o, *inputs;
    if (rt_jr_member_object(r, j, "", "provenance", false, &o) != 0)
        return -1;
    if (!o)
        return 0;
    if (rt_jr_array(r, o, "provenance", "inputs", false, &inputs) != 0)
        return -1;
    for (size_t i = 0; inputs && i < json_array_size(inputs); i++) {
        const json_t *v = json_array_get(inputs, i);
        if (!json_is_string(v)) {
            rt_jr_fail(r, "provenance", "inputs", "expected strings");
            return -1;
        }
        rt_provenance_add_input(pv, json_string_value(v));
    }
    if (rt_jr_number(r, o, "provenance", "launches", false, 0, &pv->launches) != 0 ||
        read_tags_member(r, o, "provenance", "formulas", &pv->formulas) != 0 ||
        read_tags_member(r, o, "provenance", "notes", &pv->notes) != 0 ||
        read_values(r, o, "provenance", "kernel_time_sum", &pv->kernel_time_sum) != 0)
        return -1;
    return 0;
}

/* "time_spread": {"n": .., "median": .., "q1": .., "q3": ..}, seconds per invocation; absent:
 * unknown. */
static int read_spread(rt_jr *r, const json_t *j, const char *path, rt_kernel *k)
{
    const json_t *o;
    if (rt_jr_member_object(r, j, path, "time_spread", false, &o) != 0)
        return -1;
    if (!o)
        return 0;
    char sub[96];
    snprintf(sub, sizeof sub, "%s.time_spread", path);
    rt_time_spread s = {0};
    if (rt_jr_number(r, o, sub, "n", true, 0, &s.n) != 0 ||
        rt_jr_number(r, o, sub, "median", true, 0, &s.median) != 0 ||
        rt_jr_number(r, o, sub, "q1", true, 0, &s.q1) != 0 ||
        rt_jr_number(r, o, sub, "q3", true, 0, &s.q3) != 0)
        return -1;
    const char *field, *why;
    if (rt_time_spread_check(&s, &field, &why) != 0) {
        rt_jr_fail(r, sub, field, "kernel '%.80s': %s %s", k->name, field, why);
        return -1;
    }
    k->spread = s;
    return 0;
}

/* "overhead": the overhead its calls pay (a machine overhead's name or "none"), "overhead_threads":
 * a whole number of threads, only beside a name; absent: the profile's. */
static int read_overhead(rt_jr *r, const json_t *j, const char *path, rt_kernel *k)
{
    char *name = NULL;
    double threads = 0;
    if (rt_jr_string(r, j, path, "overhead", false, &name) != 0 ||
        rt_jr_number(r, j, path, "overhead_threads", false, 0, &threads) != 0) {
        free(name);
        return -1;
    }
    const char *why = NULL, *key = "overhead";
    if (name && !*name)
        why = "is empty: name one of the machine's overheads, or 'none'";
    else if (threads != floor(threads) || threads > RT_OVERHEAD_MAX_THREADS)
        why = "is not a whole number of threads from 0 to 65536", key = "overhead_threads";
    else if (!name && threads > 0)
        why = "needs an overhead beside it", key = "overhead_threads";
    if (why) {
        rt_jr_fail(r, path, key, "kernel '%.80s': %s %s", k->name, key, why);
        free(name);
        return -1;
    }
    k->overhead = name;
    k->overhead_threads = (int)threads;
    return 0;
}

static int read_kernel(rt_jr *r, rt_profile *p, const json_t *j, size_t i)
{
    char path[64];
    snprintf(path, sizeof path, "kernels[%zu]", i);
    if (rt_jr_object(r, j, path) != 0)
        return -1;
    char *name = NULL;
    if (rt_jr_string(r, j, path, "name", true, &name) != 0)
        return -1;
    if (strlen(name) > RT_MAX_NAME) {
        free(name);
        rt_jr_fail(r, path, "name", "longer than the limit of %zu bytes", RT_MAX_NAME);
        return -1;
    }
    rt_kernel *k = rt_profile_add_kernel(p, name);
    free(name);
    if (rt_jr_number(r, j, path, "invocations", true, 0, &k->invocations) != 0 ||
        rt_jr_number(r, j, path, "time", true, 0, &k->time) != 0 ||
        rt_jr_number(r, j, path, "working_set", false, 0, &k->working_set) != 0 ||
        read_values(r, j, path, "flops", &k->flops) != 0 ||
        read_values(r, j, path, "bytes", &k->bytes) != 0 || read_tags(r, j, path, &k->tags) != 0 ||
        read_spread(r, j, path, k) != 0 || read_overhead(r, j, path, k) != 0)
        return -1;
    return 0;
}

/* source.bytes ("measured" or "estimated") and source.threads (a count). */
static int read_bytes_threads(rt_jr *r, const json_t *src, rt_profile *p)
{
    char *bytes = NULL;
    if (rt_jr_string(r, src, "source", "bytes", false, &bytes) != 0)
        return -1;
    rt_error berr;
    int rc = bytes && rt_bytes_kind_parse(bytes, &p->bytes_kind, &berr) != 0 ? -1 : 0;
    free(bytes);
    if (rc != 0) {
        rt_jr_fail(r, "source", "bytes", "%s", berr.msg);
        return -1;
    }
    double t = 0;
    if (rt_jr_number(r, src, "source", "threads", false, 0, &t) != 0)
        return -1;
    if (t != floor(t) || t > RT_MAX_THREADS || (json_object_get(src, "threads") && t < 1)) {
        rt_jr_fail(r, "source", "threads", "%g is not a thread count (1 to %d)", t, RT_MAX_THREADS);
        return -1;
    }
    p->threads = (int)t;
    return 0;
}

int rt_profile_from_json(const json_t *j, const rt_json_src *from, rt_profile **out, rt_error *err)
{
    rt_jr r = {*from, err};
    *out = NULL;
    if (rt_jr_object(&r, j, "") != 0 || rt_jr_schema(&r, j, RT_PROFILE_SCHEMA) != 0)
        return -1;
    rt_profile *p = rt_profile_new();
    const json_t *src, *kernels;
    if (rt_jr_member_object(&r, j, "", "source", false, &src) != 0 ||
        rt_jr_array(&r, j, "", "kernels", true, &kernels) != 0 ||
        read_tags(&r, j, "", &p->tags) != 0 || rt_identity_read(&r, j, &p->identity) != 0)
        goto fail;
    if (src) {
        if (rt_jr_string(&r, src, "source", "tool", false, &p->tool) != 0 ||
            rt_jr_string(&r, src, "source", "version", false, &p->version) != 0 ||
            rt_jr_string(&r, src, "source", "command", false, &p->command) != 0 ||
            rt_jr_string(&r, src, "source", "machine", false, &p->machine) != 0 ||
            rt_jr_string(&r, src, "source", "method", false, &p->method) != 0 ||
            rt_jr_string(&r, src, "source", "overhead", false, &p->overhead) != 0)
            goto fail;
        char *time = NULL;
        if (rt_jr_string(&r, src, "source", "time", false, &time) != 0)
            goto fail;
        rt_error terr;
        if (time && rt_time_kind_parse(time, &p->time_kind, &terr) != 0) {
            rt_jr_fail(&r, "source", "time", "%s", terr.msg);
            free(time);
            goto fail;
        }
        free(time);
        if (read_bytes_threads(&r, src, p) != 0)
            goto fail;
    }
    /* Values whose sums overflow are refused here, naming the kernel and field, not summed into
     * `inf s` totals and `-nan%` shares later. */
    rt_profile_sums sums = {0};
    for (size_t i = 0; i < json_array_size(kernels); i++) {
        if (read_kernel(&r, p, json_array_get(kernels, i), i) != 0)
            goto fail;
        char path[64], field[160];
        rt_error why;
        const rt_kernel *k = &p->kernels[p->n_kernels - 1];
        if (rt_profile_sums_add(&sums, k, field, sizeof field, &why) != 0) {
            snprintf(path, sizeof path, "kernels[%zu]", i);
            rt_jr_fail(&r, path, field, "kernel '%.80s': %s", k->name, why.msg);
            goto fail;
        }
    }
    if (read_provenance(&r, j, &p->provenance) != 0)
        goto fail;
    /* What this version does not know goes through untouched (opaque to the core). */
    json_t *x = rt_json_extra(j, top_known);
    json_t *sx = src ? rt_json_extra(src, source_known) : NULL;
    if (sx) {
        if (!x)
            x = json_object();
        json_object_set_new(x, "source", sx);
    }
    p->unknown_json = rt_json_opaque_text(x);
    *out = p;
    return 0;
fail:
    rt_profile_free(p);
    return -1;
}

static json_t *values_json(const rt_values *vs)
{
    json_t *o = json_object();
    for (size_t i = 0; i < vs->n; i++)
        json_object_set_new(o, vs->v[i].key, rt_json_num(vs->v[i].value));
    return o;
}

static json_t *tags_json(const rt_tags *ts)
{
    json_t *o = json_object();
    for (size_t i = 0; i < ts->n; i++)
        json_object_set_new(o, ts->v[i].key, json_string(ts->v[i].value));
    return o;
}

static json_t *provenance_json(const rt_provenance *pv)
{
    if (!pv->n_inputs && !pv->launches && !pv->formulas.n && !pv->notes.n && !pv->kernel_time_sum.n)
        return NULL;
    json_t *o = json_object();
    if (pv->n_inputs) {
        json_t *a = json_array();
        for (size_t i = 0; i < pv->n_inputs; i++)
            json_array_append_new(a, json_string(pv->inputs[i]));
        json_object_set_new(o, "inputs", a);
    }
    if (pv->launches)
        json_object_set_new(o, "launches", rt_json_num(pv->launches));
    if (pv->formulas.n)
        json_object_set_new(o, "formulas", tags_json(&pv->formulas));
    if (pv->notes.n)
        json_object_set_new(o, "notes", tags_json(&pv->notes));
    if (pv->kernel_time_sum.n)
        json_object_set_new(o, "kernel_time_sum", values_json(&pv->kernel_time_sum));
    return o;
}

/* The members before the kernels: schema, source (with the unknown members of its own that a
 * loaded profile kept), identity, tags. */
static json_t *head_json(const rt_profile *p, const json_t *unknown)
{
    json_t *j = json_object();
    json_object_set_new(j, "schema", json_string(RT_PROFILE_SCHEMA));
    json_t *src = json_object();
    const char *fields[] = {"tool", "version", "command", "machine", "method", "time", "overhead"};
    const char *vals[] = {p->tool,    p->version,
                          p->command, p->machine,
                          p->method,  p->time_kind ? rt_time_kind_name(p->time_kind) : NULL,
                          p->overhead};
    for (int i = 0; i < 7; i++)
        if (vals[i])
            json_object_set_new(src, fields[i], json_string(vals[i]));
    if (p->bytes_kind != RT_BYTES_MEASURED) /* absent: as recorded, measured */
        json_object_set_new(src, "bytes", json_string(rt_bytes_kind_name(p->bytes_kind)));
    if (p->threads > 0)
        json_object_set_new(src, "threads", json_integer(p->threads));
    rt_json_merge_extra(src, json_object_get(unknown, "source"));
    json_object_set_new(j, "source", src);
    if (p->identity)
        json_object_set_new(j, "identity", rt_identity_to_json(p->identity));
    if (p->tags.n)
        json_object_set_new(j, "tags", tags_json(&p->tags));
    return j;
}

static void values_emit(rt_jw *w, const char *key, const rt_values *vs)
{
    rt_jw_key(w, key);
    rt_jw_object(w);
    for (size_t i = 0; i < vs->n; i++) {
        rt_jw_key(w, vs->v[i].key);
        rt_jw_num(w, vs->v[i].value);
    }
    rt_jw_close(w);
}

/* Kernel i of a profile (rt_json_emit_fn), written without a tree: a million-kernel save spent
 * most of its time building and dumping one per kernel. */
static void kernel_emit(void *ctx, size_t i, rt_jw *w)
{
    const rt_kernel *k = &((const rt_profile *)ctx)->kernels[i];
    rt_jw_object(w);
    rt_jw_member_string(w, "name", k->name);
    rt_jw_key(w, "invocations");
    rt_jw_num(w, k->invocations);
    rt_jw_member_real(w, "time", k->time);
    if (k->spread.n > 0) {
        rt_jw_key(w, "time_spread");
        rt_jw_object(w);
        rt_jw_key(w, "n");
        rt_jw_num(w, (double)k->spread.n);
        rt_jw_member_real(w, "median", k->spread.median);
        rt_jw_member_real(w, "q1", k->spread.q1);
        rt_jw_member_real(w, "q3", k->spread.q3);
        rt_jw_close(w);
    }
    if (k->overhead) {
        rt_jw_member_string(w, "overhead", k->overhead);
        if (k->overhead_threads > 0) {
            rt_jw_key(w, "overhead_threads");
            rt_jw_num(w, k->overhead_threads);
        }
    }
    if (k->working_set > 0)
        rt_jw_member_real(w, "working_set", k->working_set);
    values_emit(w, "flops", &k->flops);
    values_emit(w, "bytes", &k->bytes);
    if (k->tags.n) {
        rt_jw_key(w, "tags");
        rt_jw_object(w);
        for (size_t t = 0; t < k->tags.n; t++)
            rt_jw_member_string(w, k->tags.v[t].key, k->tags.v[t].value);
        rt_jw_close(w);
    }
    rt_jw_close(w);
}

/* The members after the kernels: provenance, then what this version does not know, kept from a
 * loaded profile (none that head or the kernels hold). */
static json_t *tail_json(const rt_profile *p, const json_t *unknown, const json_t *head)
{
    json_t *j = json_object();
    json_t *pv = provenance_json(&p->provenance);
    if (pv)
        json_object_set_new(j, "provenance", pv);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)unknown, key, v)
    {
        if (strcmp(key, "source") != 0 && strcmp(key, "kernels") != 0 &&
            !json_object_get(head, key) && !json_object_get(j, key))
            json_object_set(j, key, v);
    }
    return j;
}

/* The tree of the text rt_profile_write_json writes: one definition of the layout. */
json_t *rt_profile_to_json(const rt_profile *p)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    if (!fp)
        return NULL;
    int rc = rt_profile_write_json(p, fp);
    json_t *j = NULL;
    if (fclose(fp) == 0 && rc == 0)
        j = json_loadb(text, len, 0, NULL);
    free(text);
    return j;
}

/* A profile from its JSON text (name: for errors): the direct reader for what rooftime writes;
 * anything else, errors included, through jansson (profile-json-fast.h). */
static int read_text(const char *text, size_t len, const char *name, rt_profile **out,
                     rt_error *err)
{
    json_t *j;
    *out = NULL;
    if (rt_profile_json_fast(text, len, out) == 0) {
        /* The load-time checks (sums that overflow, profile-sums.c) are rt_profile_from_json's:
         * a profile that fails them is read again through jansson, which names kernel and field. */
        rt_error chk = {0};
        if (rt_profile_check(*out, &chk) == 0)
            return 0;
        rt_profile_free(*out);
        *out = NULL;
    }
    if (rt_json_load_text(text, len, name, &j, err) != 0)
        return -1;
    /* The text stays until the fields are read: an error names the line of its field. */
    int rc = rt_profile_from_json(j, &(rt_json_src){name, text, len}, out, err);
    json_decref(j);
    return rc;
}

int rt_profile_load(const char *path, rt_profile **out, rt_error *err)
{
    *out = NULL;
    rt_text t;
    if (rt_text_load(path, RT_MAX_TEXT_INPUT, &t, err) != 0)
        return -1;
    int rc = read_text(t.s, t.len, path, out, err);
    rt_text_release(&t);
    return rc;
}

int rt_profile_copy(const rt_profile *p, rt_profile **out, rt_error *err)
{
    char *text = NULL;
    size_t len = 0;
    *out = NULL;
    FILE *fp = open_memstream(&text, &len);
    if (!fp) {
        rt_error_set(err, "cannot copy a profile: out of memory");
        return -1;
    }
    int rc = rt_profile_write_json(p, fp);
    if (fclose(fp) != 0 || rc != 0) {
        free(text);
        rt_error_set(err, "cannot copy a profile: writing its JSON failed");
        return -1;
    }
    rc = read_text(text, len, "a profile", out, err);
    free(text);
    return rc;
}

/* A member and a kernel at a time (rt_json_stream): a million kernels never stand as one tree
 * (saving one took 3.8 GB and 30 s that way). */
int rt_profile_write_json(const rt_profile *p, FILE *fp)
{
    rt_json_stream s;
    rt_json_stream_begin(&s, fp, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_t *unknown = rt_json_opaque_parse(p->unknown_json);
    json_t *head = head_json(p, unknown);
    rt_json_stream_members(&s, head);
    rt_json_stream_list_emit(&s, "kernels", p->n_kernels, kernel_emit, (void *)p);
    json_t *tail = tail_json(p, unknown, head);
    rt_json_stream_members(&s, tail);
    json_decref(tail);
    json_decref(head);
    json_decref(unknown);
    return rt_json_stream_end(&s);
}

int rt_profile_save(const rt_profile *p, const char *path, rt_error *err)
{
    /* Never write a file that rooftime would refuse to load. */
    if (rt_profile_check(p, err) != 0) {
        rt_error_prefix(err, "cannot write '%s'", path);
        return -1;
    }
    rt_atomic_file af;
    if (rt_atomic_open(&af, path, err) != 0)
        return -1;
    if (rt_profile_write_json(p, af.fp) != 0) {
        rt_error_set(err, "cannot write '%s': JSON encoding or writing failed", path);
        rt_atomic_abort(&af);
        return -1;
    }
    return rt_atomic_commit(&af, err);
}
