/* `rooftime machine`: list the presets, show a machine, check machine files. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/machine-sanity.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "rooftime/util/format.h"

static void print_spread(double min, double max, double scale)
{
    if (min > 0 && max > 0)
        printf("  [%.4g .. %.4g]", min / scale, max / scale);
}

/* Each level's capacity: one instance, how many share it and how many there are, the whole
 * machine's, where the figures come from, and what the working-set sweep saw. */
static void print_capacities(const rt_machine *m)
{
    size_t known = 0;
    for (size_t i = 0; i < m->n_levels; i++)
        known += m->levels[i].size_bytes > 0;
    /* a GPU's caches are shared among SMs, a CPU's among logical CPUs */
    const char *who = m->gpu || rt_machine_level_index(m, "HBM") >= 0 ? "SM" : "CPU";
    printf("\ncapacities%s\n", known ? "" : ": unknown (no level records its size)");
    for (size_t i = 0; i < m->n_levels && known; i++) {
        const rt_level *l = &m->levels[i];
        char one[32], all[32], each[32], swept[32];
        if (!(l->size_bytes > 0)) {
            printf("  %-10s unknown\n", l->name);
            continue;
        }
        int n = l->instances > 0 ? l->instances : 1;
        rt_fmt_bytes(one, sizeof one, l->size_bytes);
        rt_fmt_bytes(all, sizeof all, rt_level_capacity(l, 0));
        printf("  %-10s %10s", l->name, all);
        if (n > 1)
            printf(" = %d x %s", n, one);
        if (l->shared_by > 1) {
            printf(", %sshared by %d %ss", n > 1 ? "each " : "", l->shared_by, who);
            rt_fmt_bytes(each, sizeof each, l->size_bytes / l->shared_by);
            if (i + 1 < m->n_levels) /* a cache's share; main memory's would say little */
                printf(" (%s per %s)", each, who);
        } else if (l->shared_by == 1 && n > 1) {
            printf(", one per %s", who);
        }
        if (l->swept_bytes > 0) {
            rt_fmt_bytes(swept, sizeof swept, l->swept_bytes);
            printf("; swept: its plateau up to %s at %d thread%s", swept, l->swept_threads,
                   l->swept_threads == 1 ? "" : "s");
        }
        if (l->size_source)
            printf("  -- %s", l->size_source);
        printf("\n");
    }
}

/* A ceiling in its column: 6 significant digits, but a whole number from a million on
 * ("1979000", not "1.979e+06"), so that a GPU's Tensor Core rates read as the others. */
static void print_ceiling(int name_w, const char *name, double v)
{
    if (v >= 1e6)
        printf("  %-*s %12.0f", name_w, name, v);
    else
        printf("  %-*s %12.6g", name_w, name, v);
}

static void show_text(const rt_machine *m)
{
    /* one width for the names of both tables: the longest, at least 10 */
    int name_w = 10;
    for (size_t i = 0; i < m->n_units + m->n_levels; i++) {
        size_t l = strlen(i < m->n_units ? m->units[i].name : m->levels[i - m->n_units].name);
        if ((int)l > name_w)
            name_w = l < 40 ? (int)l : 40;
    }
    printf("machine: %s\n", m->name);
    printf("source: %s\n", m->source ? m->source : "unknown");
    if (m->method)
        printf("method: %s\n", m->method);
    printf("\ncompute ceilings (GFLOP/s)\n");
    for (size_t i = 0; i < m->n_units; i++) {
        const rt_unit *u = &m->units[i];
        print_ceiling(name_w, u->name, u->flops / 1e9);
        print_spread(u->min, u->max, 1e9);
        if (u->theoretical > 0)
            printf("  theoretical %.6g (%.0f%%)", u->theoretical / 1e9,
                   100 * u->flops / u->theoretical);
        if (u->note)
            printf("  -- %s", u->note);
        printf("\n");
    }
    printf("\nmemory levels (GB/s)\n");
    for (size_t i = 0; i < m->n_levels; i++) {
        const rt_level *l = &m->levels[i];
        print_ceiling(name_w, l->name, l->bytes_per_s / 1e9);
        print_spread(l->min, l->max, 1e9);
        if (l->note)
            printf("  -- %s", l->note);
        printf("\n");
    }
    print_capacities(m);
    printf("\nlaunch overhead: %.4g µs", m->tau * 1e6);
    if (m->tau_method)
        printf("  -- %s", m->tau_method);
    if (m->link_bw > 0)
        printf("\nlink (communication kernels): %.4g GB/s%s%s", m->link_bw / 1e9,
               m->link_name ? "  -- " : "", m->link_name ? m->link_name : "");
    printf("\nreference: %s and %s\n", m->ref_unit, m->ref_level);
    printf("machine balance: %.5g FLOP/byte\n", rt_machine_balance(m));
    printf("FLOPs per launch to escape the overhead bound (%s): %.5g GFLOP\n", m->ref_unit,
           rt_machine_overhead_flops(m, NULL) / 1e9);
}

static int machine_list(void)
{
    size_t n;
    char **names = rt_machine_presets(&n);
    if (n == 0) {
        cli_error("no machine presets found in '%s/machines'", rt_datadir());
        free(names);
        return RT_EXIT_FAIL;
    }
    for (size_t i = 0; i < n; i++) {
        rt_machine *m;
        rt_error err;
        if (rt_machine_resolve(names[i], &m, &err) == 0) {
            printf("%-12s %s (%s)\n", names[i], m->name, m->source ? m->source : "?");
            rt_machine_free(m);
        } else {
            printf("%-12s (broken: %s)\n", names[i], err.msg);
        }
        free(names[i]);
    }
    free(names);
    return RT_EXIT_OK;
}

static int machine_show(int argc, char **argv)
{
    const char *format = "text";
    static const struct option opts[] = {{"format", required_argument, NULL, 'f'}, {0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:", opts, NULL)) != -1) {
        if (c == 'f')
            format = optarg;
        else
            return cli_option_error("machine", "machine show", c, argv, opts);
    }
    if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0)
        return cli_usage_error("machine", "unknown format '%s' (text or json)", format);
    if (optind != argc - 1)
        return cli_usage_error("machine", "'machine show' takes one machine name or file");
    rt_machine *m;
    rt_error err;
    if (rt_machine_resolve(argv[optind], &m, &err) != 0) {
        cli_error("%s", err.msg);
        return RT_EXIT_FAIL;
    }
    if (strcmp(format, "json") == 0) {
        json_t *j = rt_machine_to_json(m);
        json_dumpf(j, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        putchar('\n');
        json_decref(j);
    } else {
        show_text(m);
    }
    rt_machine_free(m);
    return RT_EXIT_OK;
}

static int machine_check(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("machine", "'machine check' needs at least one file");
    int rc = RT_EXIT_OK;
    for (int i = 1; i < argc; i++) {
        rt_machine *m;
        rt_error err;
        if (rt_machine_resolve(argv[i], &m, &err) != 0) {
            cli_error("%s", err.msg);
            rc = RT_EXIT_FAIL;
            continue;
        }
        /* The sanity rules do not refuse a file (exit 0); analyze and the report repeat them as
         * a banner. A file that fails one loads, but is not "ok". */
        rt_warnings sane = {0};
        int suspect = rt_machine_sanity(m, &sane);
        printf("%s: %s (%s, %zu units, %zu levels, balance %.5g FLOP/byte)%s\n", argv[i],
               suspect ? "loads" : "ok", m->name, m->n_units, m->n_levels, rt_machine_balance(m),
               suspect ? ", but its verdicts are suspect:" : "");
        if (suspect) {
            printf("%s: fails %zu sanity rule%s:\n", argv[i], sane.n, sane.n == 1 ? "" : "s");
            for (size_t k = 0; k < sane.n; k++)
                printf("  - %s\n", sane.msg[k]);
        }
        rt_warnings_release(&sane);
        rt_machine_free(m);
    }
    return rc;
}

/* Subcommands of `machine`, one table. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} machine_cmds[] = {
    {"list", NULL},
    {"show", machine_show},
    {"check", machine_check},
    /* machine measure: characterizes this machine (issue 5) */
    {"measure", cmd_machine_measure},
    /* hidden: the collector's self-check (docs/gpu-measure.md) */
    {"selfcheck-kernels", cmd_machine_selfcheck_kernels},
    {"selfcheck-compare", cmd_machine_selfcheck_compare},
};

int cmd_machine(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("machine", "missing subcommand");
    for (size_t i = 0; i < sizeof machine_cmds / sizeof machine_cmds[0]; i++) {
        if (strcmp(argv[1], machine_cmds[i].name) != 0)
            continue;
        if (!machine_cmds[i].run) {
            if (argc != 2)
                return cli_usage_error("machine", "'machine list' takes no arguments");
            return machine_list();
        }
        return machine_cmds[i].run(argc - 1, argv + 1);
    }
    return cli_usage_error("machine", "unknown subcommand '%s'", argv[1]);
}

/* `rooftime machine`: name, entry point, summary and usage (main.c lists it). */
const rt_command rt_cmd_machine = {
    "machine", cmd_machine, "list, show and check machine files and presets",
    "rooftime machine list\n"
    "rooftime machine show NAME|FILE [--format text|json]\n"
    "rooftime machine check FILE...\n"
    "rooftime machine measure [-o FILE] [--quick] [--threads N] [--max-isa sse|avx2|avx512|amx]\n"
    "rooftime machine measure --gpu [INDEX] [-o FILE] [--quick] [--tau paper|async|cpu|graph]\n"
    "                         [--skip-family fma|mma.sync|wgmma]\n"
    "rooftime machine measure --gpu [INDEX] --self-check [-o FILE.json] [--keep-dir DIR]\n"
    "mpirun -np N rooftime machine measure --mpi [--slow F] [options] -o JOB.json\n"
    "\n"
    "NAME is a shipped preset (see `machine list`); FILE is a machine JSON file.\n"
    "`machine measure` records the launcher's rank, the host and the device (\"identity\");\n"
    "--mpi (MPI build): every rank measured alone on its node, then all at once; rank 0 writes\n"
    "one file whose \"job\" member holds every rank's and node's figures, their spread, and those\n"
    "more than F (--slow, default 0.1) below the median (docs/across-ranks.md).\n"
    "--skip-family leaves out the kernels of one instruction family (the ceilings they time stay\n"
    "unknown, said): a GPU where that family's kernels fault or never end is measured without "
    "them.\n"
    "Into a log or a pipe, a line as each stage of the measurement begins.\n"
    "--self-check runs the probe's kernels (and torch.matmul where PyTorch has CUDA) under\n"
    "`profile --gpu --counters` and compares the counters with the work done (exit 1 on a miss).\n"
    "in -o FILE, %r is the rank, %l the local rank, %s the job size, %h the host, %% a '%'.",
    "  rooftime machine list                        # the presets, on standard output\n"
    "  rooftime machine show h100-sxm               # its ceilings, balance and launch overhead\n"
    "  rooftime machine measure --quick -o mine.json   # this CPU's ceilings, into mine.json\n"
    "  rooftime machine check mine.json             # loads? and the sanity rules it fails\n"};
