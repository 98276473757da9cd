/* `rooftime machine measure`: characterize this machine and write its machine file. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-util.h"
#include "commands.h"
#include "rooftime/core/machine.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/probe/measure-machine.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/error.h"

/* One line on the terminal, rewritten in place. */
static void show_progress(void *ctx, const char *stage, double fraction)
{
    int *last = ctx;
    int pct = (int)(fraction * 100 + 0.5);
    fprintf(stderr, "\r[%3d%%] %-50.50s", pct, stage);
    fflush(stderr);
    *last = pct;
}

int cmd_machine_measure(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},  {"quick", no_argument, NULL, 'q'},
        {"threads", required_argument, NULL, 't'}, {"max-isa", required_argument, NULL, 'i'},
        {"help", no_argument, NULL, 'h'},          {0}};
    rt_measure_opts mo = {0};
    const char *output = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 'q':
            mo.quick = 1;
            break;
        case 't': {
            long n;
            if (cli_parse_long(optarg, 1, 4096, &n) != 0)
                return cli_usage_error(
                    "machine", "--threads: expected a positive whole number, got '%s'", optarg);
            mo.max_threads = (int)n;
            break;
        }
        case 'i': {
            rt_isa isa;
            rt_error err;
            if (rt_isa_parse(optarg, &isa, &err) != 0)
                return cli_usage_error("machine", "--max-isa: %s", err.msg);
            mo.max_isa = optarg;
            break;
        }
        case 'h':
            cli_print_usage("machine", stdout);
            return RT_EXIT_OK;
        case ':':
            return cli_usage_error("machine", "option '%s' needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("machine", "unknown option '%s' for 'machine measure'",
                                   argv[optind - 1]);
        }
    }
    if (optind != argc)
        return cli_usage_error("machine",
                               "'machine measure' takes no file arguments (use -o FILE)");

    /* Open the output first: a path we cannot write must fail before minutes of measuring. */
    rt_atomic_file af = {0};
    rt_error err;
    struct stat st;
    if (output && stat(output, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("cannot write '%s': is a directory", output);
        return RT_EXIT_FAIL;
    }
    if (output && rt_atomic_open(&af, output, &err) != 0) {
        cli_error("%s", err.msg);
        return RT_EXIT_FAIL;
    }
    int last = -1;
    if (isatty(STDERR_FILENO)) {
        mo.progress = show_progress;
        mo.progress_ctx = &last;
    }
    rt_machine *m = NULL;
    rt_warnings skipped = {0};
    int rc = rt_machine_measure(&mo, &m, &skipped, &err);
    if (last >= 0)
        fputc('\n', stderr);
    for (size_t i = 0; i < skipped.n; i++)
        fprintf(stderr, "rooftime: skipped: %s\n", skipped.msg[i]);
    rt_warnings_release(&skipped);
    if (rc != 0) {
        cli_error("measurement failed: %s", err.msg);
        if (output)
            rt_atomic_abort(&af);
        return RT_EXIT_FAIL;
    }
    json_t *j = rt_machine_to_json(m);
    FILE *fp = output ? af.fp : stdout;
    int werr =
        json_dumpf(j, fp, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0 || fputc('\n', fp) == EOF;
    json_decref(j);
    if (output) {
        if (werr) {
            rt_atomic_abort(&af);
            cli_error("cannot write '%s'", output);
            rt_machine_free(m);
            return RT_EXIT_FAIL;
        }
        if (rt_atomic_commit(&af, &err) != 0) {
            cli_error("%s", err.msg);
            rt_machine_free(m);
            return RT_EXIT_FAIL;
        }
        /* A short summary; `rooftime machine show FILE` prints everything. */
        printf("wrote %s: %s\n", output, m->name);
        for (size_t i = 0; i < m->n_units; i++)
            printf("  %-9s %10.4g GFLOP/s  [%.4g .. %.4g]\n", m->units[i].name,
                   m->units[i].flops / 1e9, m->units[i].min / 1e9, m->units[i].max / 1e9);
        for (size_t i = 0; i < m->n_levels; i++)
            printf("  %-9s %10.4g GB/s     [%.4g .. %.4g]\n", m->levels[i].name,
                   m->levels[i].bytes_per_s / 1e9, m->levels[i].min / 1e9, m->levels[i].max / 1e9);
        printf("  tau       %10.4g us\n", m->tau * 1e6);
    } else if (werr) {
        cli_error("cannot write the machine to standard output");
        rt_machine_free(m);
        return RT_EXIT_FAIL;
    }
    rt_machine_free(m);
    return RT_EXIT_OK;
}
