/* `rooftime import ncu FILE...`: raw Nsight Compute CSV, a row of the importers' table
 * (rooftime/import/importers.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/import/importers.h"
#include "rooftime/import/ncu-metric-list.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/import/ncu.h"

static const rt_import_option options[] = {
    {"metrics", 0, RT_IMPORT_FILE, "FILE",
     "metric-to-quantity mapping (default: data/ncu/metrics.json)", "data/ncu/metrics.json"},
    {"tensor-factor", 0, RT_IMPORT_VALUE, "K",
     "FLOPs per tensor instruction (default 512 on sm_70/75; from\n"
     "sm_80 on, tensor FLOPs come from the ops counters and K\n"
     "turns the instruction count back on)",
     "512"},
    {"arch", 0, RT_IMPORT_VALUE, "sm_XX",
     "architecture of files without a CC column (default sm_70)", "sm_70"},
    {"recipe", 0, RT_IMPORT_VALUE, "NAME",
     "nsight (default): half-precision FLOPs as Nsight Compute's\n"
     "roofline counts them (HFMA2 4, HADD2/HMUL2 2); paper: the\n"
     "seed authors' 2020 tables (hfma 2, hadd/hmul 1)",
     "nsight"},
    {"allow-missing", 0, RT_IMPORT_FLAG, NULL,
     "a launch lacking a metric in one file: warning, counted as 0;\n"
     "a metric n/a: the quantities reading it left out; the\n"
     "profile's note lists what was missing",
     NULL},
    {"per-launch", 0, RT_IMPORT_FLAG, NULL, "one kernel per launch (tags launch and process)",
     NULL},
};

static int apply(void *state, const rt_import_option *opt, const char *v, rt_error *err)
{
    rt_ncu_options *o = state;
    const char *name = opt->name;
    if (strcmp(name, "metrics") == 0) {
        o->metrics_file = v;
    } else if (strcmp(name, "tensor-factor") == 0) {
        char *end;
        errno = 0;
        o->tensor_factor = strtod(v, &end);
        if (!*v || *end || errno || !(o->tensor_factor > 0)) {
            rt_error_set(err, "--tensor-factor takes a number > 0, not '%s'", v);
            return -1;
        }
    } else if (strcmp(name, "arch") == 0) {
        if (rt_ncu_parse_arch(v) < 0) {
            rt_ncu_arch_message(err->msg, sizeof err->msg, v);
            return -1;
        }
        o->arch = v;
    } else if (strcmp(name, "recipe") == 0) {
        o->recipe = v; /* checked against the mapping's recipes when it is loaded */
    } else if (strcmp(name, "allow-missing") == 0) {
        o->allow_missing = true;
    } else if (strcmp(name, "per-launch") == 0) {
        o->per_launch = true;
    }
    return 0;
}

static int read_ncu(void *state, const rt_import_run *r, rt_profile **p, rt_warnings *w,
                    rt_error *err)
{
    return rt_import_ncu(r->inputs, r->n_inputs, state, p, w, err);
}

static void report(const void *state, const rt_import_run *r, const rt_profile *p, FILE *out)
{
    (void)state;
    fprintf(out, "%s: %zu kernels, %.0f launches from %zu file%s\n", r->output, p->n_kernels,
            p->provenance.launches, r->n_inputs, r->n_inputs == 1 ? "" : "s");
}

const rt_importer rt_importer_ncu = {
    .name = "ncu",
    .summary = "raw `ncu --csv` output, one metric per file or all in one",
    .synopsis = "rooftime import ncu FILE... -o PROFILE [options]\n",
    .help = "import ncu: raw `ncu --csv` output (one metric per file or all in one; the program's "
            "own\n"
            "output before the table is skipped), aggregated per kernel name\n",
    .usage_lists_shared = 1,
    .options = options,
    .n_options = sizeof options / sizeof options[0],
    .state_size = sizeof(rt_ncu_options),
    .max_inputs = 0,
    .no_input = "no ncu output file given",
    .apply = apply,
    .read = read_ncu,
    .report = report,
};
