/* `rooftime import onednn LOG`: a oneDNN verbose log, a row of the importers' table
 * (rooftime/import/importers.h). */
#include <stdio.h>
#include <string.h>

#include "rooftime/import/importers.h"
#include "rooftime/import/onednn.h"

typedef struct onednn_state {
    rt_conv_flops conv; /* RT_CONV_TAPS unless --conv-flops says otherwise */
    int threads;        /* --threads: what ran the kernels, for where their bytes fit; 0: unknown */
} onednn_state;

static const rt_import_option options[] = {
    {"conv-flops", 0, RT_IMPORT_VALUE, "taps|window", NULL, "taps"},
    {"threads", 0, RT_IMPORT_VALUE, "N", RT_IMPORT_THREADS_HELP, "unknown"},
};

static int apply(void *state, const rt_import_option *opt, const char *v, rt_error *err)
{
    onednn_state *s = state;
    if (strcmp(opt->name, "conv-flops") == 0)
        return rt_import_parse_conv(v, &s->conv, err);
    return rt_import_parse_threads(v, &s->threads, err);
}

static int read_onednn(void *state, const rt_import_run *r, rt_profile **p, rt_warnings *w,
                       rt_error *err)
{
    const onednn_state *s = state;
    /* values no profile may hold are the importer's error, naming the log (rt_import_check) */
    if (rt_import_onednn_conv(r->inputs[0], s->conv, p, w, err) != 0)
        return -1;
    (*p)->threads = s->threads;
    return 0;
}

static void report(const void *state, const rt_import_run *r, const rt_profile *p, FILE *out)
{
    (void)state;
    rt_import_report_invocations(out, r->output, p);
}

const rt_importer rt_importer_onednn = {
    .name = "onednn",
    .summary = "a oneDNN verbose log (ONEDNN_VERBOSE=1 or DNNL_VERBOSE=1)",
    .synopsis = "rooftime import onednn LOG -o PROFILE [--conv-flops taps|window] [--threads N]\n"
                "                       [--tag KEY=VALUE]...\n",
    .help = "import onednn: ONEDNN_VERBOSE=1 / DNNL_VERBOSE=1 output of oneDNN 1.x to 3.x (the "
            "formats of\n"
            "data/onednn/verbose-formats.json, keyed by the header each version prints), other "
            "output\n"
            "interleaved; one kernel per primitive, implementation and shape; FLOPs from the "
            "problem\n"
            "descriptors, on the unit the implementation ran them on (data/onednn/units.json; "
            "where it\n"
            "names no instruction set, the widest the CPU has, said in a warning); bytes = "
            "compulsory\n"
            "traffic; unreadable lines are reported by number\n",
    .options = options,
    .n_options = sizeof options / sizeof options[0],
    .state_size = sizeof(onednn_state),
    .max_inputs = 1,
    .no_input = "no log file given",
    .too_many = "import onednn reads one file at a time",
    .apply = apply,
    .read = read_onednn,
    .report = report,
};
