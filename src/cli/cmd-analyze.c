/* `rooftime analyze`: the verdict per kernel and per config. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#include "cli-across.h"
#include "cli-output.h"
#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/core/analysis-phases.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/coverage.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/analysis-format.h"
#include "rooftime/formats/findings-text.h"
#include "rooftime/formats/hints-json.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/error.h"

/* What share of the wall time the operators explain, for profiles that recorded it (`profile
 * --torch`), and what the cost model covered. */
static void print_coverage(FILE *fp, rt_profile **ps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rt_wall_coverage wc;
        char buf[1024];
        if (rt_profile_wall_coverage(ps[i], &wc) == 0) {
            rt_wall_coverage_text(&wc, buf, sizeof buf);
            fprintf(fp, "coverage: profile %zu: %s\n", i + 1, buf);
        }
        if (rt_cost_coverage_text(ps[i], buf, sizeof buf) == 0)
            fprintf(fp, "coverage: profile %zu: %s\n", i + 1, buf);
        /* a GPU trace's device profile (import torch): its launch side */
        static const char *const gpu[][2] = {{"torch_launch_side", "launch"},
                                             {"overhead_method", "launch"}};
        for (size_t k = 0; k < sizeof gpu / sizeof gpu[0]; k++) {
            const char *v = rt_tags_get(&ps[i]->provenance.notes, gpu[k][0]);
            if (v)
                fprintf(fp, "%s: profile %zu: %s\n", gpu[k][1], i + 1, v);
        }
        /* quantities its importer found no counter for (import ncu): absent, not zero */
        const char *miss = rt_tags_get(&ps[i]->provenance.notes, "missing");
        if (miss)
            fprintf(fp,
                    "missing: profile %zu: %s; what no counter gave is absent, not zero: a kernel "
                    "called zero-AI or overhead-bound may only lack those FLOPs or bytes\n",
                    i + 1, miss);
    }
}

/* The kernels split by the phases of a generation loop (their phase tag: profile --torch tags
 * prefill and decode), when they carry one. */
static void print_phases(FILE *fp, const rt_analysis *a)
{
    rt_findings *f = rt_analysis_phases(a);
    if (!f)
        return;
    char *text = rt_findings_text(f);
    fprintf(fp, "\n%s", text);
    free(text);
    rt_findings_free(f);
}

int cmd_analyze(int argc, char **argv)
{
    /* Across ranks: its own options and fold (cmd-analyze-across.c). */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--across") == 0 || strncmp(argv[i], "--across=", 9) == 0)
            return cli_analyze_across(argc, argv);
    const char *format = "text", *output = NULL;
    cli_analysis_opts in = {0};
    size_t top = 20;
    int rc = RT_EXIT_USAGE;
    static const struct option opts[] = {{"machine", required_argument, NULL, 'm'},
                                         {"mode", required_argument, NULL, 'M'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"group-by", required_argument, NULL, 'g'},
                                         {"ignore", required_argument, NULL, 'i'},
                                         {"top", required_argument, NULL, 't'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"hints", no_argument, NULL, 'H'},
                                         {"hints-file", required_argument, NULL, 'F'},
                                         CLI_ANALYSIS_LONG_OPTS,
                                         {0}};
    int hints = 0;
    const char *hints_file = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:f:g:o:", opts, NULL)) != -1) {
        if (cli_analysis_option(&in, c, optarg))
            continue;
        switch (c) {
        case 'f':
            format = optarg;
            break;
        case 't': {
            long v;
            if (cli_parse_long(optarg, 0, LONG_MAX, &v) != 0) {
                rc =
                    cli_usage_error("analyze", "--top takes a whole number >= 0, not '%s'", optarg);
                goto out;
            }
            top = (size_t)v;
            break;
        }
        case 'o':
            output = optarg;
            break;
        case 'H':
            hints = 1;
            break;
        case 'F':
            hints = 1;
            hints_file = optarg;
            break;
        default:
            rc = cli_option_error("analyze", NULL, c, argv, opts);
            goto out;
        }
    }
    rt_format fmt;
    rt_mode mode;
    rt_group_opts g;
    if ((rc = cli_analysis_finish(&in, "analyze", "hier", &mode, &g)) != 0)
        goto out;
    rt_error perr;
    if (rt_format_parse(format, &fmt, &perr) != 0) {
        rc = cli_usage_error("analyze", "%s", perr.msg);
        goto out;
    }
    if (optind >= argc) {
        rc = cli_usage_error("analyze", "no profile given");
        goto out;
    }

    char *machine_path = (char *)in.machine;
    if ((rc = cli_inputs_distinct("analyze", argv + optind, (size_t)(argc - optind))) != 0 ||
        (rc = cli_output_check("analyze", output, argv + optind, (size_t)(argc - optind))) != 0 ||
        (rc = cli_output_check("analyze", output, &machine_path, 1)) != 0 ||
        (rc = cli_output_check("analyze", output, (char **)&hints_file, 1)) != 0)
        goto out;
    rc = RT_EXIT_FAIL;
    rt_error err;
    rt_machine *m = NULL;
    rt_profile **ps = NULL;
    size_t n_ps = (size_t)(argc - optind);
    rt_analysis *a = NULL;
    rt_hints *h = NULL;
    if (cli_load_inputs(in.machine, argv + optind, n_ps, &m, &ps) != 0)
        goto out;
    /* The rules are read before anything is written: a bad table leaves no output behind. */
    if (hints && rt_hints_load(hints_file, &h, &err) != 0) {
        cli_error("%s", err.msg);
        goto done;
    }
    if ((rc = cli_analysis_apply(&in, "analyze", m, ps, n_ps)) != 0)
        goto done;
    rc = RT_EXIT_FAIL;
    a = rt_analysis_new(m, mode, ps, n_ps, &g, &err);
    if (!a) {
        cli_error("%s", err.msg);
    } else {
        cli_print_warnings(&a->warnings, 10, "--format json");
        cli_output o;
        rc = cli_output_open(&o, "analyze", output, argv + optind, n_ps);
        if (rc != 0)
            goto done;
        rt_warnings warn = {0};
        int wr = fmt == RT_FORMAT_TEXT ? rt_analysis_write_text(a, top, o.fp)
                                       : rt_analysis_write(a, fmt, o.fp, &warn, &err);
        cli_print_warnings(&warn, 10, NULL);
        rt_warnings_release(&warn);
        if (wr == 0 && fmt == RT_FORMAT_TEXT) {
            print_coverage(o.fp, ps, n_ps);
            print_phases(o.fp, a);
        }
        if (wr == 0 && h) {
            rt_warnings adv = {0};
            rt_hints_eval(h, m, mode, ps, n_ps, &adv);
            /* text: after the table; csv and json stay machine-readable, hints on stderr */
            FILE *hf = fmt == RT_FORMAT_TEXT ? o.fp : stderr;
            for (size_t i = 0; i < adv.n; i++)
                fprintf(hf, "hint: %s\n", adv.msg[i]);
            if (adv.n == 0)
                fprintf(hf, "hint: none of the %s rules fired\n",
                        hints_file ? hints_file : "data/torch/hints.json");
            rt_warnings_release(&adv);
        }
        rc = cli_output_close(&o, wr != 0);
    }
done:
    rt_hints_free(h);
    if (cli_frees_at_exit()) { /* else the exit does */
        rt_analysis_free(a);
        cli_free_profiles(ps, n_ps);
    }
    rt_machine_free(m);
out:
    cli_analysis_release(&in);
    return rc;
}

/* `rooftime analyze`: name, entry point, summary and usage (main.c lists it). */
const rt_command rt_cmd_analyze = {
    "analyze", cmd_analyze,
    "verdict per kernel and per config: what bounds it, how far from the roof",
    "rooftime analyze --machine NAME|FILE [options] PROFILE...\n"
    "rooftime analyze --across rank [options] PROFILE...|DIR... [--mpi]\n"
    "\n"
    "  -m, --machine M      machine preset name or machine file (required)\n"
    "      --mode MODE      single (the paper's: all FLOPs against the reference unit and level)\n"
    "                       or hier (every unit and level at its own ceiling; default)\n"
    "  -f, --format F       text (default), csv or json; csv ends with a tag.<key> column per\n"
    "                       tag key (first seen first, at most 64; empty: the row lacks it)\n"
    "  -g, --group-by TAGS  comma-separated tags that make a config (default: every tag)\n"
    "      --ignore TAGS    tags that never make or split a family\n"
    "      --top N          kernels shown in the text table (default 20, 0 = all)\n"
    "      --hints          advice from the rules of data/torch/hints.json, each with the\n"
    "                       figure that triggered it (--hints-file FILE: another table)\n"
    "  -o, --output FILE    write there instead of standard output\n" CLI_ANALYSIS_USAGE "\n"
    "Each PROFILE is a rooftime profile JSON file (see docs/profile-format.md). The text output\n"
    "ends with the coverage of PyTorch profiles: the share of the wall time the operators\n"
    "explain (`profile --torch`) and the share the cost model gave FLOPs or bytes; for the\n"
    "device profile of a GPU trace, the share of device time with work, how much of the step\n"
    "the GPU was busy, how much of its idle time is launch-bound, and tau measured in the run;\n"
    "and, where kernels carry a phase tag (a generation loop: prefill and decode), each\n"
    "phase's time, work and bounds.\n"
    "\n"
    "--across rank: the profiles of one job's ranks (a DIR gives its *.json), read one at a\n"
    "time; per kernel and config the median, quartiles, min, max and slowest ranks over ranks,\n"
    "and the stragglers named (see docs/across-ranks.md). A profile's rank: its identity.rank,\n"
    "else its 'rank' tag, else the one number in its file name (run.617.json), never its place\n"
    "among the inputs\n"
    "  -m, --machine M      optional: draws the compute roof in --chart\n"
    "  -f, --format F       text (default) or json\n"
    "      --straggler F    a rank more than F above the median is a straggler (default 0.2)\n"
    "      --slowest K      slowest ranks named per kernel and config (default 3)\n"
    "      --top N          rows per table in text (default 20, 0 = all)\n"
    "      --chart FILE     a box per config in the time-based roofline (.svg, .png, .pdf)\n"
    "      --mpi            under mpirun: split the files between ranks, reduce on rank 0\n"
    "  -o, --output FILE    write there instead of standard output",
    "  rooftime analyze -m v100 run.json          # the verdicts as text, on standard output\n"
    "  rooftime analyze -m mine.json --format csv -o verdicts.csv run.json   # as CSV, in a "
    "file\n"
    "  rooftime analyze --across rank prof/       # a job's ranks: medians and stragglers\n"};
