/* `rooftime import KIND ...`: profiler output and result tables into rooftime profiles. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-output.h"
#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/ncu.h"
#include "rooftime/import/table.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* ---- import ncu ---- */

static int import_ncu(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},        {"metrics", required_argument, NULL, 'M'},
        {"tensor-factor", required_argument, NULL, 'k'}, {"arch", required_argument, NULL, 'a'},
        {"allow-missing", no_argument, NULL, 'A'},       {"per-launch", no_argument, NULL, 'P'},
        {"tag", required_argument, NULL, 't'},           {0}};
    const char *output = NULL;
    char *out_path = NULL; /* -o with its placeholders expanded */
    rt_ncu_options o = {0};
    rt_warnings warnings = {0};
    rt_tags tags = {0};
    rt_profile *p = NULL;
    int rc = RT_EXIT_USAGE, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:t:", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 'M':
            o.metrics_file = optarg;
            break;
        case 'k': {
            char *end;
            errno = 0;
            o.tensor_factor = strtod(optarg, &end);
            if (*end || errno || !(o.tensor_factor > 0)) {
                rc = cli_usage_error("import", "--tensor-factor takes a number > 0, not '%s'",
                                     optarg);
                goto out;
            }
            break;
        }
        case 'a':
            o.arch = optarg;
            break;
        case 'A':
            o.allow_missing = true;
            break;
        case 'P':
            o.per_launch = true;
            break;
        case 't':
            if ((rc = cli_tag_option("import", optarg, &tags)) != 0)
                goto out;
            break;
        default:
            rc = cli_usage_error("import", "unknown option '%s'", argv[optind - 1]);
            goto out;
        }
    }
    if (!output) {
        rc = cli_usage_error("import", "-o FILE is required");
        goto out;
    }
    if ((rc = cli_output_expand("import", output, &out_path)) != 0)
        goto out;
    output = out_path;
    if (optind >= argc) {
        rc = cli_usage_error("import", "no ncu output file given");
        goto out;
    }
    if ((rc = cli_output_check("import", output, argv + optind, (size_t)(argc - optind))) != 0 ||
        (rc = cli_output_check("import", output, (char **)&o.metrics_file, 1)) != 0)
        goto out;
    rt_error err = {{0}};
    rc = RT_EXIT_FAIL;
    if (rt_import_ncu((const char *const *)(argv + optind), (size_t)(argc - optind), &o, &p,
                      &warnings, &err) != 0) {
        cli_print_warnings(&warnings, 10, NULL);
        cli_error("%s", err.msg);
        goto out;
    }
    cli_print_warnings(&warnings, 20, NULL);
    if (cli_save_profile(p, &tags, output) != 0)
        goto out;
    printf("%s: %zu kernels, %.0f launches from %d file%s\n", output, p->n_kernels,
           p->provenance.launches, argc - optind, argc - optind == 1 ? "" : "s");
    rc = RT_EXIT_OK;
out:
    free(out_path);
    rt_profile_free(p);
    rt_tags_release(&tags);
    rt_warnings_release(&warnings);
    return rc;
}

/* ---- import table ---- */

static int import_table(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},      {"ai-file", required_argument, NULL, 'a'},
        {"map", required_argument, NULL, 'm'},         {"no-defaults", no_argument, NULL, 'N'},
        {"name-column", required_argument, NULL, 'n'}, {"tag", required_argument, NULL, 't'},
        {"time", required_argument, NULL, 'T'},        {0}};
    const char *output = NULL;
    char *out_path = NULL; /* -o with its placeholders expanded */
    rt_table_options o = {0};
    rt_table_map *map = NULL;
    const char **names = NULL;
    size_t n_map = 0, n_names = 0;
    rt_warnings warnings = {0};
    rt_tags tags = {0};
    rt_profile *p = NULL;
    int rc = RT_EXIT_USAGE, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:m:t:", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 'a':
            o.ai_file = optarg;
            break;
        case 'm': {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg || !eq[1]) {
                rc = cli_usage_error("import", "--map takes quantity=column, not '%s'", optarg);
                goto out;
            }
            *eq = '\0'; /* argv is ours to split */
            map = rt_xrealloc(map, (n_map + 1) * sizeof *map);
            map[n_map++] = (rt_table_map){.quantity = optarg, .column = eq + 1};
            break;
        }
        case 'N':
            o.no_defaults = true;
            break;
        case 'T': {
            rt_error terr;
            if (rt_time_kind_parse(optarg, &o.time_kind, &terr) != 0) {
                rc = cli_usage_error("import", "--time: %s", terr.msg);
                goto out;
            }
            break;
        }
        case 'n':
            names = rt_xrealloc(names, (n_names + 1) * sizeof *names);
            names[n_names++] = optarg;
            break;
        case 't':
            if ((rc = cli_tag_option("import", optarg, &tags)) != 0)
                goto out;
            break;
        default:
            rc = cli_usage_error("import", "unknown option '%s'", argv[optind - 1]);
            goto out;
        }
    }
    if (!output) {
        rc = cli_usage_error("import", "-o FILE is required");
        goto out;
    }
    if ((rc = cli_output_expand("import", output, &out_path)) != 0)
        goto out;
    output = out_path;
    if (optind != argc - 1) {
        rc = cli_usage_error("import", optind >= argc ? "no table file given"
                                                      : "import table reads one table at a time");
        goto out;
    }
    if ((rc = cli_output_check("import", output, argv + optind, 1)) != 0 ||
        (rc = cli_output_check("import", output, (char **)&o.ai_file, 1)) != 0)
        goto out;
    o.map = map;
    o.n_map = n_map;
    o.name_columns = names;
    o.n_name_columns = n_names;
    rt_error err = {{0}};
    rc = RT_EXIT_FAIL;
    if (rt_import_table(argv[optind], &o, &p, &warnings, &err) != 0) {
        cli_print_warnings(&warnings, 10, NULL);
        cli_error("%s", err.msg);
        goto out;
    }
    cli_print_warnings(&warnings, 20, NULL);
    if (cli_save_profile(p, &tags, output) != 0)
        goto out;
    /* The columns it chose, so that a table in another layout can be checked at a glance. */
    printf("columns:");
    for (size_t i = 0; i < p->provenance.formulas.n; i++)
        printf("%s %s = '%s'", i ? "," : "", p->provenance.formulas.v[i].key,
               p->provenance.formulas.v[i].value);
    printf("\n");
    static const char *const notes[][2] = {
        {"tags", "tags"}, {"name columns", "in the name"}, {"unused columns", "not used"}};
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++) {
        const char *v = rt_tags_get(&p->provenance.notes, notes[i][0]);
        if (v)
            printf("%s: %s\n", notes[i][1], v);
    }
    printf("%s: %zu kernels from %s\n", output, p->n_kernels, argv[optind]);
    rc = RT_EXIT_OK;
out:
    free(out_path);
    free(map);
    free(names);
    rt_profile_free(p);
    rt_tags_release(&tags);
    rt_warnings_release(&warnings);
    return rc;
}

/* Framework importers: src/cli/cmd-import-frameworks.c. */
int cli_import_onednn(int argc, char **argv);
int cli_import_torch(int argc, char **argv);

/* The importers: to add one, write its function above and add a row here. */
static const struct importer {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the importer's name */
    const char *summary;
} importers[] = {
    {"ncu", import_ncu, "raw `ncu --csv` output, one metric per file or all in one"},
    {"table", import_table, "a processed table, one kernel or config per row"},
    {"onednn", cli_import_onednn, "a oneDNN verbose log (ONEDNN_VERBOSE=1 or DNNL_VERBOSE=1)"},
    {"torch", cli_import_torch, "a PyTorch profiler chrome trace"},
    {"cupti", cli_import_cupti, "the CUPTI collector's directory (profile --gpu --keep-dir)"},
};

int cmd_import(int argc, char **argv)
{
    const size_t n = sizeof importers / sizeof importers[0];
    if (argc < 2) {
        char list[256] = "";
        for (size_t i = 0; i < n; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     importers[i].name);
        return cli_usage_error("import", "which importer? (%s)", list);
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(argv[1], importers[i].name) == 0)
            return importers[i].run(argc - 1, argv + 1);
    cli_error("unknown importer '%s'; these exist:", argv[1]);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "  %-8s %s\n", importers[i].name, importers[i].summary);
    return RT_EXIT_USAGE;
}

/* `rooftime import`: name, entry point, summary and usage (main.c lists it). */
const rt_command rt_cmd_import = {
    "import", cmd_import, "turn profiler output or a result table into a rooftime profile",
    "rooftime import ncu FILE... -o PROFILE [options]\n"
    "rooftime import table FILE [--ai-file FILE] [--map QUANTITY=COLUMN]... -o PROFILE\n"
    "rooftime import onednn LOG -o PROFILE [--conv-flops taps|window] [--tag KEY=VALUE]...\n"
    "rooftime import torch TRACE.json -o PROFILE [--within RANGE] [--conv-flops taps|window]\n"
    "                      [--ops FILE | --no-cost-model] [--tag KEY=VALUE]...\n"
    "rooftime import cupti DIR -o PROFILE [--reevaluate] [--per-launch] [--metrics FILE]\n"
    "                      [--tag KEY=VALUE]...\n"
    "\n"
    "import ncu: raw `ncu --csv` output (one metric per file or all in one; the program's own\n"
    "output before the table is skipped), aggregated per kernel name\n"
    "  -o, --output FILE      the profile to write (required)\n"
    "      --metrics FILE     metric-to-quantity mapping (default: data/ncu/metrics.json)\n"
    "      --tensor-factor K  FLOPs per tensor instruction (default 512 on sm_70/75; from\n"
    "                         sm_80 on, tensor FLOPs come from the ops counters and K\n"
    "                         turns the instruction count back on)\n"
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
    "      --time device|wall what the time column measures (default: device for the paper's\n"
    "                         CUDA Time, else unknown; see docs/model.md)\n"
    "  -t, --tag KEY=VALUE    tag the profile (repeatable)\n"
    "\n"
    "import onednn: ONEDNN_VERBOSE=1 / DNNL_VERBOSE=1 output of oneDNN 2.x or 3.x, other output\n"
    "interleaved; one kernel per primitive, implementation and shape; FLOPs from the problem\n"
    "descriptors, bytes = compulsory traffic; unreadable lines are reported by number\n"
    "import torch: a PyTorch profiler chrome trace; operators by self time, GPU kernels by\n"
    "launch; FLOPs and bytes of each call from its recorded shapes and types by the cost model\n"
    "(data/torch/ops.json), operators tagged with the user's source line and nn.Module when the\n"
    "trace has call stacks; uncovered operators are listed with their share of the time\n"
    "      --within RANGE     only what runs inside ranges named RANGE (record_function)\n"
    "      --ops FILE         another cost model; --no-cost-model: FLOPs from args.flops only\n"
    "      --conv-flops taps|window  convolution and pooling FLOPs: taps inside the input\n"
    "                         (default, as oneDNN's benchdnn) or the whole window (as torch)\n"
    "import cupti: what `profile --gpu --keep-dir DIR` collected (or run.cupti/ of `profile\n"
    "--gpu --counters -o run.json`): times from the trace run, FLOPs and bytes from the counter\n"
    "run (formulas of `import ncu`), joined by kernel name and launch order; --per-launch and\n"
    "--metrics as for ncu\n"
    "      --reevaluate       evaluate the kept raw counter images again with this machine's\n"
    "                         CUPTI (librooftime-cupti.so; no GPU needed) instead of reading the\n"
    "                         values the collector evaluated (docs/import-cupti.md)\n"
    "\n"
    "Every profile records the launcher's rank, the host and the device (\"identity\"); in -o,\n"
    "%r is the rank, %l the local rank, %s the job size, %h the host, %% a '%' (one file per "
    "rank).\n"
    "See docs/import-ncu.md, docs/import-frameworks.md and docs/import-cupti.md."};
