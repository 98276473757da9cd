/* `rooftime`: dispatches subcommands from one table. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "rooftime-config.h"

/* The one table of subcommands: help, usage errors and completion all read it. */
const rt_command rt_commands[] = {
    {"help", cmd_help, "show help for rooftime or one command", "rooftime help [COMMAND]"},
    {"machine", cmd_machine, "list, show and check machine files and presets",
     "rooftime machine list\n"
     "rooftime machine show NAME|FILE [--format text|json]\n"
     "rooftime machine check FILE...\n"
     "rooftime machine measure [-o FILE] [--quick] [--threads N] [--max-isa sse|avx2|avx512|amx]\n"
     "\n"
     "NAME is a shipped preset (see `machine list`); FILE is a machine JSON file."},
    {"analyze", cmd_analyze,
     "verdict per kernel and per config: what bounds it, how far from the roof",
     "rooftime analyze --machine NAME|FILE [options] PROFILE...\n"
     "\n"
     "  -m, --machine M      machine preset name or machine file (required)\n"
     "      --mode MODE      single (the paper's: all FLOPs against the reference unit and level)\n"
     "                       or hier (every unit and level at its own ceiling; default)\n"
     "  -f, --format F       text (default), csv or json\n"
     "  -g, --group-by TAGS  comma-separated tags that make a config (default: every tag)\n"
     "      --ignore TAGS    tags that never make or split a family\n"
     "      --top N          kernels shown in the text table (default 20, 0 = all)\n"
     "  -o, --output FILE    write there instead of standard output\n"
     "\n"
     "Each PROFILE is a rooftime profile JSON file (see docs/profile-format.md)."},
    {"import", cmd_import, "turn profiler output or a result table into a rooftime profile",
     "rooftime import ncu FILE... -o PROFILE [options]\n"
     "rooftime import table FILE [--ai-file FILE] [--map QUANTITY=COLUMN]... -o PROFILE\n"
     "rooftime import onednn LOG -o PROFILE [--tag KEY=VALUE]...\n"
     "rooftime import torch TRACE.json -o PROFILE [--within RANGE] [--tag KEY=VALUE]...\n"
     "\n"
     "import ncu: raw `ncu --csv` output (one metric per file or all in one; the program's own\n"
     "output before the table is skipped), aggregated per kernel name\n"
     "  -o, --output FILE      the profile to write (required)\n"
     "      --metrics FILE     metric-to-quantity mapping (default: data/ncu/metrics.json)\n"
     "      --tensor-factor K  FLOPs per tensor instruction (default per CC: 512 sm_70/75, 2048 "
     "sm_80+)\n"
     "      --arch sm_XX       architecture of files without a CC column (default sm_70)\n"
     "      --allow-missing    a launch lacking a metric in one file: warning, counted as 0\n"
     "      --per-launch       one kernel per launch (tags launch and process)\n"
     "  -t, --tag KEY=VALUE    tag the profile (repeatable)\n"
     "\n"
     "import table: one kernel or config per row; defaults read the paper's V100 tables\n"
     "  -o, --output FILE      the profile to write (required)\n"
     "      --ai-file FILE     more AI columns (L2 AI, L1 AI), joined by the tag columns\n"
     "  -m, --map Q=COLUMN     time, invocations, name, flops.UNIT, flops.total, bytes.LEVEL,\n"
     "                         ai.LEVEL (bytes = FLOPs / AI), tag.NAME (repeatable)\n"
     "      --no-defaults      only the --map columns (defaults: CUDA Time, Invocations,\n"
     "                         FP32/FP16/TC FLOPs, FLOPs, DRAM AI -> HBM, L2 AI, L1 AI)\n"
     "      --name-column COL  a tag column that goes into the kernel name instead of the tags\n"
     "                         (repeatable; default: Input Shape, Kernel Shape)\n"
     "  -t, --tag KEY=VALUE    tag the profile (repeatable)\n"
     "\n"
     "import onednn: ONEDNN_VERBOSE=1 / DNNL_VERBOSE=1 output of oneDNN 2.x or 3.x, other output\n"
     "interleaved; one kernel per primitive, implementation and shape; FLOPs from the problem\n"
     "descriptors, bytes = compulsory traffic; unreadable lines are reported by number\n"
     "import torch: a PyTorch profiler chrome trace; operators by self time, GPU kernels by\n"
     "launch; FLOPs from args.flops\n"
     "      --within RANGE     only what runs inside ranges named RANGE (record_function)\n"
     "\n"
     "See docs/import-ncu.md and docs/import-frameworks.md."},
    {"profile", cmd_profile, "run a command with oneDNN verbose output on and profile what it ran",
     "rooftime profile [--tag KEY=VALUE]... [--keep-log FILE] -o PROFILE -- COMMAND [ARGS...]\n"
     "\n"
     "Runs COMMAND (no shell) with ONEDNN_VERBOSE=1 and DNNL_VERBOSE=1; its standard output is\n"
     "read line by line: oneDNN verbose records are imported (see `import onednn`), everything\n"
     "else is passed through unchanged; its standard error is left alone.\n"
     "  -o, --output FILE    the profile to write (required)\n"
     "  -t, --tag KEY=VALUE  tag the profile (repeatable)\n"
     "      --keep-log FILE  also keep the verbose records there\n"
     "Exit code 0 when the command succeeded and oneDNN records were captured; 1 when the\n"
     "command could not start, failed, or printed no records. See docs/import-frameworks.md."},
    {"ncu-metrics", cmd_ncu_metrics,
     "the Nsight Compute metrics rooftime needs, and the ncu command",
     "rooftime ncu-metrics [--arch sm_70|sm_80|sm_90] [--set throughput|sectors] [--metrics FILE]"},
    {"plot", cmd_plot, "draw one time-based roofline view (SVG, PNG or PDF)",
     "rooftime plot --machine NAME|FILE [options] -o FILE.svg|.png|.pdf PROFILE...\n"
     "\n"
     "  -m, --machine M       machine preset name or machine file (required)\n"
     "  -v, --view V          roofline, complexity, time or 4d (default 4d)\n"
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
     "      --labels N        roofline: name the N longest kernels (default 8)\n"
     "  -o, --output FILE     the chart; its extension picks the format (required)\n"
     "\n"
     "See docs/charts.md."},
    {"report", cmd_report, "write a self-contained HTML report with every view and the tables",
     "rooftime report --machine NAME|FILE [options] -o DIR PROFILE...\n"
     "\n"
     "  -m, --machine M       machine preset name or machine file (required)\n"
     "      --mode MODE       single (default, the paper's) or hier\n"
     "      --split-by TAGS   one set of charts per distinct value of these tags (e.g. pass)\n"
     "      --series-by TAG   color (default: framework or implementation when present)\n"
     "      --marker-by TAG   marker shape\n"
     "      --fill-by TAG     filled or hollow symbols (default: precision when present)\n"
     "      --title T         report title\n"
     "  -g, --group-by TAGS   comma-separated tags that make a config\n"
     "      --ignore TAGS     tags that never make or split a family\n"
     "  -o, --output DIR      writes DIR/report.html and the chart SVGs (required)\n"
     "\n"
     "See docs/charts.md."},
    {"completion", cmd_completion, "print a shell completion script", "rooftime completion bash"},
    {"study", cmd_study, "run the Conv2D and LSTM study on this machine and write its report",
     "rooftime study [-o DIR] [--quick] [--machine NAME|FILE] [options]\n"
     "\n"
     "  -o, --output DIR     where to write (default rooftime-study): machine.json,\n"
     "                       profiles/*.json, analysis.{txt,json}, findings.txt, report.html\n"
     "      --quick          the default config and one more point per sweep, 1 warm-up and\n"
     "                       3 measured iterations, a quick machine measurement\n"
     "  -m, --machine M      reuse a machine file (or preset) instead of measuring\n"
     "      --impl LIST      direct, im2col, onednn, unfused, pytorch (default: all; pytorch\n"
     "                       when /usr/bin/python3 or $ROOFTIME_PYTHON can import torch)\n"
     "      --op LIST        conv2d, lstm (default: both)\n"
     "      --precision LIST fp32, bf16, fp16 (default: all; what an implementation lacks is\n"
     "                       skipped and said so)\n"
     "      --warmup N       warm-up iterations per config (default 5)\n"
     "      --iters N        measured iterations per config (default 20)\n"
     "      --mode MODE      hier (default: every unit at its own peak) or single\n"
     "      --scale X        shrink the shapes by X in (0, 1] (tests; 1 = the paper's)\n"
     "\n"
     "See docs/study.md."},
};
const size_t rt_n_commands = sizeof rt_commands / sizeof rt_commands[0];

static const rt_command *find_command(const char *name)
{
    for (size_t i = 0; i < rt_n_commands; i++)
        if (strcmp(rt_commands[i].name, name) == 0)
            return &rt_commands[i];
    return NULL;
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("rooftime: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("rooftime: warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_print_usage(const char *name, FILE *fp)
{
    const rt_command *c = find_command(name);
    if (c)
        fprintf(fp, "usage: %s\n", c->usage);
}

int cli_usage_error(const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("rooftime: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    cli_print_usage(name, stderr);
    return RT_EXIT_USAGE;
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    }
    return 0;
}

static void print_overview(FILE *fp)
{
    fprintf(fp, "rooftime %s: the time-based hierarchical roofline\n\n", RT_VERSION);
    fprintf(fp, "usage: rooftime COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < rt_n_commands; i++)
        fprintf(fp, "  %-12s %s\n", rt_commands[i].name, rt_commands[i].summary);
    fprintf(fp, "\n`rooftime help COMMAND` or `rooftime COMMAND --help` for one command.\n"
                "Exit codes: 0 ok, 1 bad data or a failed run, 2 usage.\n");
}

int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stdout);
        return RT_EXIT_OK;
    }
    const rt_command *c = find_command(argv[1]);
    if (!c)
        return cli_usage_error("help", "unknown command '%s'", argv[1]);
    printf("rooftime %s: %s\n\nusage: %s\n", c->name, c->summary, c->usage);
    return RT_EXIT_OK;
}

int main(int argc, char **argv)
{
    int rc;
    if (argc < 2) {
        print_overview(stderr);
        return RT_EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        print_overview(stdout);
        rc = RT_EXIT_OK;
    } else if (strcmp(argv[1], "--version") == 0) {
        printf("rooftime %s\n", RT_VERSION);
        rc = RT_EXIT_OK;
    } else {
        const rt_command *c = find_command(argv[1]);
        if (!c) {
            cli_error("unknown command '%s' (see `rooftime help`)", argv[1]);
            return RT_EXIT_USAGE;
        }
        if (c->run != cmd_help && cli_wants_help(argc - 1, argv + 1)) {
            printf("rooftime %s: %s\n\nusage: %s\n", c->name, c->summary, c->usage);
            rc = RT_EXIT_OK;
        } else {
            rc = c->run(argc - 1, argv + 1);
        }
    }
    /* A full disk is an error too. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("cannot write to standard output");
        return RT_EXIT_FAIL;
    }
    return rc;
}
