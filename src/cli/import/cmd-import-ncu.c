/* `rooftime import ncu FILE...`: raw Nsight Compute CSV, a row of the importers' table. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli-import.h"
#include "commands.h"
#include "rooftime/import/ncu-metric-list.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/import/ncu.h"

static const struct option options[] = {{"metrics", required_argument, NULL, 'M'},
                                        {"tensor-factor", required_argument, NULL, 'k'},
                                        {"arch", required_argument, NULL, 'a'},
                                        {"allow-missing", no_argument, NULL, 'A'},
                                        {"per-launch", no_argument, NULL, 'P'},
                                        {"recipe", required_argument, NULL, 'r'},
                                        {0}};

static int option(void *state, int c, char *arg)
{
    rt_ncu_options *o = state;
    switch (c) {
    case 'M':
        o->metrics_file = arg;
        return 0;
    case 'k': {
        char *end;
        errno = 0;
        o->tensor_factor = strtod(arg, &end);
        if (*end || errno || !(o->tensor_factor > 0))
            return cli_usage_error("import", "--tensor-factor takes a number > 0, not '%s'", arg);
        return 0;
    }
    case 'a':
        if (rt_ncu_parse_arch(arg) < 0) {
            char msg[512];
            rt_ncu_arch_message(msg, sizeof msg, arg);
            return cli_usage_error("import", "%s", msg);
        }
        o->arch = arg;
        return 0;
    case 'A':
        o->allow_missing = true;
        return 0;
    case 'r':
        o->recipe = arg; /* checked against the mapping's recipes when it is loaded */
        return 0;
    case 'P':
        o->per_launch = true;
        return 0;
    }
    return -1;
}

static const char *option_input(const void *state)
{
    return ((const rt_ncu_options *)state)->metrics_file;
}

static int read_ncu(void *state, const cli_import_args *a, rt_profile **p, rt_warnings *w,
                    rt_error *err)
{
    return rt_import_ncu((const char *const *)a->inputs, a->n_inputs, state, p, w, err);
}

static void report(const void *state, const cli_import_args *a, const rt_profile *p)
{
    (void)state;
    printf("%s: %zu kernels, %.0f launches from %zu file%s\n", a->output, p->n_kernels,
           p->provenance.launches, a->n_inputs, a->n_inputs == 1 ? "" : "s");
}

const cli_importer cli_importer_ncu = {
    .name = "ncu",
    .summary = "raw `ncu --csv` output, one metric per file or all in one",
    .synopsis = "rooftime import ncu FILE... -o PROFILE [options]\n",
    .help = "import ncu: raw `ncu --csv` output (one metric per file or all in one; the program's "
            "own\n"
            "output before the table is skipped), aggregated per kernel name\n"
            "  -o, --output FILE      the profile to write (required)\n"
            "      --metrics FILE     metric-to-quantity mapping (default: data/ncu/metrics.json)\n"
            "      --tensor-factor K  FLOPs per tensor instruction (default 512 on sm_70/75; from\n"
            "                         sm_80 on, tensor FLOPs come from the ops counters and K\n"
            "                         turns the instruction count back on)\n"
            "      --arch sm_XX       architecture of files without a CC column (default sm_70)\n"
            "      --recipe NAME      nsight (default): half-precision FLOPs as Nsight Compute's\n"
            "                         roofline counts them (HFMA2 4, HADD2/HMUL2 2); paper: the\n"
            "                         seed authors' 2020 tables (hfma 2, hadd/hmul 1)\n"
            "      --allow-missing    a launch lacking a metric in one file: warning, counted as "
            "0;\n"
            "                         a metric n/a: the quantities reading it left out; the\n"
            "                         profile's note lists what was missing\n"
            "      --per-launch       one kernel per launch (tags launch and process)\n"
            "  -t, --tag KEY=VALUE    tag the profile (repeatable)\n"
            "\n",
    .options = options,
    .state_size = sizeof(rt_ncu_options),
    .max_inputs = 0,
    .no_input = "no ncu output file given",
    .option = option,
    .option_input = option_input,
    .read = read_ncu,
    .report = report,
};
