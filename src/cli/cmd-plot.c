/* `rooftime plot`: one time-based roofline view of some profiles, as SVG, PNG or PDF. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#include "cli-output.h"
#include "cli-diff.h"
#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/render/chart.h"
#include "rooftime/render/draw.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static int parse_size(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno || !(v >= 200 && v <= 10000))
        return -1;
    *out = v;
    return 0;
}

/* The options of one `plot` command line; the chart's spec filled as they are read (view,
 * filters and notes are set after). */
typedef struct plot_args {
    cli_analysis_opts in;
    const char *view_s, *output, *diff_by;
    size_t diff_top;
    char **where;
    size_t n_where;
    rt_chart_spec spec;
} plot_args;

static const struct option opts[] = {{"machine", required_argument, NULL, 'm'},
                                     {"view", required_argument, NULL, 'v'},
                                     {"mode", required_argument, NULL, 'M'},
                                     {"series-by", required_argument, NULL, 's'},
                                     {"marker-by", required_argument, NULL, 'k'},
                                     {"fill-by", required_argument, NULL, 'F'},
                                     {"family", required_argument, NULL, 'f'},
                                     {"where", required_argument, NULL, 'w'},
                                     {"title", required_argument, NULL, 't'},
                                     {"group-by", required_argument, NULL, 'g'},
                                     {"ignore", required_argument, NULL, 'i'},
                                     {"width", required_argument, NULL, 'W'},
                                     {"height", required_argument, NULL, 'H'},
                                     {"labels", required_argument, NULL, 'L'},
                                     {"output", required_argument, NULL, 'o'},
                                     {"points", required_argument, NULL, 'p'},
                                     {"all-roofs", no_argument, NULL, 'R'},
                                     {"diff", optional_argument, NULL, 'D'},
                                     {"by", required_argument, NULL, 'B'},
                                     CLI_ANALYSIS_LONG_OPTS,
                                     {0}};

/* One option of `plot` (not an analysis option): 0, or the exit code of the usage error it
 * printed. argv: the command line, for getopt's errors. */
static int plot_option(plot_args *o, int c, const char *arg, char *const *argv)
{
    rt_error perr;
    switch (c) {
    case 'v':
        o->view_s = arg;
        break;
    case 's':
        o->spec.series_by = arg;
        break;
    case 'k':
        o->spec.marker_by = arg;
        break;
    case 'F':
        o->spec.fill_by = arg;
        break;
    case 'f':
        o->spec.family = arg;
        break;
    case 'w':
        if (!strchr(arg, '=') || arg[0] == '=') {
            return cli_usage_error("plot", "--where takes TAG=VALUE, not '%s'", arg);
        }
        o->where = rt_xrealloc(o->where, (o->n_where + 1) * sizeof *o->where);
        o->where[o->n_where++] = rt_strdup(arg);
        break;
    case 't':
        o->spec.title = arg;
        break;
    case 'W':
    case 'H':
        if (parse_size(arg, c == 'W' ? &o->spec.width : &o->spec.height) != 0) {
            return cli_usage_error("plot", "--%s takes points between 200 and 10000, not '%s'",
                                   c == 'W' ? "width" : "height", arg);
        }
        break;
    case 'L': {
        long v;
        if (cli_parse_long(arg, 1, LONG_MAX, &v) != 0) {
            return cli_usage_error("plot", "--labels takes a whole number >= 1, not '%s'", arg);
        }
        o->spec.max_labels = (size_t)v;
        break;
    }
    case 'o':
        o->output = arg;
        break;
    case 'p':
        if (rt_points_parse(arg, &o->spec.points, &perr) != 0) {
            return cli_usage_error("plot", "--points: %s", perr.msg);
        }
        break;
    case 'R':
        o->spec.all_roofs = true;
        break;
    case 'D': {
        long v = 8;
        if (arg && cli_parse_long(arg, 1, 1000, &v) != 0) {
            return cli_usage_error("plot", "--diff=N takes a whole number from 1 to 1000, not '%s'",
                                   arg);
        }
        o->diff_top = (size_t)v;
        break;
    }
    case 'B':
        o->diff_by = arg;
        break;
    default:
        return cli_option_error("plot", NULL, c, argv, opts);
    }
    return 0;
}

int cmd_plot(int argc, char **argv)
{
    plot_args o = {.view_s = "4d", .spec.points = RT_POINTS_CONFIGS};
    char **notes = NULL;
    size_t n_notes = 0;
    int rc = RT_EXIT_USAGE;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:v:g:w:o:", opts, NULL)) != -1) {
        if (cli_analysis_option(&o.in, c, optarg))
            continue;
        if ((rc = plot_option(&o, c, optarg, argv)) != 0)
            goto out;
    }
    rc = RT_EXIT_USAGE;
    rt_view view;
    rt_mode mode;
    rt_error err;
    rt_draw_format fmt;
    rt_group_opts g;
    if (!o.in.machine) {
        rc = cli_usage_error("plot", "--machine is required");
        goto out;
    }
    if (rt_view_parse(o.view_s, &view, &err) != 0) {
        rc = cli_usage_error("plot", "%s", err.msg);
        goto out;
    }
    /* The roofline shows every level by default; the other views are the paper's single mode. */
    rc = cli_analysis_finish(&o.in, "plot", rt_mode_name(rt_view_default_mode(view)), &mode, &g);
    if (rc != 0)
        goto out;
    rc = RT_EXIT_USAGE;
    if (!o.output) {
        rc = cli_usage_error("plot", "-o FILE is required (.svg, .png or .pdf)");
        goto out;
    }
    if (rt_draw_format_from_path(o.output, &fmt, &err) != 0) {
        rc = cli_usage_error("plot", "%s", err.msg);
        goto out;
    }
    if (optind >= argc) {
        rc = cli_usage_error("plot", "no profile given");
        goto out;
    }
    if ((rc = cli_output_check("plot", o.output, argv + optind, (size_t)(argc - optind))) != 0 ||
        (rc = cli_output_check("plot", o.output, (char **)&o.in.machine, 1)) != 0) {
        goto out;
    }
    rc = RT_EXIT_FAIL;
    if (!rt_draw_format_available(fmt)) {
        cli_error("%s: %s output needs cairo (Debian libcairo2-dev), not found at configure time",
                  o.output, rt_draw_format_name(fmt));
        goto out;
    }
    rt_machine *m = NULL;
    rt_profile **ps = NULL;
    size_t n_ps = (size_t)(argc - optind);
    if (o.diff_top && n_ps != 2) {
        rc = cli_usage_error("plot", "--diff takes two profiles, BEFORE and AFTER");
        goto out;
    }
    if (o.diff_by && !o.diff_top) {
        rc = cli_usage_error("plot", "--by is for --diff");
        goto out;
    }
    /* --diff may compare a file with itself; anywhere else it would count twice */
    if (!o.diff_top && (rc = cli_inputs_distinct("plot", argv + optind, n_ps)) != 0)
        goto out;
    rc = RT_EXIT_FAIL;
    if (cli_load_inputs(o.in.machine, argv + optind, n_ps, &m, &ps) != 0)
        goto out;
    if ((rc = cli_analysis_apply(&o.in, "plot", m, ps, n_ps)) != 0) {
        cli_free_profiles(ps, n_ps);
        rt_machine_free(m);
        goto out;
    }
    rc = RT_EXIT_FAIL;
    if (o.diff_top) {
        /* each kernel's two points, joined from the filled (before) to the hollow (after) */
        rt_profile *d[2];
        cli_diff_for_plot(ps, n_ps, o.diff_top, o.diff_by ? o.diff_by : "name", d, &notes,
                          &n_notes);
        rt_profile_free(ps[0]);
        rt_profile_free(ps[1]);
        ps[0] = d[0];
        ps[1] = d[1];
        /* families vary only the run, found by the chart itself: a kernel of one run only is a
         * point without its pair, not hidden as a family asked for by name would hide it */
        static const char *const run_param[] = {"run"};
        g.params = run_param;
        g.n_params = 1;
        o.spec.fill_by = o.spec.fill_by ? o.spec.fill_by : "run";
        o.spec.series_by = o.spec.series_by ? o.spec.series_by : "kernel";
    }
    rt_analysis *a = rt_analysis_new(m, mode, ps, n_ps, &g, &err);
    if (!a) {
        cli_error("%s", err.msg);
    } else {
        cli_print_warnings(&a->warnings, 10,
                           "`rooftime analyze --format json` with the same machine, mode and "
                           "inputs");
        o.spec.view = view;
        o.spec.where = (const char *const *)o.where;
        o.spec.n_where = o.n_where;
        o.spec.notes = (const char *const *)notes;
        o.spec.n_notes = n_notes;
        if (rt_chart_render(&o.spec, a, o.output, &err) != 0)
            cli_error("%s", err.msg);
        else
            rc = RT_EXIT_OK;
    }
    if (cli_frees_at_exit()) { /* else the exit does */
        rt_analysis_free(a);
        cli_free_profiles(ps, n_ps);
    }
    rt_machine_free(m);
out:
    cli_analysis_release(&o.in);
    rt_free_list(o.where, o.n_where);
    rt_free_list(notes, n_notes);
    return rc;
}

/* The usage, with the views listed from their table (chart-views.c): built once before main
 * runs, so that `rooftime help plot` reads it like any command's. */
static const char usage_head[] =
    "rooftime plot --machine NAME|FILE [options] -o FILE.svg|.png|.pdf PROFILE...\n"
    "\n"
    "  -m, --machine M       machine preset name or machine file (required)\n";
static const char usage_tail[] =
    "      --mode MODE       single or hier (default: hier for roofline, single otherwise)\n"
    "      --series-by TAG   color by this tag (e.g. framework)\n"
    "      --marker-by TAG   marker shape by this tag (e.g. batch)\n"
    "      --fill-by TAG     filled (first value) or hollow symbols by this tag (e.g. precision)\n"
    "      --family PARAM    draw the configs that vary only in PARAM, joined in its order\n"
    "                        (default: all configs, lines for the most common parameter;\n"
    "                        none: no lines)\n"
    "  -w, --where TAG=VAL   draw only kernels with this tag value (repeatable)\n"
    "      --title T         chart title\n"
    "  -g, --group-by TAGS   comma-separated tags that make a config (default: every tag)\n"
    "      --ignore TAGS     tags that never make or split a family\n"
    "      --width W, --height H  size in points (default 780 x 560; PNG has 2 pixels a point)\n"
    "      --labels N        label the N longest kernels or configs (K1.., C1..; default 8)\n"
    "      --points P        complexity, time and 4d: configs (default) or kernels (each kernel\n"
    "                        a point sized by its share of time, labelled K1.. as in the tables)\n"
    "      --all-roofs       roofline: every unit and level of the machine, not only those the\n"
    "                        kernels use\n"
    "      --diff[=N]        two profiles, BEFORE and AFTER: the N kernels (default 8) whose time\n"
    "                        changed most, each tagged run=1-before or 2-after,\n"
    "                        joined as a family by run (as `rooftime diff` matches them); a note\n"
    "                        says how many are in one run only and which have no FLOPs\n"
    "      --by KEY          with --diff: match kernels by name (default), op or a tag, as\n"
    "                        `rooftime diff --by`\n"
    "  -o, --output FILE     the chart; its extension picks the format "
    "(required)\n" CLI_ANALYSIS_USAGE "\n"
    "See docs/charts.md.";
static char usage[4096];

__attribute__((constructor)) static void usage_build(void)
{
    char views[256];
    rt_view_list(views, sizeof views);
    size_t n =
        (size_t)snprintf(usage, sizeof usage, "%s  -v, --view V          %s (default 4d)\n%s",
                         usage_head, views, usage_tail);
    if (n >= sizeof usage)
        abort(); /* the usage outgrew the buffer: a build mistake, caught by cli-usage.sh */
}

/* `rooftime plot`: name, entry point, summary and usage (main.c lists it). */
const rt_command rt_cmd_plot = {
    "plot", cmd_plot, "draw one time-based roofline view (SVG, PNG or PDF)", usage,
    "  rooftime plot -m v100 -o fig.png run.json                 # the 4d view, into fig.png\n"
    "  rooftime plot -m v100 --view roofline -o roof.svg run.json   # the classic roofline\n"
    "  rooftime plot -m v100 --points kernels -o k.pdf run.json  # each kernel a point, K1..\n"};
