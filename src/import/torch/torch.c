/* Import PyTorch profiler chrome traces: operators by self time, GPU kernels, FLOPs from args. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "torch-cost-args.h"
#include "torch-internal.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/import-check.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/error.h"
#include "rooftime/util/gzip-text.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/read-file.h"
#include "rooftime/util/strings.h"

/* Advance pos to p, keeping line and column. */
static void advance(reader *r, size_t p)
{
    for (; r->pos < p; r->pos++) {
        if (r->buf[r->pos] == '\n') {
            r->line++;
            r->col = 1;
        } else if (((unsigned char)r->buf[r->pos] & 0xC0) != 0x80) {
            r->col++;
        }
    }
}

static void skip_ws(reader *r)
{
    size_t p = r->pos;
    while (p < r->len &&
           (r->buf[p] == ' ' || r->buf[p] == '\t' || r->buf[p] == '\n' || r->buf[p] == '\r'))
        p++;
    advance(r, p);
}

static int fail_at(reader *r, const char *what)
{
    rt_error_set(r->err, "cannot read '%s': line %zu, column %zu: %s", r->origin, r->line, r->col,
                 what);
    return -1;
}

/* Decode one JSON value at pos (jansson, stopping after it); errors carry the file's line/column.
 */
static json_t *next_value(reader *r)
{
    json_error_t e;
    json_t *j = json_loadb(r->buf + r->pos, r->len - r->pos,
                           JSON_DISABLE_EOF_CHECK | JSON_DECODE_ANY | JSON_ALLOW_NUL, &e);
    if (!j) {
        size_t line = r->line + (e.line > 0 ? (size_t)e.line - 1 : 0);
        size_t col =
            e.line == 1 ? r->col + (size_t)e.column - 1 : (size_t)(e.column > 0 ? e.column : 0);
        rt_error_set(r->err, "cannot read '%s': line %zu, column %zu: %s", r->origin, line, col,
                     e.text);
        return NULL;
    }
    advance(r, r->pos + (size_t)e.position);
    return j;
}

static int is_cpu_cat(const char *cat)
{
    return !cat || strcmp(cat, "cpu_op") == 0 || strcmp(cat, "Operator") == 0 ||
           strcmp(cat, "operator") == 0;
}

static int is_gpu_cat(const char *cat)
{
    return cat && (strcmp(cat, "kernel") == 0 || strcmp(cat, "Kernel") == 0 ||
                   strcmp(cat, "gpu_memcpy") == 0 || strcmp(cat, "gpu_memset") == 0 ||
                   strcmp(cat, "Memcpy") == 0 || strcmp(cat, "Memset") == 0);
}

static int gpu_kind(const char *cat)
{
    return strstr(cat, "emcpy") ? GK_MEMCPY : strstr(cat, "emset") ? GK_MEMSET : GK_KERNEL;
}

static void push_ev(reader *r, const ev *e)
{
    if (r->n_evs == r->cap_evs) {
        r->cap_evs = r->cap_evs ? 2 * r->cap_evs : 1024;
        r->evs = rt_xrealloc(r->evs, r->cap_evs * sizeof *r->evs);
    }
    r->evs[r->n_evs++] = *e;
}

/* The name, start and duration a kept event needs, and its FLOPs when it has them: an error
 * naming the event and the field when one is missing or out of range. */
static int check_fields(reader *r, const evf *f, size_t line, size_t col)
{
    const char *name = f->name;
    const char *missing = !name ? "name" : !f->ts_ok ? "ts" : !f->dur_ok ? "dur" : NULL;
    if (missing) {
        rt_error_set(r->err,
                     "cannot read '%s': line %zu, column %zu: trace event %zu ('%s'): field '%s' "
                     "missing or not a number/string",
                     r->origin, line, col, r->n_events, name ? name : "?", missing);
        return -1;
    }
    const char *bad = !isfinite(f->ts)                                 ? "'ts' is not finite"
                      : !isfinite(f->dur) || !isfinite(f->ts + f->dur) ? "'dur' is not finite"
                      : f->dur < 0                                     ? "'dur' is negative"
                      : f->flops_ok && !(isfinite(f->flops) && f->flops >= 0)
                          ? "'args.flops' is not a finite count"
                          : NULL;
    if (bad) {
        rt_error_set(r->err,
                     "cannot read '%s': line %zu, column %zu: trace event %zu ('%s'): field %s",
                     r->origin, line, col, r->n_events, name, bad);
        return -1;
    }
    return 0;
}

/* One trace event: keep complete events of operators, GPU kernels and the `within` ranges. */
static int take_event(reader *r, const evf *f, size_t line, size_t col)
{
    r->n_events++;
    if (!f->is_object) {
        rt_error_set(r->err,
                     "cannot read '%s': line %zu, column %zu: trace event %zu is not an object",
                     r->origin, line, col, r->n_events);
        return -1;
    }
    const char *ph = f->ph, *cat = f->cat, *name = f->name;
    int runtime = cat && (strstr(cat, "runtime") || strcmp(cat, "Runtime") == 0 ||
                          strcmp(cat, "cuda_driver") == 0);
    if (!ph || strcmp(ph, "X") != 0)
        return 0; /* metadata, instants, flows, counters */
    if (runtime && f->corr_ok && f->ts_ok && f->dur_ok && isfinite(f->ts) && isfinite(f->dur) &&
        f->dur >= 0) /* the launch of a GPU event: its link to the operator (torch-gpu-link.c) */
        rt_torch_gpu_add_call(r, f->ts, f->dur, f->corr, f->ext_ok ? f->ext : -1,
                              rt_torch_intern_thread(r, f->thread));
    if (name && strcmp(name, "rooftime:window") == 0 && f->dur_ok && f->dur > r->window_us) {
        r->window_us = f->dur; /* the runner's --steps window */
        /* and how many optimizer steps it holds: a whole number from 1 up, else unknown */
        int whole =
            f->steps_ok && f->steps >= 1 && f->steps <= 1e9 && f->steps == (double)(long)f->steps;
        r->window_steps = whole ? f->steps : 0;
    }
    if (name && f->ts_ok && f->dur_ok && rt_torch_phase_mark(r, name, f->ts, f->dur))
        return 0; /* a phase mark (torch-phase.c) */
    int within = r->within && name && strcmp(name, r->within) == 0;
    int kind = within ? EV_WITHIN : is_gpu_cat(cat) ? EV_GPU : is_cpu_cat(cat) ? EV_CPU : -1;
    /* a range the cost model counts as an operator: torch.compile's compiled code */
    if (kind < 0 && r->ops && name && rt_torch_ops_annotation(r->ops, name))
        kind = EV_CPU;
    if (kind < 0 && cat && strcmp(cat, "python_function") == 0 && r->opt->by_source) {
        if (check_fields(r, f, line, col) != 0)
            return -1;
        rt_torch_pyframe_add(r, f); /* torch 2.x's Python frames: torch-pyframes.c */
        return 0;
    }
    if (kind < 0)
        return 0; /* annotations, runtime calls: not kernels */
    if (kind == EV_CPU) {
        r->n_cpu++;
        r->n_cpu_dims += f->dims != NULL;
        r->n_cpu_uncat += cat == NULL;
        r->n_cpu_flops += f->flops_ok;
    }
    if (check_fields(r, f, line, col) != 0)
        return -1;
    if (kind == EV_GPU) { /* the device side: torch-gpu-link.c */
        uint32_t key = rt_torch_intern(r, name, strlen(name), 1);
        rt_torch_gpu_add_event(r, f->ts, f->dur, f->corr_ok ? f->corr : -1,
                               f->bytes_ok ? f->bytes : -1, key, f->thread, gpu_kind(cat));
        return 0;
    }
    ev e = {0};
    e.ts = f->ts;
    e.end = f->ts + f->dur;
    e.kind = (uint8_t)kind;
    e.ext = f->ext_ok ? f->ext : -1;
    e.thread = rt_torch_intern_thread(r, f->thread);
    if (kind != EV_WITHIN) {
        if (kind == EV_CPU && (r->opt->ops || r->opt->by_source)) {
            char *source = NULL, *module = NULL;
            if (r->opt->by_source && f->stack)
                rt_torch_source_of(f->stack, &source, &module);
            /* one kernel per distinct call: what the cost model reads, and where it came from */
            char *key =
                rt_asprintf("%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", name, f->dims ? f->dims : "",
                            f->types ? f->types : "", f->concrete ? f->concrete : "",
                            source ? source : "", module ? module : "");
            size_t before = r->n_k;
            e.key = rt_torch_intern(r, key, strlen(key), 0);
            free(key);
            if (r->n_k > before) {
                kern *k = &r->k[e.key];
                k->display = f->dims ? rt_asprintf("%s %s", name, f->dims) : rt_strdup(name);
                k->dims = f->dims ? rt_strdup(f->dims) : NULL;
                k->types = f->types ? rt_strdup(f->types) : NULL;
                k->concrete = f->concrete ? rt_strdup(f->concrete) : NULL;
                k->source = source;
                k->module = module;
                k->cost_flops_arg = -2;
            } else {
                free(source);
                free(module);
            }
        } else if (kind == EV_CPU && f->dims) {
            char *key = rt_asprintf("%s %s", name, f->dims);
            e.key = rt_torch_intern(r, key, strlen(key), 0);
            free(key);
        } else {
            e.key = rt_torch_intern(r, name, strlen(name), kind == EV_GPU);
        }
        if (f->flops_ok && f->flops > 0) {
            e.flops = f->flops;
            r->k[e.key].unit = f->unit ? f->unit : "fp32";
        }
    }
    if (kind == EV_CPU && f->seq_ok && r->opt->by_source) /* torch-backward.c */
        rt_torch_seq_add(r, r->n_evs, f->seq);
    push_ev(r, &e);
    return 0;
}

/* The array of events at pos ('[' already current). */
static int read_events(reader *r)
{
    advance(r, r->pos + 1);
    skip_ws(r);
    if (r->pos < r->len && r->buf[r->pos] == ']') {
        advance(r, r->pos + 1);
        return 0;
    }
    for (;;) {
        skip_ws(r);
        size_t line = r->line, col = r->col;
        evf f;
        size_t used;
        int rc;
        if (rt_torch_event_scan(r->buf + r->pos, r->buf + r->len, &f, r->scratch, &used) == 0) {
            rc = take_event(r, &f, line, col);
            advance(r, r->pos + used);
        } else {
            json_t *j = next_value(r);
            if (!j)
                return -1;
            rt_torch_event_from_json(j, &f);
            rc = take_event(r, &f, line, col);
            json_decref(j);
        }
        rt_torch_evf_release(&f);
        if (rc != 0)
            return -1;
        skip_ws(r);
        if (r->pos >= r->len)
            return fail_at(r, "end of file inside the trace events array");
        char c = r->buf[r->pos];
        if (c != ']' && c != ',')
            return fail_at(r, "expected ',' or ']' after a trace event");
        advance(r, r->pos + 1);
        if (c == ']')
            return 0;
    }
}

/* A bare array of events, or an object whose "traceEvents" member is that array; other members
 * are decoded and dropped. */
static int read_trace(reader *r)
{
    skip_ws(r);
    if (r->pos >= r->len)
        return fail_at(r, "empty file, expected a JSON array or object of trace events");
    int found = 0;
    if (r->buf[r->pos] == '[') {
        if (read_events(r) != 0)
            return -1;
        found = 1;
    } else if (r->buf[r->pos] == '{') {
        advance(r, r->pos + 1);
        skip_ws(r);
        if (r->pos < r->len && r->buf[r->pos] == '}')
            advance(r, r->pos + 1);
        else
            for (;;) {
                skip_ws(r);
                if (r->pos >= r->len || r->buf[r->pos] != '"')
                    return fail_at(r, "expected a member name");
                json_t *key = next_value(r);
                if (!key)
                    return -1;
                int is_events = strcmp(json_string_value(key), "traceEvents") == 0;
                json_t **keep =
                    strcmp(json_string_value(key), "deviceProperties") == 0  ? &r->gpu.device_props
                    : strcmp(json_string_value(key), "distributedInfo") == 0 ? &r->gpu.dist_info
                                                                             : NULL;
                int is_threads = strcmp(json_string_value(key), "torch_threads") == 0;
                /* which torch wrote it: the runner's members, or torch.profiler's add_metadata */
                char **fact = strcmp(json_string_value(key), "torch_version") == 0    ? &r->version
                              : strcmp(json_string_value(key), "torch_profiler") == 0 ? &r->profiler
                                                                                      : NULL;
                json_decref(key);
                skip_ws(r);
                if (r->pos >= r->len || r->buf[r->pos] != ':')
                    return fail_at(r, "expected ':' after a member name");
                advance(r, r->pos + 1);
                skip_ws(r);
                if (is_events) {
                    if (r->pos >= r->len || r->buf[r->pos] != '[')
                        return fail_at(r, "field 'traceEvents' is not an array");
                    if (read_events(r) != 0)
                        return -1;
                    found = 1;
                } else {
                    json_t *v = next_value(r);
                    if (!v)
                        return -1;
                    if (fact && json_is_string(v) && !*fact)
                        *fact = rt_strndup(json_string_value(v), 100);
                    /* a count out of range says nothing: the profile names no threads */
                    if (is_threads && json_is_integer(v) && json_integer_value(v) >= 1 &&
                        json_integer_value(v) <= RT_MAX_THREADS)
                        r->torch_threads = (int)json_integer_value(v);
                    if (keep) { /* the GPU named, the rank: torch-device.c */
                        json_decref(*keep);
                        *keep = v;
                    } else {
                        json_decref(v);
                    }
                }
                skip_ws(r);
                if (r->pos >= r->len)
                    return fail_at(r, "end of file inside the top-level object");
                char c = r->buf[r->pos];
                if (c != '}' && c != ',')
                    return fail_at(r, "expected ',' or '}' in the top-level object");
                advance(r, r->pos + 1);
                if (c == '}')
                    break;
            }
    } else {
        return fail_at(r, "expected a JSON array or object of trace events");
    }
    skip_ws(r);
    if (r->pos < r->len)
        return fail_at(r, "unexpected text after the trace");
    if (!found)
        return fail_at(r, "no 'traceEvents' member");
    return 0;
}

static void reader_release(reader *r)
{
    for (size_t i = 0; i < r->n_k; i++) {
        free(r->names[i]);
        free(r->k[i].dims);
        free(r->k[i].types);
        free(r->k[i].concrete);
        free(r->k[i].source);
        free(r->k[i].module);
        free(r->k[i].display);
        rt_time_samples_release(&r->k[i].samples);
    }
    rt_torch_phase_release(r);
    rt_torch_pyframes_release(r);
    rt_torch_gpu_free(&r->gpu);
    free(r->parent);
    rt_torch_shares_release(&r->cov.why);
    free(r->names);
    free(r->k);
    free(r->evs);
    free(r->scratch);
    free(r->version);
    free(r->profiler);
    rt_name_index_release(&r->keys);
    rt_name_index_release(&r->threads);
}

/* What a call's recorded time holds of an overhead rooftime measures: nothing. An operator's
 * range opens inside the dispatcher, after the Python binding that framework_dispatch times
 * (torch.add in a Python loop), and its self time leaves out its children; a GPU kernel's duration
 * leaves out its launch. The profile keeps framework_dispatch as its tau, the overhead box's. */
static void kernel_overhead(rt_kernel *k)
{
    if (!k->overhead)
        rt_kernel_set_overhead(k, RT_OVERHEAD_NONE, 0);
}

int rt_import_torch_text(const char *text, size_t len, const char *origin, const char *within,
                         rt_profile **out, rt_warnings *w, rt_error *err)
{
    rt_torch_options o = {.within = within};
    return rt_import_torch_text_opts(text, len, origin, &o, out, w, err);
}

int rt_import_torch_text_opts(const char *text, size_t len, const char *origin,
                              const rt_torch_options *o, rt_profile **out, rt_warnings *w,
                              rt_error *err)
{
    *out = NULL;
    if (rt_is_gzip(text, len)) { /* a trace kept as .json.gz, in memory */
        char *plain;
        size_t n;
        if (rt_gunzip_text(text, len, origin ? origin : "trace", RT_MAX_TEXT_INPUT, &plain, &n,
                           err) != 0)
            return -1;
        int rc = rt_import_torch_text_opts(plain, n, origin, o, out, w, err);
        free(plain);
        return rc;
    }
    const char *within = o->within;
    reader r = {.opt = o,
                .ops = o->ops,
                .origin = origin ? origin : "trace",
                .within = within,
                .buf = text,
                .len = len,
                .line = 1,
                .col = 1,
                .err = err};
    r.scratch = rt_xmalloc(SCRATCH_SIZE);
    if (read_trace(&r) != 0) {
        reader_release(&r);
        return -1;
    }
    rt_torch_pyframes_attribute(&r, w);
    rt_torch_phases(&r);
    int device = r.gpu.n > 0 && !o->host; /* the device profile: torch-gpu-profile.c */
    if (device && r.ops)
        r.gpu.calls = rt_xcalloc(r.n_evs ? r.n_evs : 1, sizeof *r.gpu.calls);
    rt_torch_aggregate(&r, w);
    if (device) {
        int rc = rt_torch_gpu_profile(&r, out, w, err);
        reader_release(&r);
        return rc;
    }
    size_t n_used = 0;
    for (size_t i = 0; i < r.n_k; i++)
        n_used += r.k[i].calls > 0;
    if (n_used == 0) {
        rt_error_set(err, "'%s': no operators or GPU kernels among its %zu trace events%s%s%s",
                     r.origin, r.n_events, within ? " inside ranges named '" : "",
                     within ? within : "", within ? "'" : "");
        reader_release(&r);
        return -1;
    }
    rt_profile *p = rt_profile_new();
    if (r.gpu.n > 0) { /* --host: the device profile's events are not host operators */
        char left[96];
        snprintf(left, sizeof left, "%zu GPU events left out (--host)", r.gpu.n);
        rt_tags_set(&p->provenance.notes, "torch_gpu_left_out", left);
    }
    p->tool = rt_strdup("pytorch-profiler");
    p->time_kind = RT_TIME_WALL; /* self time of each call, dispatch included */
    if (r.ops)                   /* the cost model's compulsory traffic from the shapes, at DRAM */
        p->bytes_kind = RT_BYTES_ESTIMATED;
    p->overhead = rt_strdup(RT_OVERHEAD_FRAMEWORK); /* the overhead box's, the paper's tau */
    p->version = rt_strdup("chrome-trace");
    char *method = rt_asprintf(
        "PyTorch profiler chrome trace (%zu events): CPU operators by self time (duration minus "
        "children on the same thread), grouped by name and input shapes; GPU kernels by "
        "duration, one invocation per launch; %s%s%s%s",
        r.n_events,
        r.ops ? "FLOPs and bytes (DRAM, compulsory traffic) of each call from its recorded "
                "shapes, types and arguments by the cost model of data/torch/ops.json, kept by "
                "the innermost working operator of each subtree"
              : "FLOPs from args.flops",
        within ? "; only inside ranges named '" : "", within ? within : "", within ? "'" : "");
    p->method = rt_strdup_utf8(method); /* --within is the user's text */
    free(method);
    int any_flops = 0;
    for (size_t i = 0; i < r.n_k; i++) {
        const kern *k = &r.k[i];
        if (k->calls == 0)
            continue;
        if (k->display) {
            /* calls differing only in what the model read merge under one name and source */
            rt_tags tags = {0};
            if (k->source)
                rt_tags_set(&tags, "source", k->source);
            if (k->module)
                rt_tags_set(&tags, "module", k->module);
            if (k->cprecision && k->has_cflops)
                rt_tags_set(&tags, "precision", k->cprecision);
            if (k->phase)
                rt_tags_set(&tags, "phase", k->phase);
            if (k->uncounted) /* its work no count measures: the model says unknown */
                rt_tags_set(&tags, RT_TAG_UNCOUNTED, k->uncounted);
            if (k->lower_bound) /* part of its work counted: a partial verdict */
                rt_tags_set(&tags, RT_TAG_COUNTS, RT_COUNTS_LOWER_BOUND);
            if (k->compiled) {
                /* framework overhead: its bound is the launch overhead (core/model.c) */
                rt_tags_set(&tags, "class", "overhead");
                rt_tags_set(&tags, "compiled", k->compiled);
            }
            const char *full = r.names[i], *sep = strchr(full, '\x1f');
            char *op = sep ? rt_strndup(full, (size_t)(sep - full)) : rt_strdup(full);
            char *conv = rt_torch_conversion(op, k->types);
            if (conv)
                rt_tags_set(&tags, "convert", conv);
            free(conv);
            free(op);
            rt_kernel *kk = rt_profile_find_or_add(p, k->display, &tags);
            if (kk->tags.n == 0)
                rt_tags_copy(&kk->tags, &tags);
            kernel_overhead(kk);
            rt_tags_release(&tags);
            kk->invocations += k->calls;
            kk->time += k->us * 1e-6;
            rt_kernel_add_samples(kk, &k->samples);
            if (k->has_cflops && k->cflops > 0) {
                rt_values_add(&kk->flops, k->cunit ? k->cunit : "fp32", k->cflops);
                any_flops = 1;
            }
            if (k->has_cbytes && k->cbytes > 0)
                rt_values_add(&kk->bytes, "DRAM", k->cbytes);
            if (k->cws > kk->working_set) /* in place: its distinct bytes per call */
                kk->working_set = k->cws;
            continue;
        }
        rt_kernel *kk = rt_torch_phase_kernel(p, r.names[i], k->phase);
        kernel_overhead(kk);
        kk->invocations = k->calls;
        kk->time = k->us * 1e-6;
        rt_kernel_add_samples(kk, &k->samples);
        if (k->flops > 0) {
            rt_values_set(&kk->flops, k->unit ? k->unit : "fp32", k->flops);
            any_flops = 1;
        }
    }
    rt_profile_finish_spreads(p); /* each kernel's calls: median and quartiles of self time */
    rt_torch_note_rank(&r, p);    /* distributedInfo: the trace's rank */
    rt_torch_version_notes(&r, p);
    if (r.ops)
        rt_torch_cost_notes(&r, p, w);
    if (o->by_source)
        rt_torch_source_notes(&r, p);
    rt_torch_phase_notes(&r, p, w);
    if (r.window_us > 0) {
        rt_torch_window_notes(&r, p);
    } else if (rt_torch_legacy_export(&r)) {
        if (!r.ops) /* with the cost model, its notes say it */
            rt_torch_warn_legacy(&r, w);
    } else if (!any_flops)
        rt_warnings_add(w,
                        "'%s': no FLOPs recorded (profile with with_flops=True to get them); the "
                        "kernels have time and invocations only",
                        r.origin);
    if (!r.ops)
        rt_warnings_add(w,
                        "'%s': a chrome trace carries no memory traffic; the kernels have no bytes",
                        r.origin);
    reader_release(&r);
    *out = p;
    return rt_import_check(out, origin ? origin : "trace", err);
}

int rt_import_torch(const char *path, const char *within, rt_profile **out, rt_warnings *w,
                    rt_error *err)
{
    rt_torch_options o = {.within = within};
    return rt_import_torch_opts(path, &o, out, w, err);
}

int rt_import_torch_opts(const char *path, const rt_torch_options *o, rt_profile **out,
                         rt_warnings *w, rt_error *err)
{
    *out = NULL;
    char *buf;
    size_t len;
    if (rt_read_text_file_gz(path, RT_MAX_TEXT_INPUT, &buf, &len, err) != 0)
        return -1;
    int rc = rt_import_torch_text_opts(buf, len, o && o->origin ? o->origin : path, o, out, w, err);
    free(buf);
    return rc;
}
