/* `rooftime report`: the whole analysis as one self-contained HTML file with its charts. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli-across.h"
#include "cli-output.h"
#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/hints.h"
#include "rooftime/formats/hints-json.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/render/report-run.h"
#include "rooftime/render/report.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* The report writes DIR/report.html and DIR/<chart>.svg: a usage error (2) when an input (the
 * profiles, or the machine when it is a file) is DIR itself or one of those names in DIR. */
static int check_inputs(const char *dir, char *const *profiles, size_t n, const char *machine)
{
    struct stat st;
    for (size_t i = 0; i <= n; i++) {
        const char *in = i < n ? profiles[i] : machine;
        if (!in || strcmp(in, "-") == 0 || stat(in, &st) != 0)
            continue; /* a machine preset, or an input that will fail to load */
        const char *slash = strrchr(in, '/'), *base = slash ? slash + 1 : in;
        size_t len = strlen(base);
        int ours =
            strcmp(base, "report.html") == 0 || (len > 4 && strcmp(base + len - 4, ".svg") == 0);
        if (cli_output_is_input(dir, (char **)&in, 1) || (ours && rt_path_in_dir(in, dir)))
            return cli_usage_error("report", "-o '%s' would overwrite the input '%s'", dir, in);
    }
    return 0;
}

/* What the options ask of the report, past the analysis options. */
typedef struct report_args {
    const char *output, *title, *series, *marker, *fill;
    const char *const *split;
    size_t n_split;
    rt_points points;
    bool all_roofs;
    int across;
    rt_mode mode;
    rt_group_opts g;
} report_args;

/* A split or styling tag the options name that no kernel carries: the report leaves it out
 * (so that one report call fits every profile), and says so. */
static void warn_unused_tags(const report_args *o, const rt_analysis *a)
{
    const char *const opt[] = {"--series-by", "--marker-by", "--fill-by"};
    const char *const tag[] = {o->series, o->marker, o->fill};
    for (size_t i = 0; i < 3; i++)
        if (tag[i] && !rt_report_tag_find(a, tag[i]))
            cli_warning("%s '%s': no kernel carries this tag; the charts leave it out", opt[i],
                        tag[i]);
    for (size_t k = 0; k < o->n_split; k++)
        if (!rt_report_tag_find(a, o->split[k]))
            cli_warning("--split-by '%s': no kernel carries this tag; it splits nothing",
                        o->split[k]);
}

/* Analyse the profiles (in o->mode; the hier charts beside a single-mode report come from the same
 * analysis in hier mode for a while) and write the report into o->output; returns the exit code. */
static int write_report(const report_args *o, const rt_machine *m, rt_profile **ps, char **paths,
                        size_t n_ps)
{
    int rc = RT_EXIT_FAIL;
    rt_error err;
    char *across_html = NULL;
    /* The analysis, computed once in the report's mode; the callouts come from it. Beside a
     * single-mode one, the hierarchical roofline is drawn from it in hier mode for a while
     * (rt_report_write_modes): a second analysis would double the memory. */
    rt_analysis *a = rt_analysis_new(m, o->mode, ps, n_ps, &o->g, &err);
    rt_verdict_hints hints = {0};
    if (!a || rt_verdict_hints_load(NULL, &hints, &err) != 0) {
        cli_error("%s", err.msg);
    } else {
        warn_unused_tags(o, a);
        rt_report_section sec = {"Stragglers across ranks", NULL};
        if (o->across)
            sec.html = across_html = cli_across_section(ps, paths, n_ps, m);
        /* a generation loop's phases first, one set of charts per phase unless --split-by says
         * otherwise (rt_report_write_run) */
        rt_report_opts ro = {.title = o->title,
                             .split_by = o->split,
                             .n_split_by = o->n_split,
                             .series_by = o->series,
                             .marker_by = o->marker,
                             .fill_by = o->fill,
                             .points = o->points,
                             .all_roofs = o->all_roofs,
                             .sections = o->across ? &sec : NULL,
                             .n_sections = o->across ? 1 : 0};
        if (o->across && !across_html) {
            /* cli_across_section said why */
        } else if (rt_report_write_run(a, ps, n_ps, &hints, &ro, o->output, &err) != 0) {
            cli_error("%s", err.msg);
        } else {
            printf("%s/report.html\n", o->output);
            rc = RT_EXIT_OK;
        }
    }
    rt_verdict_hints_release(&hints);
    if (cli_frees_at_exit()) { /* else the exit does */
        rt_analysis_free(a);
    }
    free(across_html);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    report_args o = {.points = RT_POINTS_CONFIGS};
    cli_analysis_opts in = {0};
    const char *output = NULL;
    char **split = NULL;
    size_t n_split = 0;
    int rc = RT_EXIT_USAGE;
    static const struct option opts[] = {{"machine", required_argument, NULL, 'm'},
                                         {"mode", required_argument, NULL, 'M'},
                                         {"series-by", required_argument, NULL, 's'},
                                         {"marker-by", required_argument, NULL, 'k'},
                                         {"fill-by", required_argument, NULL, 'F'},
                                         {"split-by", required_argument, NULL, 'S'},
                                         {"title", required_argument, NULL, 't'},
                                         {"group-by", required_argument, NULL, 'g'},
                                         {"ignore", required_argument, NULL, 'i'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"across", required_argument, NULL, 'A'},
                                         {"points", required_argument, NULL, 'p'},
                                         {"all-roofs", no_argument, NULL, 'R'},
                                         CLI_ANALYSIS_LONG_OPTS,
                                         {0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:g:o:", opts, NULL)) != -1) {
        if (cli_analysis_option(&in, c, optarg))
            continue;
        switch (c) {
        case 's':
            o.series = optarg;
            break;
        case 'k':
            o.marker = optarg;
            break;
        case 'F':
            o.fill = optarg;
            break;
        case 'S':
            rt_free_list(split, n_split);
            split = rt_split_list(optarg, &n_split);
            break;
        case 't':
            o.title = optarg;
            break;
        case 'p': {
            rt_error perr;
            if (rt_points_parse(optarg, &o.points, &perr) != 0) {
                rc = cli_usage_error("report", "--points: %s", perr.msg);
                goto out;
            }
            break;
        }
        case 'R':
            o.all_roofs = true;
            break;
        case 'o':
            output = optarg;
            break;
        case 'A':
            if (strcmp(optarg, "rank") != 0) {
                rc = cli_usage_error("report", "--across takes 'rank', not '%s'", optarg);
                goto out;
            }
            o.across = 1;
            break;
        default:
            rc = cli_option_error("report", NULL, c, argv, opts);
            goto out;
        }
    }
    if ((rc = cli_analysis_finish(&in, "report", "single", &o.mode, &o.g)) != 0)
        goto out;
    rc = RT_EXIT_USAGE;
    if (!output || !*output) {
        rc = cli_usage_error("report",
                             output ? "-o: the output path is empty" : "-o DIR is required");
        goto out;
    }
    if (optind >= argc) {
        rc = cli_usage_error("report", "no profile given");
        goto out;
    }
    if ((rc = cli_inputs_distinct("report", argv + optind, (size_t)(argc - optind))) != 0 ||
        (rc = check_inputs(output, argv + optind, (size_t)(argc - optind), in.machine)) != 0)
        goto out;
    o.output = output;
    o.split = (const char *const *)split;
    o.n_split = n_split;
    rc = RT_EXIT_FAIL;
    rt_machine *m = NULL;
    rt_profile **ps = NULL;
    size_t n_ps = (size_t)(argc - optind);
    if (cli_load_inputs(in.machine, argv + optind, n_ps, &m, &ps) != 0)
        goto out;
    if ((rc = cli_analysis_apply(&in, "report", m, ps, n_ps)) != 0) {
        cli_free_profiles(ps, n_ps);
        rt_machine_free(m);
        goto out;
    }
    rc = write_report(&o, m, ps, argv + optind, n_ps);
    if (cli_frees_at_exit())
        cli_free_profiles(ps, n_ps);
    rt_machine_free(m);
out:
    cli_analysis_release(&in);
    rt_free_list(split, n_split);
    return rc;
}

/* `rooftime report`: name, entry point, summary and usage (main.c lists it). */
const rt_command rt_cmd_report = {
    "report", cmd_report, "write a self-contained HTML report with every view and the tables",
    "rooftime report --machine NAME|FILE [options] -o DIR PROFILE...\n"
    "\n"
    "  -m, --machine M       machine preset name or machine file (required)\n"
    "      --mode MODE       single (default, the paper's) or hier\n"
    "      --split-by TAGS   one set of charts per distinct value of these tags (e.g. pass;\n"
    "                        default: phase when the kernels carry one, a generation loop)\n"
    "      --series-by TAG   color (default: framework or implementation when present)\n"
    "      --marker-by TAG   marker shape\n"
    "      --fill-by TAG     filled or hollow symbols (default: precision when present)\n"
    "      --title T         report title\n"
    "      --points P        complexity, time and 4d views: configs (default) or kernels\n"
    "      --all-roofs       every unit and level of the machine, not only those used\n"
    "  -g, --group-by TAGS   comma-separated tags that make a config\n"
    "      --ignore TAGS     tags that never make or split a family\n"
    "  -o, --output DIR      writes DIR/report.html and the chart SVGs "
    "(required)\n" CLI_ANALYSIS_USAGE
    "      --across rank     the profiles are a job's ranks: adds a stragglers section with a\n"
    "                        box per config (see docs/across-ranks.md)\n"
    "\n"
    "See docs/charts.md.",
    "  rooftime report -m v100 -o report/ run.json   # report/report.html and its SVGs\n"
    "  rooftime report -m mine.json --mode hier -o cmp/ before.json after.json\n"};
