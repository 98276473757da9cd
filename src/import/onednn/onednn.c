/* Import oneDNN verbose logs: kernels, FLOPs and bytes per primitive execution. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onednn-internal.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/onednn.h"
#include "rooftime/util/error.h"
#include "rooftime/util/line-reader.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/read-file.h"
#include "rooftime/util/strings.h"

/* How many unreadable lines are described one by one, and how many line numbers are listed. */
#define MAX_BAD_DETAILS 20
#define MAX_BAD_LINES 200
#define MAX_FIELDS 64

/* One distinct primitive execution: kind + implementation + propagation + memory descriptors +
 * auxiliary + problem. FLOPs and bytes are per call, computed once when it is first seen. */
typedef struct entry {
    char *name;
    double calls;
    double ms;
    rt_time_samples samples; /* each call's exec time in seconds, for the kernel's spread */
    rt_values flops;
    rt_values bytes;
} entry;

struct rt_onednn_reader {
    char *origin;
    size_t lineno;
    size_t n_exec, n_create, n_info, n_skipped;
    rt_name_index ix; /* key -> index into e */
    entry *e;
    size_t n_e, cap_e;
    rt_name_index names;       /* kernel names in use, so two keys never share a name */
    rt_name_index next_number; /* name -> the next "#k" suffix to try for it */
    size_t n_bad;
    size_t bad_lines[MAX_BAD_LINES];
    char *bad_msgs[MAX_BAD_DETAILS];
    rt_warnings notes; /* one per thing the model does not cover, e.g. an unknown primitive kind */
    rt_name_index noted;
    char *version;
    char *isa;
    char *engine;
    rt_onednn_model model; /* data/onednn/cost.json */
    char *model_error;     /* why it could not be read: every line is then skipped */
    int window;            /* RT_CONV_WINDOW */
};

/* ---- the reader ---- */

rt_onednn_reader *rt_onednn_reader_new(const char *origin)
{
    rt_onednn_reader *r = rt_xcalloc(1, sizeof *r);
    r->origin = rt_strdup(origin ? origin : "oneDNN verbose output");
    rt_error err = {{0}};
    if (rt_onednn_model_load(NULL, rt_onednn_kind_counts, &r->model, &err) != 0)
        r->model_error = rt_strdup(err.msg);
    return r;
}

void rt_onednn_reader_set_conv_flops(rt_onednn_reader *r, rt_conv_flops conv)
{
    r->window = conv == RT_CONV_WINDOW;
}

void rt_onednn_reader_free(rt_onednn_reader *r)
{
    if (!r)
        return;
    free(r->origin);
    rt_onednn_model_release(&r->model);
    free(r->model_error);
    for (size_t i = 0; i < r->n_e; i++) {
        free(r->e[i].name);
        rt_values_release(&r->e[i].flops);
        rt_values_release(&r->e[i].bytes);
        rt_time_samples_release(&r->e[i].samples);
    }
    free(r->e);
    rt_name_index_release(&r->ix);
    rt_name_index_release(&r->names);
    rt_name_index_release(&r->next_number);
    rt_name_index_release(&r->noted);
    for (size_t i = 0; i < MAX_BAD_DETAILS; i++)
        free(r->bad_msgs[i]);
    rt_warnings_release(&r->notes);
    free(r->version);
    free(r->isa);
    free(r->engine);
    free(r);
}

size_t rt_onednn_reader_n_exec(const rt_onednn_reader *r)
{
    return r->n_exec;
}

ssize_t rt_onednn_marker(const char *line, size_t len)
{
    static const char *markers[] = {"onednn_verbose,", "dnnl_verbose,", "mkldnn_verbose,"};
    ssize_t best = -1;
    for (size_t m = 0; m < 3; m++) {
        size_t ml = strlen(markers[m]);
        for (size_t i = 0; i + ml <= len; i++) {
            if (line[i] == markers[m][0] && memcmp(line + i, markers[m], ml) == 0) {
                if (best < 0 || (ssize_t)i < best)
                    best = (ssize_t)i;
                break;
            }
        }
    }
    return best;
}

static void bad_line(rt_onednn_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void bad_line(rt_onednn_reader *r, const char *fmt, ...)
{
    if (r->n_bad < MAX_BAD_DETAILS) {
        char buf[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        r->bad_msgs[r->n_bad] = rt_asprintf("'%s': line %zu: %s", r->origin, r->lineno, buf);
    }
    if (r->n_bad < MAX_BAD_LINES)
        r->bad_lines[r->n_bad] = r->lineno;
    r->n_bad++;
}

static void note_once(rt_onednn_reader *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void note_once(rt_onednn_reader *r, const char *key, const char *fmt, ...)
{
    if (rt_name_index_get(&r->noted, key, strlen(key)) != (size_t)-1)
        return;
    rt_name_index_put(&r->noted, key, strlen(key), 1);
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    rt_warnings_add(&r->notes, "'%s': %s", r->origin, buf);
}

static int is_number(const char *s)
{
    double v;
    return rt_parse_double(s, &v);
}

/* A kernel name a reader can follow: kind, implementation, propagation, algorithm, data types and
 * the problem; reorders show their layouts since both directions share one problem. */
static char *make_name(const char *kind, const char *impl, const char *prop, const char *aux,
                       const mdlist *ml, const char *problem)
{
    char alg[64] = "";
    rt_onednn_aux_get(aux, "alg", alg, sizeof alg);
    if (strcmp(alg, "convolution_direct") == 0 || strcmp(alg, "deconvolution_direct") == 0)
        alg[0] = '\0';
    char types[256] = "";
    size_t tl = 0;
    const char *first = NULL;
    for (int i = 0; i < ml->n; i++) {
        const char *dt = ml->m[i].dt;
        if (strcmp(dt, "undef") == 0)
            continue;
        if (!first) {
            first = dt;
            tl += (size_t)snprintf(types + tl, sizeof types - tl, "%s", dt);
        } else if (strcmp(dt, first) != 0 && !strstr(types, dt) && tl < sizeof types - 20) {
            tl += (size_t)snprintf(types + tl, sizeof types - tl, "/%s", dt);
        }
    }
    char layouts[160] = "";
    if (strcmp(kind, "reorder") == 0 && ml->n >= 2)
        snprintf(layouts, sizeof layouts, "%s>%s", ml->m[0].layout, ml->m[ml->n - 1].layout);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s %s%s%s%s%s%s%s %s %s", kind, impl,
             strcmp(prop, "undef") != 0 && prop[0] ? " " : "",
             strcmp(prop, "undef") != 0 ? prop : "", alg[0] ? " " : "", alg, layouts[0] ? " " : "",
             layouts, types[0] ? types : "-", problem);
    return rt_strdup(buf);
}

/* The cost of one primitive; what the model does not cover is said once per kind. */
static int compute_cost(rt_onednn_reader *r, const char *kind, const char *prop, const mdlist *ml,
                        const char *aux, const char *problem, cost *c, rt_error *err)
{
    rt_onednn_coverage cov;
    if (rt_onednn_cost(&r->model, kind, prop, ml, aux, problem, r->window, c, &cov, err) != 0)
        return -1;
    if (cov == RT_ONEDNN_UNREAD_KEY) {
        /* said once per kind and message, at its first line */
        char *key = rt_asprintf("unread:%s:%s", kind, err->msg);
        note_once(r, key,
                  "line %zu: field 'problem_desc' '%s': %s: every kernel with that key keeps its "
                  "time, without FLOPs or bytes (a size would be misread)",
                  r->lineno, problem, err->msg);
        free(key);
        err->msg[0] = '\0';
    } else if (cov == RT_ONEDNN_NO_FLOPS)
        note_once(r, kind,
                  "FLOPs of '%s' primitives are not modelled: their kernels have time and bytes "
                  "but no FLOPs",
                  kind);
    else if (cov == RT_ONEDNN_UNMODELLED)
        note_once(r, kind,
                  "'%s' primitives are not modelled: their kernels have time but no FLOPs or bytes",
                  kind);
    return 0;
}

static void read_exec(rt_onednn_reader *r, char **f, int nf, int i)
{
    if (nf - i < 10) {
        bad_line(r,
                 "exec record has %d fields, expected at least 10 "
                 "(engine, primitive, implementation, propagation, memory descriptors, "
                 "attributes, auxiliary, problem, time)",
                 nf - i - 1);
        return;
    }
    const char *engine = f[i + 1], *kind = f[i + 2], *impl = f[i + 3], *prop = f[i + 4],
               *mds = f[i + 5], *aux = f[nf - 3], *problem = f[nf - 2], *time_s = f[nf - 1];
    double ms;
    if (!rt_parse_double(time_s, &ms) || ms < 0) {
        bad_line(r, "field 'exec_time': '%s' is not a time in milliseconds", time_s);
        return;
    }
    if (!kind[0] || !problem[0]) {
        bad_line(r, "exec record has an empty primitive kind or problem descriptor");
        return;
    }
    /* The key is everything but the time: the fields were split in place, so rebuild it. */
    char key[4096];
    size_t kl = 0;
    for (int j = i + 1; j < nf - 1; j++) {
        int w = snprintf(key + kl, sizeof key - kl, "%s%s", j > i + 1 ? "," : "", f[j]);
        if (w < 0 || (size_t)w >= sizeof key - kl) {
            bad_line(r, "exec record too long");
            return;
        }
        kl += (size_t)w;
    }
    size_t idx = rt_name_index_get(&r->ix, key, kl);
    if (idx == (size_t)-1) {
        mdlist ml;
        rt_error e = {{0}};
        cost c;
        if (rt_onednn_mds_parse(mds, &ml, &e) != 0 ||
            compute_cost(r, kind, prop, &ml, aux, problem, &c, &e) != 0 ||
            (c.flops_known && !(isfinite(c.flops) && c.flops >= 0) &&
             (rt_error_set(&e, "FLOPs per call %g: a size is out of range", c.flops), 1)) ||
            (c.bytes_known && !(isfinite(c.bytes) && c.bytes >= 0) &&
             (rt_error_set(&e, "bytes per call %g: a size is out of range", c.bytes), 1))) {
            bad_line(r, "%s %s: field 'problem_desc' or 'memory_descriptors': %s", kind, problem,
                     e.msg);
            return;
        }
        if (r->n_e == r->cap_e) {
            r->cap_e = r->cap_e ? 2 * r->cap_e : 16;
            r->e = rt_xrealloc(r->e, r->cap_e * sizeof *r->e);
        }
        entry *en = &r->e[r->n_e];
        memset(en, 0, sizeof *en);
        char *name = make_name(kind, impl, prop, aux, &ml, problem);
        /* Two keys differing only in layouts would share a name: number the later ones. */
        if (rt_name_index_get(&r->names, name, strlen(name)) != (size_t)-1) {
            /* the next number to try is remembered per name: 20,000 keys sharing a name cost
             * linear time, not quadratic */
            size_t k = rt_name_index_get(&r->next_number, name, strlen(name));
            if (k == (size_t)-1)
                k = 2;
            for (;; k++) {
                char *alt = rt_asprintf("%s #%zu", name, k);
                if (rt_name_index_get(&r->names, alt, strlen(alt)) == (size_t)-1) {
                    rt_name_index_put(&r->next_number, name, strlen(name), k + 1);
                    free(name);
                    name = alt;
                    break;
                }
                free(alt);
            }
        }
        rt_name_index_put(&r->names, name, strlen(name), r->n_e);
        en->name = name;
        if (c.flops_known)
            rt_values_set(&en->flops, rt_onednn_flops_unit(&ml, impl), c.flops);
        if (c.bytes_known)
            rt_values_set(&en->bytes, "DRAM", c.bytes);
        idx = r->n_e++;
        rt_name_index_put(&r->ix, key, kl, idx);
        if (!r->engine)
            r->engine = rt_strdup(engine);
    }
    r->e[idx].calls += 1;
    r->e[idx].ms += ms;
    rt_time_samples_add(&r->e[idx].samples, ms * 1e-3);
    r->n_exec++;
}

void rt_onednn_reader_line(rt_onednn_reader *r, const char *line, size_t len)
{
    r->lineno++;
    ssize_t at = rt_onednn_marker(line, len);
    if (at < 0 || r->model_error)
        return;
    size_t n = len - (size_t)at;
    char *buf = rt_strndup(line + at, n);
    n = strlen(buf); /* a NUL byte in the line ends it */
    while (n > 0 && (buf[n - 1] == '\r' || buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    char *f[MAX_FIELDS];
    int nf = 0;
    f[nf++] = buf;
    for (char *p = buf; *p; p++)
        if (*p == ',') {
            if (nf == MAX_FIELDS) {
                bad_line(r, "more than %d fields", MAX_FIELDS);
                goto out;
            }
            *p = '\0';
            f[nf++] = p + 1;
        }
    int i = 1;
    if (i < nf && is_number(f[i])) /* timestamp (ONEDNN_VERBOSE_TIMESTAMP=1) */
        i++;
    if (i < nf && strcmp(f[i], "primitive") == 0) /* 3.x category */
        i++;
    else if (i < nf && (strcmp(f[i], "graph") == 0 || strcmp(f[i], "common") == 0 ||
                        strcmp(f[i], "ukernel") == 0)) {
        r->n_skipped++;
        note_once(r, "category:graph",
                  "oneDNN '%s' records are not imported (their primitives are logged on their own "
                  "lines when they run)",
                  f[i]);
        goto out;
    }
    if (i >= nf) {
        bad_line(r, "verbose marker without a record");
        goto out;
    }
    const char *op = f[i];
    if (strcmp(op, "exec") == 0) {
        read_exec(r, f, nf, i);
    } else if (strncmp(op, "create", 6) == 0) {
        r->n_create++;
    } else if (strcmp(op, "info") == 0) {
        r->n_info++;
        for (int j = i + 1; j < nf; j++) {
            const char *v = strstr(f[j], "oneDNN v");
            if (!v)
                v = strstr(f[j], "DNNL v");
            if (v && !r->version) {
                const char *s = strchr(v, 'v') + 1;
                r->version = rt_strndup(s, strcspn(s, " "));
            }
            if (strncmp(f[j], "isa:", 4) == 0 && !r->isa)
                r->isa = rt_strdup(f[j] + 4);
        }
    } else if (strcmp(op, "error") == 0 || strcmp(op, "warn") == 0 || strcmp(op, "warning") == 0 ||
               strcmp(op, "check") == 0 || strncmp(op, "prim_template", 13) == 0) {
        r->n_skipped++;
    } else {
        bad_line(r, "unknown verbose record '%s'", op);
    }
out:
    free(buf);
}

int rt_onednn_reader_finish(rt_onednn_reader *r, rt_profile **out, rt_warnings *w, rt_error *err)
{
    *out = NULL;
    if (r->model_error) {
        rt_error_set(err, "the oneDNN cost model cannot be read: %s", r->model_error);
        return -1;
    }
    for (size_t i = 0; i < r->notes.n; i++)
        rt_warnings_add(w, "%s", r->notes.msg[i]);
    for (size_t i = 0; i < r->n_bad && i < MAX_BAD_DETAILS; i++)
        rt_warnings_add(w, "%s", r->bad_msgs[i]);
    if (r->n_bad > 0) {
        char list[2048];
        size_t l = 0;
        for (size_t i = 0; i < r->n_bad && i < MAX_BAD_LINES && l < sizeof list - 32; i++)
            l += (size_t)snprintf(list + l, sizeof list - l, "%s%zu", i ? ", " : "",
                                  r->bad_lines[i]);
        rt_warnings_add(w, "'%s': %zu oneDNN verbose line%s could not be read (line%s %s%s)",
                        r->origin, r->n_bad, r->n_bad == 1 ? "" : "s", r->n_bad == 1 ? "" : "s",
                        list, r->n_bad > MAX_BAD_LINES ? ", ..." : "");
    }
    if (r->n_exec == 0) {
        rt_error_set(err,
                     "'%s': no oneDNN verbose execution records found (%zu lines read%s); "
                     "was the program run with ONEDNN_VERBOSE=1 (or DNNL_VERBOSE=1)?",
                     r->origin, r->lineno, r->n_bad ? ", some of them unreadable" : "");
        return -1;
    }
    rt_profile *p = rt_profile_new();
    p->tool = rt_strdup("onednn-verbose");
    p->time_kind = RT_TIME_WALL;        /* verbose times one execute call */
    p->bytes_kind = RT_BYTES_ESTIMATED; /* the descriptors' compulsory traffic, at DRAM */
    p->overhead = rt_strdup(RT_OVERHEAD_ONEDNN);
    p->version = rt_strdup_utf8(r->version ? r->version : "unknown");
    p->method = rt_asprintf(
        "oneDNN verbose exec records (%zu calls); time = the sum of exec_time; FLOPs from the "
        "problem descriptors (multiply-add = 2, %s); bytes (DRAM) = the compulsory traffic of the "
        "memory descriptors, once per call",
        r->n_exec,
        r->window ? "convolution and pooling FLOPs over the whole window, taps in padding included"
                  : "taps in padding not counted");
    rt_provenance_add_input(&p->provenance, r->origin);
    p->provenance.launches = (double)r->n_exec;
    if (r->isa)
        rt_tags_set(&p->provenance.notes, "onednn_isa", r->isa);
    if (r->engine)
        rt_tags_set(&p->provenance.notes, "onednn_engine", r->engine);
    for (size_t i = 0; i < r->n_e; i++) {
        entry *en = &r->e[i];
        rt_kernel *k = rt_profile_add_kernel(p, en->name);
        k->invocations = en->calls;
        k->time = en->ms * 1e-3;
        rt_kernel_add_samples(k, &en->samples);
        for (size_t j = 0; j < en->flops.n; j++)
            rt_values_set(&k->flops, en->flops.v[j].key, en->flops.v[j].value * en->calls);
        for (size_t j = 0; j < en->bytes.n; j++)
            rt_values_set(&k->bytes, en->bytes.v[j].key, en->bytes.v[j].value * en->calls);
    }
    rt_profile_finish_spreads(p);
    *out = p;
    return 0;
}

void rt_onednn_reader_last_line(rt_onednn_reader *r, const char *line, size_t len)
{
    if (rt_onednn_marker(line, len) < 0 || r->model_error) {
        rt_onednn_reader_line(r, line, len);
        return;
    }
    r->lineno++;
    bad_line(r, "the input ends inside this record, with no newline after it (a truncated log?)");
}

int rt_import_onednn_text(const char *text, size_t len, const char *origin, rt_profile **out,
                          rt_warnings *w, rt_error *err)
{
    rt_onednn_reader *r = rt_onednn_reader_new(origin);
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        (nl ? rt_onednn_reader_line : rt_onednn_reader_last_line)(r, text + pos, end - pos);
        pos = end + 1;
    }
    int rc = rt_onednn_reader_finish(r, out, w, err);
    rt_onednn_reader_free(r);
    return rc;
}

int rt_import_onednn(const char *path, rt_profile **out, rt_warnings *w, rt_error *err)
{
    return rt_import_onednn_conv(path, RT_CONV_TAPS, out, w, err);
}

int rt_import_onednn_conv(const char *path, rt_conv_flops conv, rt_profile **out, rt_warnings *w,
                          rt_error *err)
{
    *out = NULL;
    int is_stdin = strcmp(path, "-") == 0;
    const char *shown = is_stdin ? "standard input" : path;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0)
        return rt_open_error(path, err);
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        rt_error_set(err, "cannot read '%s': is a directory", shown);
        if (!is_stdin)
            close(fd);
        return -1;
    }
    rt_onednn_reader *r = rt_onednn_reader_new(shown);
    rt_onednn_reader_set_conv_flops(r, conv);
    rt_line_reader lr;
    rt_line_reader_init(&lr, fd, shown, RT_MAX_LINE, true);
    const char *s;
    size_t n;
    bool ends, in_long = false;
    int got;
    while ((got = rt_line_reader_next(&lr, &s, &n, &ends, err)) == 1) {
        /* A line longer than RT_MAX_LINE reaches the reader as its first piece only (no record
         * is that long: the reader reports it by number); the rest is skipped. */
        if (!in_long)
            (ends && !lr.newline ? rt_onednn_reader_last_line : rt_onednn_reader_line)(r, s, n);
        in_long = !ends;
    }
    rt_line_reader_release(&lr);
    if (!is_stdin)
        close(fd);
    int rc = -1;
    if (got < 0)
        rt_error_prefix(err, "cannot read '%s'", shown);
    else
        rc = rt_onednn_reader_finish(r, out, w, err);
    rt_onednn_reader_free(r);
    return rc;
}
