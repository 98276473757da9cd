/* `rooftime diff BEFORE.json AFTER.json`: two runs side by side, kernel by kernel and in total:
 * time, FLOPs, bytes, arithmetic intensity and, with a machine, the verdict before and after. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-util.h"
#include "commands.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/util/error.h"
#include "rooftime/util/format.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"

typedef struct row {
    char *key;
    rt_kernel k[2]; /* before, after (summed over the kernels that share the key) */
    int seen[2];
} row;

typedef struct table {
    row *r;
    size_t n, cap;
    rt_name_index ix;
} table;

/* The key a kernel is matched by: its name and tags, its operator (the name up to the first
 * blank), or one tag's value. */
static char *key_of(const rt_kernel *k, const char *by)
{
    if (!by || strcmp(by, "name") == 0) {
        /* the tags that say what a kernel is; 'caller' and 'onednn' only annotate it (the join
         * of `profile --torch --onednn-output`) */
        size_t n = strlen(k->name) + 3;
        for (size_t i = 0; i < k->tags.n; i++)
            n += strlen(k->tags.v[i].key) + strlen(k->tags.v[i].value) + 2;
        char *s = rt_xmalloc(n), *p = s;
        p += sprintf(p, "%s", k->name);
        int any = 0;
        for (size_t i = 0; i < k->tags.n; i++) {
            const char *t = k->tags.v[i].key;
            if (strcmp(t, "caller") == 0 || strcmp(t, "onednn") == 0)
                continue;
            p += sprintf(p, "%s%s=%s", any ? "," : " {", t, k->tags.v[i].value);
            any = 1;
        }
        if (any)
            strcpy(p, "}");
        return s;
    }
    if (strcmp(by, "op") == 0) {
        const char *sp = strchr(k->name, ' ');
        return sp ? rt_strndup(k->name, (size_t)(sp - k->name)) : rt_strdup(k->name);
    }
    const char *v = rt_tags_get(&k->tags, by);
    return rt_strdup(v ? v : "(none)");
}

static void add(table *t, const rt_profile *p, int side, const char *by)
{
    for (size_t i = 0; i < p->n_kernels; i++) {
        const rt_kernel *k = &p->kernels[i];
        char *key = key_of(k, by);
        size_t at = rt_name_index_get(&t->ix, key, strlen(key));
        if (at == (size_t)-1) {
            if (t->n == t->cap) {
                t->cap = t->cap ? 2 * t->cap : 64;
                t->r = rt_xrealloc(t->r, t->cap * sizeof *t->r);
            }
            at = t->n++;
            row *r = &t->r[at];
            memset(r, 0, sizeof *r);
            r->key = rt_strdup(key);
            rt_kernel_init(&r->k[0], key);
            rt_kernel_init(&r->k[1], key);
            rt_name_index_put(&t->ix, key, strlen(key), at);
        }
        free(key);
        rt_kernel_accumulate(&t->r[at].k[side], k);
        t->r[at].seen[side] = 1;
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

static double delta_of(const row *r)
{
    double a = r->seen[0] ? r->k[0].time : 0, b = r->seen[1] ? r->k[1].time : 0;
    return b - a;
}

static int row_cmp(const void *a_, const void *b_)
{
    const row *a = a_, *b = b_;
    double da = fabs(delta_of(a)), db = fabs(delta_of(b));
    if (da != db)
        return da > db ? -1 : 1;
    return strcmp(a->key, b->key);
}

static void print_row(FILE *o, const char *name, const side *b, const side *a, int csv)
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
        fputc('"', o);
        for (const char *p = name; *p; p++)
            fputs(*p == '"' ? "\"\"" : (char[2]){*p, 0}, o);
        fprintf(o, "\",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%s,%s\n", b->t, a->t, b->w, a->w,
                b->q, a->q, b->ai, a->ai, b->verdict, a->verdict);
        return;
    }
    fprintf(o, "%-48.48s %10s %10s %11s  %10s %10s  %10s %10s  %7s %7s  %-16s %-16s\n", name, c[0],
            c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], b->verdict, a->verdict);
}

int cmd_diff(int argc, char **argv)
{
    static const struct option opts[] = {{"machine", required_argument, NULL, 'm'},
                                         {"mode", required_argument, NULL, 'M'},
                                         {"by", required_argument, NULL, 'b'},
                                         {"top", required_argument, NULL, 'n'},
                                         {"format", required_argument, NULL, 'f'},
                                         CLI_ANALYSIS_LONG_OPTS,
                                         {0}};
    /* machine, mode, reference and tau as analyze takes them, and applies them */
    cli_analysis_opts in = {0};
    const char *by = "name", *format = "text";
    rt_mode mode = RT_MODE_SINGLE;
    long top = 30;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "m:b:n:f:", opts, NULL)) != -1) {
        char *end;
        if (cli_analysis_option(&in, c, optarg))
            continue;
        switch (c) {
        case 'b':
            by = optarg;
            break;
        case 'n':
            top = strtol(optarg, &end, 10);
            if (end == optarg || *end || top < 1)
                return cli_usage_error("diff", "--top: expected a whole number >= 1, got '%s'",
                                       optarg);
            break;
        case 'f':
            if (strcmp(optarg, "text") != 0 && strcmp(optarg, "csv") != 0)
                return cli_usage_error("diff", "--format: expected text or csv, got '%s'", optarg);
            format = optarg;
            break;
        default:
            return cli_usage_error("diff", "unknown option '%s'", argv[optind - 1]);
        }
    }
    rt_error err = {{0}};
    if (in.mode && rt_mode_parse(in.mode, &mode, &err) != 0)
        return cli_usage_error("diff", "%s", err.msg);
    if (!in.machine && (in.reference || in.tau))
        return cli_usage_error("diff", "--reference and --tau need a machine (-m)");
    if (argc - optind != 2)
        return cli_usage_error("diff", "expected two profiles, BEFORE and AFTER");
    rt_profile *p[2] = {NULL, NULL};
    rt_machine *m = NULL;
    int rc = RT_EXIT_FAIL;
    table t = {0};
    for (int i = 0; i < 2; i++)
        if (rt_profile_load(argv[optind + i], &p[i], &err) != 0) {
            cli_error("%s", err.msg);
            goto out;
        }
    if (in.machine && rt_machine_resolve(in.machine, &m, &err) != 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    /* the reference unit and level chosen as analyze chooses them (from both runs), or given */
    if (m && (rc = cli_analysis_apply(&in, "diff", m, p, 2)) != 0)
        goto out;
    rc = RT_EXIT_FAIL;
    rt_verdict_ctx ctx[2] = {{0}, {0}};
    for (int s = 0; s < 2 && m; s++)
        ctx[s] = ctx_of(m, mode, p[s]);
    add(&t, p[0], 0, by);
    add(&t, p[1], 1, by);
    qsort(t.r, t.n, sizeof *t.r, row_cmp);
    int csv = strcmp(format, "csv") == 0;
    if (csv)
        printf("kernel,time_before_s,time_after_s,flops_before,flops_after,bytes_before,"
               "bytes_after,ai_before,ai_after,verdict_before,verdict_after\n");
    else
        printf("%-48s %10s %10s %11s  %10s %10s  %10s %10s  %7s %7s  %-16s %-16s\n",
               by && strcmp(by, "name") != 0 ? by : "kernel", "time", "after", "change", "FLOPs",
               "after", "bytes", "after", "AI", "after", "verdict", "after");
    rt_kernel tot[2], rest[2];
    int any_rest = 0;
    for (int s = 0; s < 2; s++) {
        rt_kernel_init(&tot[s], "total");
        rt_kernel_init(&rest[s], "rest");
    }
    size_t only[2] = {0, 0};
    for (size_t i = 0; i < t.n; i++) {
        row *r = &t.r[i];
        for (int s = 0; s < 2; s++)
            if (r->seen[s]) {
                rt_kernel_accumulate(&tot[s], &r->k[s]);
                if (i >= (size_t)top && !csv)
                    rt_kernel_accumulate(&rest[s], &r->k[s]);
            }
        if (r->seen[0] != r->seen[1])
            only[r->seen[0] ? 0 : 1]++;
        if (i >= (size_t)top && !csv) {
            any_rest = 1;
            continue;
        }
        side b, a;
        figures(&r->k[0], r->seen[0], m, &ctx[0], &b);
        figures(&r->k[1], r->seen[1], m, &ctx[1], &a);
        print_row(stdout, r->key, &b, &a, csv);
    }
    side b, a;
    if (any_rest) {
        char label[64];
        snprintf(label, sizeof label, "(%zu more)", t.n - (size_t)top);
        figures(&rest[0], 1, NULL, NULL, &b);
        figures(&rest[1], 1, NULL, NULL, &a);
        print_row(stdout, label, &b, &a, 0);
    }
    figures(&tot[0], 1, m, &ctx[0], &b);
    figures(&tot[1], 1, m, &ctx[1], &a);
    print_row(stdout, "total", &b, &a, csv);
    if (!csv) {
        printf("%zu matched by %s; %zu only before, %zu only after%s\n", t.n - only[0] - only[1],
               by, only[0], only[1], m ? "" : "; no machine (-m): verdicts not computed");
    }
    for (int s = 0; s < 2; s++) {
        rt_kernel_release(&tot[s]);
        rt_kernel_release(&rest[s]);
    }
    rc = RT_EXIT_OK;
out:
    for (size_t i = 0; i < t.n; i++) {
        free(t.r[i].key);
        rt_kernel_release(&t.r[i].k[0]);
        rt_kernel_release(&t.r[i].k[1]);
    }
    free(t.r);
    rt_name_index_release(&t.ix);
    rt_profile_free(p[0]);
    rt_profile_free(p[1]);
    rt_machine_free(m);
    cli_analysis_release(&in);
    return rc;
}

/* `rooftime diff`: name, entry point, summary and usage (main.c lists it). */
const rt_command rt_cmd_diff = {
    "diff", cmd_diff, "compare two runs kernel by kernel: time, FLOPs, bytes, AI and verdict",
    "rooftime diff [-m MACHINE [--mode single|hier] [--reference U[/L]] [--tau NAME|TIME]]\n"
    "              [--by name|op|TAG] [--top N] [--format text|csv] BEFORE.json AFTER.json\n"
    "\n"
    "Matches the kernels of two profiles and prints, per kernel and in total, the time, FLOPs,\n"
    "bytes (the first memory level recorded) and arithmetic intensity before and after, and with\n"
    "a machine the verdict (bound) of each; rows by the largest change in time first.\n"
    "  -m, --machine M        a machine file or preset, for the verdicts\n"
    "      --mode MODE        single (default) or hier, as `analyze`\n"
    "      --reference U[/L]  reference unit and level (default: chosen from both runs as\n"
    "                         `analyze` chooses it: the highest-peak unit the kernels use)\n"
    "      --tau NAME|TIME    launch overhead, as `analyze`\n"
    "      --by KEY           match by name (name and tags but 'caller' and 'onednn', the\n"
    "                         default), op (the name up to\n"
    "                         its first blank: an operator whatever its shapes), or a tag\n"
    "      --top N            the N largest changes, the rest summed in one row (default 30;\n"
    "                         CSV lists every row)\n"
    "      --format text|csv  a table for people (default) or CSV\n"
    "Kernels only in one run show '-' on the other side. See docs/import-frameworks.md."};

/* `plot --diff`: two profiles into two whose kernels are the top kernels by change in time,
 * matched by `by` as `diff --by` matches them, each tagged kernel=KEY and run=1-before or 2-after,
 * so that a family by run joins each kernel's two points. *notes (heap strings, *n_notes of them;
 * the caller frees them with cli_free_list) say what the chart cannot show: kernels in one run
 * only, and kernels with no FLOPs, which no view can place. 0, or -1 when there are not two
 * profiles. */
int cli_diff_for_plot(rt_profile *const *ps, size_t n, size_t top, const char *by, rt_profile **out,
                      char ***notes, size_t *n_notes)
{
    *notes = NULL;
    *n_notes = 0;
    if (n != 2)
        return -1;
    table t = {0};
    add(&t, ps[0], 0, by);
    add(&t, ps[1], 1, by);
    qsort(t.r, t.n, sizeof *t.r, row_cmp);
    static const char *const run[2] = {"1-before", "2-after"};
    size_t only[2] = {0, 0}, only_top[2] = {0, 0}, no_flops = 0, shown = t.n < top ? t.n : top;
    double no_flops_t = 0;
    const row *largest = NULL;
    for (size_t i = 0; i < t.n; i++) {
        const row *r = &t.r[i];
        if (r->seen[0] != r->seen[1]) {
            only[r->seen[1]]++;
            only_top[r->seen[1]] += i < top;
        }
        if (i >= top)
            continue;
        double w = (r->seen[0] ? rt_values_sum(&r->k[0].flops) : 0) +
                   (r->seen[1] ? rt_values_sum(&r->k[1].flops) : 0);
        if (!(w > 0)) {
            no_flops++;
            no_flops_t += fabs(delta_of(r));
            if (!largest)
                largest = r;
        }
    }
    for (int s = 0; s < 2; s++) {
        rt_profile *p = rt_profile_new();
        p->tool = rt_strdup("rooftime-diff");
        for (size_t i = 0; i < shown; i++) {
            const row *r = &t.r[i];
            if (!r->seen[s])
                continue;
            rt_kernel *k = rt_profile_add_kernel(p, r->key);
            rt_kernel_accumulate(k, &r->k[s]);
            rt_tags_set(&k->tags, "kernel", r->key);
            rt_tags_set(&k->tags, "run", run[s]);
        }
        out[s] = p;
    }
    char **nt = rt_xcalloc(2, sizeof *nt);
    size_t nn = 0;
    nt[nn++] = rt_asprintf(
        "diff of the %zu kernels whose time changed most, matched by %s: %zu only before and %zu "
        "only after among them (a point without its pair); %zu only before and %zu only after "
        "in all",
        shown, by, only_top[0], only_top[1], only[0], only[1]);
    if (no_flops) {
        char d[48];
        rt_fmt_time(d, sizeof d, no_flops_t);
        nt[nn++] = rt_asprintf("%zu of them have no FLOPs in either run, %s of change in time "
                               "(the largest: '%.60s'): no view places a kernel without FLOPs, "
                               "so they are not drawn; `rooftime diff` lists them",
                               no_flops, d, largest->key);
    }
    *notes = nt;
    *n_notes = nn;
    for (size_t i = 0; i < t.n; i++) {
        free(t.r[i].key);
        rt_kernel_release(&t.r[i].k[0]);
        rt_kernel_release(&t.r[i].k[1]);
    }
    free(t.r);
    rt_name_index_release(&t.ix);
    return 0;
}
