/* `rooftime diff BEFORE.json AFTER.json`: two runs side by side, kernel by kernel and in total:
 * time, FLOPs, bytes, arithmetic intensity and, with a machine, the verdict before and after. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-diff.h"
#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/diff-phases.h"
#include "rooftime/formats/diff-format.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/util/error.h"
#include "rooftime/util/format.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"

/* The gate's options (`diff --gate`). */
enum {
    OPT_GATE = 0x1100,
    OPT_THRESHOLD,
    OPT_MIN_SHARE,
    OPT_LAUNCHES,
    OPT_STRICT,
    OPT_OTHER_MACHINE,
    OPT_SUSPECT_MACHINE,
    OPT_JUNIT,
    OPT_SUMMARY,
};

/* A percentage, "5" or "5%", into a fraction in (0, 10]; -1 when it is not one. */
static int parse_pct(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || (*end && strcmp(end, "%") != 0) || !(v > 0) || v > 1000)
        return -1;
    *out = v / 100;
    return 0;
}

/* One of the gate's options into go; the name of the first one given (for "is for --gate"). */
static int gate_option(cli_diff_gate_opts *go, int c, const char *arg, const char **first,
                       int *gate)
{
    const char *name = NULL;
    double v;
    switch (c) {
    case OPT_GATE:
        *gate = 1;
        return 0;
    case OPT_THRESHOLD:
        name = "--threshold";
        if (parse_pct(arg, &go->gate.threshold) != 0)
            return cli_usage_error("diff",
                                   "--threshold: expected a percentage above 0 (5 or 5%%), "
                                   "got '%s'",
                                   arg);
        break;
    case OPT_MIN_SHARE:
        name = "--min-share";
        if (strcmp(arg, "0") == 0)
            go->gate.min_share = 0;
        else if (parse_pct(arg, &go->gate.min_share) != 0 || go->gate.min_share > 1)
            return cli_usage_error("diff",
                                   "--min-share: expected a percentage from 0 to 100, "
                                   "got '%s'",
                                   arg);
        break;
    case OPT_LAUNCHES:
        name = "--launches";
        if (!rt_parse_double(arg, &v) || !(v >= 0) || v > 1e15)
            return cli_usage_error("diff",
                                   "--launches: expected a number of launches >= 0, "
                                   "got '%s'",
                                   arg);
        go->gate.launches = v;
        break;
    case OPT_STRICT:
        name = "--strict";
        go->gate.strict = true;
        break;
    case OPT_OTHER_MACHINE:
        name = "--allow-other-machine";
        go->gate.other_machine = true;
        break;
    case OPT_SUSPECT_MACHINE:
        name = "--allow-suspect-machine";
        go->gate.suspect_machine = true;
        break;
    case OPT_JUNIT:
    case OPT_SUMMARY:
        name = c == OPT_JUNIT ? "--junit" : "--summary";
        if (!*arg)
            return cli_usage_error("diff", "%s: the output path is empty", name);
        *(c == OPT_JUNIT ? &go->junit : &go->summary) = arg;
        break;
    default:
        return -1;
    }
    if (!*first)
        *first = name;
    return 0;
}

int cmd_diff(int argc, char **argv)
{
    static const struct option opts[] = {
        {"machine", required_argument, NULL, 'm'},
        {"mode", required_argument, NULL, 'M'},
        {"by", required_argument, NULL, 'b'},
        {"top", required_argument, NULL, 'n'},
        {"format", required_argument, NULL, 'f'},
        {"gate", no_argument, NULL, OPT_GATE},
        {"threshold", required_argument, NULL, OPT_THRESHOLD},
        {"min-share", required_argument, NULL, OPT_MIN_SHARE},
        {"launches", required_argument, NULL, OPT_LAUNCHES},
        {"strict", no_argument, NULL, OPT_STRICT},
        {"allow-other-machine", no_argument, NULL, OPT_OTHER_MACHINE},
        {"allow-suspect-machine", no_argument, NULL, OPT_SUSPECT_MACHINE},
        {"junit", required_argument, NULL, OPT_JUNIT},
        {"summary", required_argument, NULL, OPT_SUMMARY},
        CLI_ANALYSIS_LONG_OPTS,
        {0}};
    /* machine, mode, reference and tau as analyze takes them, and applies them */
    cli_analysis_opts in = {0};
    const char *by = "name", *format = "text", *gate_only = NULL;
    cli_diff_gate_opts go = {.gate = {.threshold = RT_GATE_DEFAULT_THRESHOLD,
                                      .min_share = RT_GATE_DEFAULT_MIN_SHARE,
                                      .launches = RT_GATE_DEFAULT_LAUNCHES}};
    int gate = 0, g;
    rt_mode mode = RT_MODE_SINGLE;
    long top = 30;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:b:n:f:", opts, NULL)) != -1) {
        char *end;
        if (cli_analysis_option(&in, c, optarg))
            continue;
        if ((g = gate_option(&go, c, optarg, &gate_only, &gate)) >= 0) {
            if (g != 0)
                return g;
            continue;
        }
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
            return cli_option_error("diff", NULL, c, argv, opts);
        }
    }
    rt_error err = {{0}};
    if (in.mode && rt_mode_parse(in.mode, &mode, &err) != 0)
        return cli_usage_error("diff", "%s", err.msg);
    if (!in.machine && (in.reference || in.tau))
        return cli_usage_error("diff", "--reference and --tau need a machine (-m)");
    if (gate_only && !gate)
        return cli_usage_error("diff", "%s is for --gate", gate_only);
    if (gate && strcmp(format, "text") != 0)
        return cli_usage_error("diff", "--gate prints its report as text; --junit and --summary "
                                       "write it for CI systems");
    if (argc - optind != 2)
        return cli_usage_error("diff", "expected two profiles, BEFORE and AFTER");
    if (gate) {
        go.mode = mode;
        go.by = by;
        go.top = (size_t)top;
        int rc = cli_diff_gate(&go, &in, argv[optind], argv[optind + 1]);
        cli_analysis_release(&in);
        return rc;
    }
    rt_profile *p[2] = {NULL, NULL};
    rt_machine *m = NULL;
    int rc = RT_EXIT_FAIL;
    rt_diff t = {0};
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
    rt_diff_build(&t, p[0], p[1], by);
    rt_diff_opts o = {
        .m = m, .mode = mode, .by = by, .top = (size_t)top, .csv = strcmp(format, "csv") == 0};
    if (rt_diff_write(&t, (const rt_profile *const *)p, &o, stdout) != 0) {
        cli_error("cannot write the table");
        goto out;
    }
    if (!o.csv) /* a generation loop: each phase before and after */
        rt_diff_phases_write(stdout, p[0], p[1]);
    rc = RT_EXIT_OK;
out:
    rt_diff_release(&t);
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
    "rooftime diff --gate [--threshold PCT] [--min-share PCT] [--launches N] [--strict]\n"
    "              [--allow-other-machine] [--allow-suspect-machine] [--junit FILE]\n"
    "              [--summary FILE] [-m MACHINE ...] [--by ...] [--top N]\n"
    "              BEFORE.json[,RUN.json...] AFTER.json[,RUN.json...]\n"
    "\n"
    "Matches the kernels of two profiles and prints, per kernel and in total, the time, FLOPs,\n"
    "bytes (the first memory level recorded) and arithmetic intensity before and after, and with\n"
    "a machine the verdict (bound) of each; rows by the largest change in time first.\n"
    "  -m, --machine M        a machine file or preset, for the verdicts\n"
    "      --mode MODE        single (default) or hier, as `analyze`\n"
    "      --reference U[/L]  reference unit and level (default: chosen from both runs as\n"
    "                         `analyze` chooses it: the highest-peak unit the kernels use)\n"
    "      --tau NAME|TIME    launch overhead, as `analyze`\n"
    "      --by KEY           match by name (the default: the name and the tags that describe\n"
    "                         the work; the source line, caller and launch ids are shown, not\n"
    "                         matched), op (the name up to its first blank: an operator\n"
    "                         whatever its shapes), or a tag\n"
    "      --top N            the N largest changes, the rest summed in one row (default 30;\n"
    "                         CSV lists every row)\n"
    "      --format text|csv  a table for people (default) or CSV\n"
    "Kernels only in one run show '-' on the other side. Runs of a generation loop (kernels\n"
    "tagged with their phase) end with each phase's time and launches before and after. See\n"
    "docs/import-frameworks.md.\n"
    "\n"
    "--gate judges AFTER against BEFORE for CI: exit 1 when AFTER is worse beyond noise (or the\n"
    "gate refused), 0 otherwise; the failing rows first, one line each, then the table, then\n"
    "the verdict. Each side is a profile or a comma list of runs of one workload (their noise\n"
    "between runs is measured then). It fails on the total, a config (kernels of one set of\n"
    "work tags) or a kernel slower by more than the threshold beyond both sides' quartile bands;\n"
    "with -m, a kernel's efficiency against its roof on that one machine file falling as far;\n"
    "and launches per step (notes.steps; per run without) rising by more than N.\n"
    "      --threshold PCT    how much worse beyond noise fails (default 5)\n"
    "      --min-share PCT    kernels and configs judged alone from this share of the time\n"
    "                         (default 1; the total always)\n"
    "      --launches N       more launches per step than this more fails (default 0.5: any)\n"
    "      --strict           a change past the threshold whose noise is unknown fails (a\n"
    "                         spread unknown; beyond the spread within a run, one run a side)\n"
    "                         (default: it is listed as unjudged)\n"
    "      --allow-other-machine    judge runs of two machines (refused by default)\n"
    "      --allow-suspect-machine  judge with a machine file `machine check` fails\n"
    "      --junit FILE       write JUnit XML (a test case per check)\n"
    "      --summary FILE     write a Markdown summary\n"
    "See docs/ci-gate.md.",
    "  rooftime diff before.json after.json           # the table, on standard output\n"
    "  rooftime diff -m v100 --format csv before.json after.json > diff.csv\n"
    "  rooftime diff --gate --junit gate.xml base-1.json,base-2.json after.json   # CI: exit 1 "
    "when worse\n"};

/* `plot --diff`: two profiles into two whose kernels are the top kernels by change in time,
 * matched by `by` as `diff --by` matches them, each tagged kernel=KEY and run=1-before or 2-after,
 * so that a family by run joins each kernel's two points. *notes (heap strings, *n_notes of them;
 * the caller frees them with rt_free_list) say what the chart cannot show: kernels in one run
 * only, and kernels with no FLOPs, which no view can place. 0, or -1 when there are not two
 * profiles. */
int cli_diff_for_plot(rt_profile *const *ps, size_t n, size_t top, const char *by, rt_profile **out,
                      char ***notes, size_t *n_notes)
{
    *notes = NULL;
    *n_notes = 0;
    if (n != 2)
        return -1;
    rt_diff t;
    rt_diff_build(&t, ps[0], ps[1], by);
    static const char *const run[2] = {"1-before", "2-after"};
    size_t only[2] = {0, 0}, only_top[2] = {0, 0}, no_flops = 0, shown = t.n < top ? t.n : top;
    double no_flops_t = 0;
    const rt_diff_row *largest = NULL;
    for (size_t i = 0; i < t.n; i++) {
        const rt_diff_row *r = &t.r[i];
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
            no_flops_t += fabs(rt_diff_delta(r));
            if (!largest)
                largest = r;
        }
    }
    for (int s = 0; s < 2; s++) {
        rt_profile *p = rt_profile_new();
        p->tool = rt_strdup("rooftime-diff");
        for (size_t i = 0; i < shown; i++) {
            const rt_diff_row *r = &t.r[i];
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
    rt_diff_release(&t);
    return 0;
}
