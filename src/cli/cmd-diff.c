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
#include "rooftime/formats/diff-format.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/util/error.h"
#include "rooftime/util/format.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"

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
    while ((c = getopt_long(argc, argv, ":m:b:n:f:", opts, NULL)) != -1) {
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
            return cli_option_error("diff", NULL, c, argv, opts);
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
