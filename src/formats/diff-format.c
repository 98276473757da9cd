/* Two runs side by side, kernel by kernel: the table of `rooftime diff` (moved here from the
 * command, so that the C API and `plot --diff` share it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/kernel-name-key.h"
#include "rooftime/core/model.h"
#include "rooftime/formats/diff-format.h"
#include "rooftime/util/format.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"

bool rt_diff_tag_locates(const char *key)
{
    /* where a kernel was called or which launch it was, never what it computes: the user's source
     * line (`profile --torch`), the operator that called a oneDNN kernel and the implementation
     * beside an operator (the join of `profile --torch --onednn-output`), and the ids and call
     * times of one launch kept as its own kernel (ncu and CUPTI per launch) */
    static const char *const locating[] = {
        "source", "caller", "onednn", "process",        "launch",
        "range",  "stream", "graph",  "launch_call_us",
    };
    for (size_t i = 0; i < sizeof locating / sizeof *locating; i++)
        if (strcmp(key, locating[i]) == 0)
            return true;
    return false;
}

/* The name a kernel is matched by, a new string: for a GPU kernel (a C++ function printed with its
 * parameters, or mangled) the key that __cxa_demangle's printing, ncu's shortened one and the
 * mangled name share (core/kernel-name-key.h), so a collector run diffs against an ncu run; an
 * operator's name keeps its qualifiers and shapes, which the key would drop. */
static char *identity_name(const rt_kernel *k)
{
    /* a C++ function as a tool printed it (mangled, or with its parameter list): the key the
     * collector's, ncu's and the mangled printing share; an operator or a C kernel as named */
    const char *n = k->name;
    if (strncmp(n, "_Z", 2) == 0 || strchr(n, '(') != NULL)
        return rt_kernel_name_key(n);
    return rt_strdup(n);
}

char *rt_diff_key(const rt_kernel *k, const char *by)
{
    if (!by || strcmp(by, "name") == 0) {
        /* the name and the tags that say what work a kernel does */
        char *name = identity_name(k);
        size_t n = strlen(name) + 3;
        for (size_t i = 0; i < k->tags.n; i++)
            n += strlen(k->tags.v[i].key) + strlen(k->tags.v[i].value) + 2;
        char *s = rt_xmalloc(n), *p = s;
        p += sprintf(p, "%s", name);
        int any = 0;
        for (size_t i = 0; i < k->tags.n; i++) {
            const char *t = k->tags.v[i].key;
            if (rt_diff_tag_locates(t))
                continue;
            p += sprintf(p, "%s%s=%s", any ? "," : " {", t, k->tags.v[i].value);
            any = 1;
        }
        if (any)
            strcpy(p, "}");
        free(name);
        return s;
    }
    if (strcmp(by, "op") == 0) {
        const char *sp = strchr(k->name, ' ');
        return sp ? rt_strndup(k->name, (size_t)(sp - k->name)) : rt_strdup(k->name);
    }
    const char *v = rt_tags_get(&k->tags, by);
    return rt_strdup(v ? v : "(none)");
}

/* Note where a kernel of row r's side was called, once per source. */
static void add_where(rt_diff_row *r, int side, const char *src)
{
    char **w = &r->where[side];
    if (*w) {
        /* among the listed ones ("; " between them) */
        size_t n = strlen(src);
        for (const char *p = *w; p; p = strstr(p, "; "), p = p ? p + 2 : NULL)
            if (strncmp(p, src, n) == 0 && (p[n] == '\0' || (p[n] == ';' && p[n + 1] == ' ')))
                return;
    }
    if (r->n_where[side]++ >= RT_DIFF_MAX_WHERE)
        return;
    char *s = *w ? rt_asprintf("%s; %s", *w, src) : rt_strdup(src);
    free(*w);
    *w = s;
}

static void add(rt_diff *t, const rt_profile *p, int side, const char *by)
{
    for (size_t i = 0; i < p->n_kernels; i++) {
        const rt_kernel *k = &p->kernels[i];
        char *key = rt_diff_key(k, by);
        size_t at = rt_name_index_get(&t->ix, key, strlen(key));
        if (at == (size_t)-1) {
            if (t->n == t->cap) {
                t->cap = t->cap ? 2 * t->cap : 64;
                t->r = rt_xrealloc(t->r, t->cap * sizeof *t->r);
            }
            at = t->n++;
            rt_diff_row *r = &t->r[at];
            memset(r, 0, sizeof *r);
            r->key = rt_strdup(key);
            rt_kernel_init(&r->k[0], key);
            rt_kernel_init(&r->k[1], key);
            rt_name_index_put(&t->ix, key, strlen(key), at);
        }
        free(key);
        rt_kernel_accumulate(&t->r[at].k[side], k);
        t->r[at].seen[side] = 1;
        const char *src = rt_tags_get(&k->tags, "source");
        if (src) {
            add_where(&t->r[at], side, src);
            t->any_where = 1;
        }
    }
}

static double bytes_of(const rt_kernel *k)
{
    /* the first level recorded (DRAM for the framework importers) */
    return k->bytes.n ? k->bytes.v[0].value : NAN;
}

/* One side's figures: time, FLOPs, bytes, AI and the verdict's label. */
typedef struct side {
    double t, w, q, ai;
    char verdict[64];
} side;

/* The verdict of a kernel of profile p on m as `analyze` computes it: p's time kind and the launch
 * overhead p names. */
static rt_verdict_ctx ctx_of(const rt_machine *m, rt_mode mode, const rt_profile *p)
{
    rt_verdict_ctx ctx = {.mode = mode, .time = p->time_kind};
    ctx.tau = rt_analysis_profile_tau(m, p, &ctx.tau_name);
    return ctx;
}

static void figures(const rt_kernel *k, int seen, const rt_machine *m, const rt_verdict_ctx *ctx,
                    side *s)
{
    memset(s, 0, sizeof *s);
    if (!seen) {
        s->t = s->w = s->q = s->ai = NAN;
        strcpy(s->verdict, "-");
        return;
    }
    s->t = k->time;
    s->w = rt_values_sum(&k->flops);
    s->q = bytes_of(k);
    s->ai = s->q > 0 ? s->w / s->q : NAN;
    if (!m) {
        strcpy(s->verdict, "-");
        return;
    }
    rt_verdict v;
    rt_warnings w = {0};
    rt_verdict_compute_in(m, ctx, k, k->name, &v, &w);
    snprintf(s->verdict, sizeof s->verdict, "%s", v.bound_label);
    if (v.bound == RT_BOUND_NONE || (isnan(v.q_ref) && v.W == 0 && v.bound != RT_BOUND_OVERHEAD))
        strcpy(s->verdict, "unknown");
    rt_verdict_release(&v);
    rt_warnings_release(&w);
}

static void cell(char *buf, size_t n, double v, const char *unit)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else if (strcmp(unit, "s") == 0)
        rt_fmt_time(buf, n, v);
    else if (strcmp(unit, "AI") == 0)
        snprintf(buf, n, "%.3g", v);
    else
        rt_fmt_si(buf, n, v, unit);
}

double rt_diff_delta(const rt_diff_row *r)
{
    double a = r->seen[0] ? r->k[0].time : 0, b = r->seen[1] ? r->k[1].time : 0;
    return b - a;
}

static int row_cmp(const void *a_, const void *b_)
{
    const rt_diff_row *a = a_, *b = b_;
    double da = fabs(rt_diff_delta(a)), db = fabs(rt_diff_delta(b));
    if (da != db)
        return da > db ? -1 : 1;
    return strcmp(a->key, b->key);
}

/* A side's sources for the text table: the first, and how many more ("-" for none). */
static void where_first(char *buf, size_t n, const char *list, size_t count)
{
    if (!list) {
        snprintf(buf, n, "-");
        return;
    }
    const char *sep = strstr(list, "; ");
    int len = sep ? (int)(sep - list) : (int)strlen(list);
    if (count > 1)
        snprintf(buf, n, "%.*s (+%zu)", len, list, count - 1);
    else
        snprintf(buf, n, "%.*s", len, list);
}

/* The source column of the text table: where the kernel was called, "before -> after" when that
 * moved; NULL r: an empty cell (the rest and total rows). */
static void where_cell(char *buf, size_t n, const rt_diff_row *r)
{
    buf[0] = '\0';
    if (!r)
        return;
    char w[2][160];
    for (int s = 0; s < 2; s++)
        where_first(w[s], sizeof w[s], r->where[s], r->n_where[s]);
    if (!r->seen[0] || strcmp(w[0], w[1]) == 0)
        snprintf(buf, n, "%s", w[1]);
    else if (!r->seen[1])
        snprintf(buf, n, "%s", w[0]);
    else
        snprintf(buf, n, "%s -> %s", w[0], w[1]);
}

static void csv_text(FILE *o, const char *s)
{
    fputc('"', o);
    for (const char *p = s; *p; p++)
        fputs(*p == '"' ? "\"\"" : (char[2]){*p, 0}, o);
    fputc('"', o);
}

/* One row; where: the table has a source column (r: this row's, NULL for rest and total). */
static void print_row(FILE *o, const char *name, const side *b, const side *a, int csv, int where,
                      const rt_diff_row *r)
{
    char c[10][48];
    cell(c[0], 48, b->t, "s");
    cell(c[1], 48, a->t, "s");
    double d = (isnan(a->t) ? 0 : a->t) - (isnan(b->t) ? 0 : b->t);
    if (d >= 0)
        c[2][0] = '+', cell(c[2] + 1, 47, d, "s");
    else
        c[2][0] = '-', cell(c[2] + 1, 47, -d, "s");
    cell(c[3], 48, b->w, "FLOP");
    cell(c[4], 48, a->w, "FLOP");
    cell(c[5], 48, b->q, "B");
    cell(c[6], 48, a->q, "B");
    cell(c[7], 48, b->ai, "AI");
    cell(c[8], 48, a->ai, "AI");
    if (csv) {
        csv_text(o, name);
        fprintf(o, ",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%s,%s", b->t, a->t, b->w, a->w, b->q,
                a->q, b->ai, a->ai, b->verdict, a->verdict);
        for (int s = 0; s < 2 && where; s++) {
            fputc(',', o);
            if (r && r->where[s])
                csv_text(o, r->where[s]);
        }
        fputc('\n', o);
        return;
    }
    char wc[400];
    where_cell(wc, sizeof wc, r);
    fprintf(o, "%-48.48s %10s %10s %11s  %10s %10s  %10s %10s  %7s %7s  %-16s %-16s", name, c[0],
            c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], b->verdict, a->verdict);
    if (where && wc[0])
        fprintf(o, "  %s", wc);
    fputc('\n', o);
}

void rt_diff_build(rt_diff *d, const rt_profile *before, const rt_profile *after, const char *by)
{
    memset(d, 0, sizeof *d);
    add(d, before, 0, by);
    add(d, after, 1, by);
    qsort(d->r, d->n, sizeof *d->r, row_cmp);
}

void rt_diff_release(rt_diff *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->r[i].key);
        free(d->r[i].where[0]);
        free(d->r[i].where[1]);
        rt_kernel_release(&d->r[i].k[0]);
        rt_kernel_release(&d->r[i].k[1]);
    }
    free(d->r);
    rt_name_index_release(&d->ix);
    memset(d, 0, sizeof *d);
}

int rt_diff_write(const rt_diff *d, const rt_profile *const ps[2], const rt_diff_opts *opts,
                  FILE *o)
{
    const rt_machine *m = opts->m;
    const char *by = opts->by ? opts->by : "name";
    size_t top = opts->top;
    int csv = opts->csv;
    rt_verdict_ctx ctx[2] = {{0}, {0}};
    for (int s = 0; s < 2 && m; s++)
        ctx[s] = ctx_of(m, opts->mode, ps[s]);
    /* where kernels were called: shown, not matched, when a profile records it */
    int where = d->any_where && strcmp(by, "name") == 0;
    if (csv)
        fprintf(o,
                "kernel,time_before_s,time_after_s,flops_before,flops_after,bytes_before,"
                "bytes_after,ai_before,ai_after,verdict_before,verdict_after%s\n",
                where ? ",source_before,source_after" : "");
    else
        fprintf(o, "%-48s %10s %10s %11s  %10s %10s  %10s %10s  %7s %7s  %-16s %-16s%s\n",
                by && strcmp(by, "name") != 0 ? by : "kernel", "time", "after", "change", "FLOPs",
                "after", "bytes", "after", "AI", "after", "verdict", "after",
                where ? "  source" : "");
    rt_kernel tot[2], rest[2];
    int any_rest = 0;
    for (int s = 0; s < 2; s++) {
        rt_kernel_init(&tot[s], "total");
        rt_kernel_init(&rest[s], "rest");
    }
    size_t only[2] = {0, 0};
    for (size_t i = 0; i < d->n; i++) {
        const rt_diff_row *r = &d->r[i];
        for (int s = 0; s < 2; s++)
            if (r->seen[s]) {
                rt_kernel_accumulate(&tot[s], &r->k[s]);
                if (i >= top && !csv)
                    rt_kernel_accumulate(&rest[s], &r->k[s]);
            }
        if (r->seen[0] != r->seen[1])
            only[r->seen[0] ? 0 : 1]++;
        if (i >= top && !csv) {
            any_rest = 1;
            continue;
        }
        side b, a;
        figures(&r->k[0], r->seen[0], m, &ctx[0], &b);
        figures(&r->k[1], r->seen[1], m, &ctx[1], &a);
        print_row(o, r->key, &b, &a, csv, where, r);
    }
    side b, a;
    if (any_rest) {
        char label[64];
        snprintf(label, sizeof label, "(%zu more)", d->n - top);
        figures(&rest[0], 1, NULL, NULL, &b);
        figures(&rest[1], 1, NULL, NULL, &a);
        print_row(o, label, &b, &a, 0, where, NULL);
    }
    figures(&tot[0], 1, m, &ctx[0], &b);
    figures(&tot[1], 1, m, &ctx[1], &a);
    print_row(o, "total", &b, &a, csv, where, NULL);
    if (!csv) {
        fprintf(o, "%zu matched by %s; %zu only before, %zu only after%s\n",
                d->n - only[0] - only[1], by, only[0], only[1],
                m ? "" : "; no machine (-m): verdicts not computed");
    }
    for (int s = 0; s < 2; s++) {
        rt_kernel_release(&tot[s]);
        rt_kernel_release(&rest[s]);
    }
    return ferror(o) ? -1 : 0;
}
