/* `rooftime machine measure`: characterize this machine and write its machine file. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-mpi.h"
#include "cli-output.h"
#include "cli-progress.h"
#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/core/machine.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/probe/gpu-measure.h"
#include "rooftime/probe/measure-machine.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* A short summary of what was written; `rooftime machine show FILE` prints everything. */
static void print_summary(const rt_machine *m, const char *output)
{
    printf("wrote %s: %s\n", output, m->name);
    for (size_t i = 0; i < m->n_units; i++)
        printf("  %-9s %10.4g GFLOP/s  [%.4g .. %.4g]\n", m->units[i].name, m->units[i].flops / 1e9,
               m->units[i].min / 1e9, m->units[i].max / 1e9);
    for (size_t i = 0; i < m->n_levels; i++)
        printf("  %-9s %10.4g GB/s     [%.4g .. %.4g]\n", m->levels[i].name,
               m->levels[i].bytes_per_s / 1e9, m->levels[i].min / 1e9, m->levels[i].max / 1e9);
    printf("  tau       %10.4g µs\n", m->tau * 1e6);
    for (size_t i = 0; i < m->n_overheads; i++)
        printf("  overhead  %10.4g µs  %s%s\n", m->overheads[i].seconds.median * 1e6,
               m->overheads[i].name, m->overheads[i].threads > 1 ? " (all threads)" : "");
}

/* Measure this machine's CPU and write it to output (NULL: standard output), tagged with id;
 * returns the exit code. */
static int measure_cpu(rt_measure_opts *mo, const char *output, const rt_rank_identity *id)
{
    /* Open the output first: a path we cannot write must fail before minutes of measuring. */
    cli_output out;
    int orc = cli_output_open(&out, "machine", output, NULL, 0);
    if (orc != 0)
        return orc;
    rt_error err;
    cli_progress pr;
    cli_progress_init(&pr, "machine");
    mo->progress = cli_progress_show;
    mo->progress_ctx = &pr;
    rt_machine *m = NULL;
    rt_warnings skipped = {0};
    int rc = rt_machine_measure(mo, &m, &skipped, &err);
    cli_progress_end(&pr);
    for (size_t i = 0; i < skipped.n; i++)
        fprintf(stderr, "rooftime: skipped: %s\n", skipped.msg[i]);
    rt_warnings_release(&skipped);
    if (rc != 0) {
        cli_error("measurement failed: %s", err.msg);
        cli_output_close(&out, 1);
        return RT_EXIT_FAIL;
    }
    m->identity = rt_rank_identity_dup(id);
    json_t *j = rt_machine_to_json(m);
    int werr = json_dumpf(j, out.fp, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0 ||
               fputc('\n', out.fp) == EOF;
    json_decref(j);
    if (cli_output_close(&out, werr) != RT_EXIT_OK) {
        rt_machine_free(m);
        return RT_EXIT_FAIL;
    }
    if (output)
        print_summary(m, output);
    rt_machine_free(m);
    return RT_EXIT_OK;
}

int cmd_machine_measure(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"quick", no_argument, NULL, 'q'},
                                         {"threads", required_argument, NULL, 't'},
                                         {"max-isa", required_argument, NULL, 'i'},
                                         {"gpu", optional_argument, NULL, 'g'},
                                         {"tau", required_argument, NULL, 'T'},
                                         {"help", no_argument, NULL, 'h'},
                                         {"mpi", no_argument, NULL, 'P'},
                                         {"slow", required_argument, NULL, 's'},
                                         {"self-check", no_argument, NULL, 'S'},
                                         {"keep-dir", required_argument, NULL, 'K'},
                                         {"skip-family", required_argument, NULL, 'F'},
                                         {0}};
    rt_measure_opts mo = {0};
    const char *output = NULL, *tau = NULL, *keep_dir = NULL, *skip_family = NULL;
    long gpu = -1;
    int c, mpi = 0, self_check = 0;
    double slow = 0.1;
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
        case 'g': {
            /* --gpu, --gpu=N or --gpu N: the device index is optional */
            const char *idx = optarg;
            if (!idx && optind < argc && argv[optind][0] >= '0' && argv[optind][0] <= '9')
                idx = argv[optind++];
            if (!idx)
                gpu = 0;
            else if (cli_parse_long(idx, 0, 1023, &gpu) != 0)
                return cli_usage_error("machine", "--gpu: expected a device index, got '%s'", idx);
            break;
        }
        case 'T':
            tau = optarg;
            break;
        case 'S':
            self_check = 1;
            break;
        case 'K':
            keep_dir = optarg;
            break;
        case 'F': {
            rt_error err;
            if (rt_gpu_family_check(optarg, &err) != 0)
                return cli_usage_error("machine", "--skip-family: %s", err.msg);
            skip_family = optarg;
            break;
        }
        case 'P':
            mpi = 1;
            break;
        case 's':
            if (!rt_parse_double(optarg, &slow) || !(slow > 0) || !(slow < 1))
                return cli_usage_error("machine",
                                       "--slow takes a fraction between 0 and 1, not '%s'", optarg);
            break;
        case 'h':
            cli_print_usage("machine", stdout);
            return RT_EXIT_OK;
        default:
            return cli_option_error("machine", "machine measure", c, argv, opts);
        }
    }
    if (optind != argc)
        return cli_usage_error("machine",
                               "'machine measure' takes no file arguments (use -o FILE)");

    if (gpu < 0 && tau)
        return cli_usage_error("machine", "--tau applies to --gpu only");
    if (gpu >= 0 && (mo.max_threads || mo.max_isa))
        return cli_usage_error("machine", "--threads and --max-isa apply to the CPU, not --gpu");
    if (gpu >= 0 && mpi)
        return cli_usage_error("machine", "--mpi measures the CPU, not --gpu");
    if (self_check && gpu < 0)
        return cli_usage_error("machine", "--self-check applies to --gpu only");
    if (keep_dir && !self_check)
        return cli_usage_error("machine", "--keep-dir applies to --self-check only");
    if (skip_family && (gpu < 0 || self_check))
        return cli_usage_error("machine",
                               "--skip-family applies to --gpu, not the CPU or --self-check");
    if (self_check && (mo.quick || tau))
        return cli_usage_error("machine", "--self-check takes neither --quick nor --tau");
    if (self_check)
        return cmd_machine_selfcheck_gpu((int)gpu, output, keep_dir);
    char *out_path = NULL; /* -o with its placeholders expanded */
    const rt_rank_identity *id;
    int orc = cli_output_expand("machine", output, &out_path);
    if (orc != 0 || (orc = cli_identity(&id)) != 0)
        return orc;
    output = out_path;
    if (gpu >= 0) {
        orc = cmd_machine_measure_gpu((int)gpu, mo.quick, tau, skip_family, output);
        free(out_path);
        return orc;
    }
    if (mpi) {
        orc = cli_machine_measure_mpi(&mo, output, slow);
        free(out_path);
        return orc;
    }
    orc = measure_cpu(&mo, output, id);
    free(out_path);
    return orc;
}
