/* Import oneDNN verbose logs: kernels, FLOPs and bytes per primitive execution. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onednn-internal.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/import-check.h"
#include "rooftime/import/onednn.h"
#include "rooftime/util/error.h"
#include "rooftime/util/line-reader.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/read-file.h"
#include "rooftime/util/strings.h"

/* Fields one line may hold: more is an unreadable line. */
#define MAX_FIELDS 64

/* ---- the reader ---- */

rt_onednn_reader *rt_onednn_reader_new(const char *origin)
{
    rt_onednn_reader *r = rt_xcalloc(1, sizeof *r);
    r->origin = rt_strdup(origin ? origin : "oneDNN verbose output");
    rt_error err = {{0}};
    if (rt_onednn_model_load(NULL, rt_onednn_kind_counts, &r->model, &err) != 0 ||
        rt_onednn_formats_load(NULL, &r->formats, &err) != 0 ||
        !(r->units = rt_onednn_units_load(NULL, &err))) {
        r->model_error = rt_strdup(err.msg);
        return r;
    }
    for (size_t i = 0; i < r->formats.n; i++)
        r->columns[i] = r->formats.default_columns;
    return r;
}

void rt_onednn_reader_set_conv_flops(rt_onednn_reader *r, rt_conv_flops conv)
{
    r->window = conv == RT_CONV_WINDOW;
}

/* The records read so far and what was said of them, released and set to none. */
static void forget_records(rt_onednn_reader *r)
{
    for (size_t i = 0; i < r->n_e; i++) {
        free(r->e[i].name);
        rt_time_samples_release(&r->e[i].samples);
    }
    free(r->e);
    for (size_t i = 0; i < r->n_ukeys; i++) {
        free(r->ukeys[i].kind);
        free(r->ukeys[i].impl);
        free(r->ukeys[i].dt);
        free(r->ukeys[i].fpmath);
    }
    free(r->ukeys);
    rt_name_index_release(&r->ukeys_ix);
    rt_name_index_release(&r->ix);
    rt_name_index_release(&r->names);
    rt_name_index_release(&r->next_number);
    rt_name_index_release(&r->noted);
    for (size_t i = 0; i < RT_DN_MAX_BAD_DETAILS; i++)
        free(r->bad_msgs[i]);
    rt_warnings_release(&r->notes);
    r->e = NULL;
    r->ukeys = NULL;
    r->n_e = r->cap_e = r->n_ukeys = r->cap_ukeys = 0;
    r->ix = r->names = r->next_number = r->ukeys_ix = r->noted = (rt_name_index){0};
    r->notes = (rt_warnings){0};
    memset(r->bad_msgs, 0, sizeof r->bad_msgs);
    r->lineno = r->n_exec = r->n_create = r->n_info = r->n_skipped = r->n_bad = 0;
    memset(r->skipped_cat, 0, sizeof r->skipped_cat);
}

void rt_onednn_reader_free(rt_onednn_reader *r)
{
    if (!r)
        return;
    free(r->origin);
    rt_onednn_model_release(&r->model);
    rt_onednn_formats_release(&r->formats);
    rt_onednn_units_free(r->units);
    free(r->model_error);
    forget_records(r);
    free(r->version);
    free(r->isa);
    free(r->engine);
    free(r);
}

void rt_onednn_reader_restart(rt_onednn_reader *r, const char *origin)
{
    forget_records(r);
    free(r->origin);
    r->origin = rt_strdup(origin ? origin : "oneDNN verbose output");
}

size_t rt_onednn_reader_n_exec(const rt_onednn_reader *r)
{
    return r->n_exec;
}

ssize_t rt_onednn_marker(const rt_onednn_reader *r, const char *line, size_t len)
{
    ssize_t best = -1;
    for (size_t m = 0; m < r->formats.n_markers; m++) {
        const char *mk = r->formats.markers[m];
        size_t ml = strlen(mk);
        for (size_t i = 0; i + ml < len; i++) {
            if (line[i] == mk[0] && memcmp(line + i, mk, ml) == 0 && line[i + ml] == ',') {
                if (best < 0 || (ssize_t)i < best)
                    best = (ssize_t)i;
                break;
            }
        }
    }
    return best;
}

/* A header line (the template after f[op], "info"): its format's columns. A header the table
 * does not know still gives the columns of the format its fields fit. */
static void read_header(rt_onednn_reader *r, char **f, int nf, const rt_onednn_record *rec)
{
    int x = rt_onednn_header_format(&r->formats, f, rec->op);
    if (x < 0) {
        rt_onednn_note_once(r, "header",
                            "line %zu: a oneDNN verbose header that %s does not list ('%s,...'): "
                            "its records are read as its columns say (a new oneDNN version is a "
                            "row there)",
                            r->lineno, r->formats.path, f[rec->op + 1]);
        x = rec->format;
    }
    char *names[64];
    size_t n = 0;
    names[n++] = strchr(f[rec->op + 1], ':') + 1; /* "template:operation" */
    for (int j = rec->op + 2; j < nf && n < 64; j++)
        names[n++] = f[j];
    rt_onednn_columns c;
    char why[96];
    if (rt_onednn_columns_set(&c, names, n, why, sizeof why) != 0) {
        rt_onednn_bad_line(r, "header: %s; its records are read with the columns %s", why,
                           r->formats.default_columns.list);
        return;
    }
    r->columns[x] = c;
    int seen = 0;
    for (size_t k = 0; k < r->n_seen; k++)
        seen |= r->seen[k] == x;
    if (!seen && r->n_seen < RT_DN_MAX_FORMATS)
        r->seen[r->n_seen++] = x;
}

/* An info line: the version, the CPU's instruction set (its text holds commas), a header. */
static void read_info(rt_onednn_reader *r, char **f, int nf, const rt_onednn_record *rec)
{
    r->n_info++;
    int op = rec->op;
    if (op + 1 < nf && (rec->category < 0 || rec->category == r->formats.primitive_cat) &&
        (strncmp(f[op + 1], "template:", 9) == 0 ||
         strncmp(f[op + 1], "prim_template:", 14) == 0)) {
        read_header(r, f, nf, rec);
        return;
    }
    for (int j = op + 1; j < nf; j++) {
        const char *v = strstr(f[j], "oneDNN v");
        if (!v)
            v = strstr(f[j], "DNNL v");
        if (v && !r->version) {
            const char *s = strchr(v, 'v') + 1;
            r->version = rt_strndup(s, strcspn(s, " "));
        }
        if (strncmp(f[j], "isa:", 4) == 0 && !r->isa) {
            char text[512];
            size_t l = (size_t)snprintf(text, sizeof text, "%s", f[j] + 4);
            for (int k = j + 1; k < nf && l < sizeof text; k++)
                l += (size_t)snprintf(text + l, sizeof text - l, ",%s", f[k]);
            r->isa = rt_strdup(text);
            return;
        }
    }
}

void rt_onednn_reader_line(rt_onednn_reader *r, const char *line, size_t len)
{
    r->lineno++;
    if (r->model_error)
        return;
    ssize_t at = rt_onednn_marker(r, line, len);
    if (at < 0)
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
                rt_onednn_bad_line(r, "more than %d fields", MAX_FIELDS);
                goto out;
            }
            *p = '\0';
            f[nf++] = p + 1;
        }
    rt_onednn_record rec;
    if (rt_onednn_record_parse(&r->formats, r->seen, r->n_seen, f, nf, &rec) != 0) {
        rt_onednn_bad_line(r, "verbose marker without a record");
        goto out;
    }
    if (rec.category >= 0 && !r->formats.cat_read[rec.category] && rec.kind != RT_DN_OP_INFO) {
        r->n_skipped++;
        if (rec.category < 8)
            r->skipped_cat[rec.category]++;
        goto out;
    }
    switch (rec.kind) {
    case RT_DN_OP_EXEC:
        if (rec.category >= 0) /* a field of oneDNN 3.3 and later */
            r->read_as |= 1u << rec.format;
        rt_onednn_read_exec(r, &r->columns[rec.format], f, nf, rec.op);
        break;
    case RT_DN_OP_CREATE:
        r->n_create++;
        break;
    case RT_DN_OP_INFO:
        read_info(r, f, nf, &rec);
        break;
    case RT_DN_OP_SKIP:
        r->n_skipped++;
        break;
    default: {
        /* a version field no format row has: oneDNN's next format */
        const char *o = f[rec.op];
        int version = o[0] == 'v' && o[1] && strspn(o + 1, "0123456789") == strlen(o + 1);
        rt_onednn_bad_line(r, "unknown verbose record '%s'%s%s%s", o,
                           version ? " (a verbose format version that " : "",
                           version ? r->formats.path : "",
                           version ? " does not list: a new oneDNN's format is a row there)" : "");
    }
    }
out:
    free(buf);
}

/* The format the input's records were read as, for the profile's notes. */
static void note_format(rt_onednn_reader *r, rt_profile *p)
{
    char note[512];
    size_t l = 0;
    for (size_t k = 0; k < r->n_seen && l < sizeof note - 64; k++) {
        const rt_onednn_format *x = &r->formats.f[r->seen[k]];
        l += (size_t)snprintf(note + l, sizeof note - l, "%s%s (header '%s')", k ? "; " : "",
                              x->versions, x->header ? x->header : "?");
    }
    if (r->n_seen == 0 && r->read_as) {
        /* records with a category (3.3 or later): the log starts after the header */
        l = (size_t)snprintf(note, sizeof note, "no header line (the log starts after it)");
        for (size_t k = 0, n = 0; k < r->formats.n && l < sizeof note - 64; k++)
            if (r->read_as & (1u << k))
                l += (size_t)snprintf(note + l, sizeof note - l, "%s%s",
                                      n++ ? "; " : ": records read as ", r->formats.f[k].versions);
    } else if (r->n_seen == 0) {
        snprintf(note, sizeof note,
                 "no header line (oneDNN before 2.3, or the log starts after it)");
    }
    rt_tags_set(&p->provenance.notes, "onednn_verbose_format", note);
    for (size_t c = 0; c < r->formats.n_cat && c < 8; c++)
        if (r->skipped_cat[c])
            rt_warnings_add(&r->notes,
                            "'%s': %zu oneDNN '%s' record%s not imported: only primitive "
                            "executions are (a graph partition's primitives are logged on their "
                            "own lines, so its time would count them twice)",
                            r->origin, r->skipped_cat[c], r->formats.cat_names[c],
                            r->skipped_cat[c] == 1 ? "" : "s");
}

int rt_onednn_reader_finish(rt_onednn_reader *r, rt_profile **out, rt_warnings *w, rt_error *err)
{
    *out = NULL;
    if (r->model_error) {
        rt_error_set(err, "oneDNN's data cannot be read: %s", r->model_error);
        return -1;
    }
    rt_profile *p = rt_profile_new();
    note_format(r, p);
    for (size_t i = 0; i < r->notes.n; i++)
        rt_warnings_add(w, "%s", r->notes.msg[i]);
    for (size_t i = 0; i < r->n_bad && i < RT_DN_MAX_BAD_DETAILS; i++)
        rt_warnings_add(w, "%s", r->bad_msgs[i]);
    if (r->n_bad > 0) {
        char list[2048];
        size_t l = 0;
        for (size_t i = 0; i < r->n_bad && i < RT_DN_MAX_BAD_LINES && l < sizeof list - 32; i++)
            l += (size_t)snprintf(list + l, sizeof list - l, "%s%zu", i ? ", " : "",
                                  r->bad_lines[i]);
        rt_warnings_add(w, "'%s': %zu oneDNN verbose line%s could not be read (line%s %s%s)",
                        r->origin, r->n_bad, r->n_bad == 1 ? "" : "s", r->n_bad == 1 ? "" : "s",
                        list, r->n_bad > RT_DN_MAX_BAD_LINES ? ", ..." : "");
    }
    if (r->n_exec == 0) {
        rt_error_set(err,
                     "'%s': no oneDNN verbose execution records found (%zu lines read%s); "
                     "was the program run with ONEDNN_VERBOSE=1 (or DNNL_VERBOSE=1)?",
                     r->origin, r->lineno, r->n_bad ? ", some of them unreadable" : "");
        rt_profile_free(p);
        return -1;
    }
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
    rt_onednn_resolve_units(r, p, w);
    for (size_t i = 0; i < r->n_e; i++) {
        rt_onednn_entry *en = &r->e[i];
        rt_kernel *k = rt_profile_add_kernel(p, en->name);
        k->invocations = en->calls;
        k->time = en->ms * 1e-3;
        rt_kernel_add_samples(k, &en->samples);
        if (en->flops >= 0)
            rt_values_set(&k->flops, r->ukeys[en->unit_key].unit, en->flops * en->calls);
        if (en->bytes >= 0)
            rt_values_set(&k->bytes, "DRAM", en->bytes * en->calls);
    }
    rt_profile_finish_spreads(p);
    *out = p;
    return rt_import_check(out, r->origin, err);
}

void rt_onednn_reader_last_line(rt_onednn_reader *r, const char *line, size_t len)
{
    if (r->model_error || rt_onednn_marker(r, line, len) < 0) {
        rt_onednn_reader_line(r, line, len);
        return;
    }
    r->lineno++;
    rt_onednn_bad_line(
        r, "the input ends inside this record, with no newline after it (a truncated log?)");
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

int rt_onednn_reader_read(rt_onednn_reader *r, const char *path, rt_error *err)
{
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
    if (got < 0) {
        rt_error_prefix(err, "cannot read '%s'", shown);
        return -1;
    }
    return 0;
}

int rt_import_onednn_conv(const char *path, rt_conv_flops conv, rt_profile **out, rt_warnings *w,
                          rt_error *err)
{
    *out = NULL;
    rt_onednn_reader *r = rt_onednn_reader_new(strcmp(path, "-") == 0 ? "standard input" : path);
    rt_onednn_reader_set_conv_flops(r, conv);
    int rc = rt_onednn_reader_read(r, path, err);
    if (rc == 0)
        rc = rt_onednn_reader_finish(r, out, w, err);
    rt_onednn_reader_free(r);
    return rc;
}
