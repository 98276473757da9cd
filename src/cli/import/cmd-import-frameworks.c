/* `rooftime import onednn LOG` and `import torch TRACE`: the framework rows of the importers'
 * table. Both take --conv-flops and --threads; torch adds --within NAME, --ops FILE and
 * --no-cost-model. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-import.h"
#include "commands.h"
#include "rooftime/core/comm.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/comm-json.h"
#include "rooftime/import/onednn.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/error.h"

typedef struct framework_state {
    int torch;
    const char *within, *ops_file;
    rt_conv_flops conv; /* RT_CONV_TAPS unless --conv-flops says otherwise */
    int no_model, host;
    int threads; /* --threads: what ran the kernels, for where their bytes fit; 0: unknown */
    rt_torch_ops *ops;
    rt_comm_patterns comm; /* a GPU trace's communication kernels get no operator's work */
} framework_state;

static const struct option options[] = {{"within", required_argument, NULL, 'w'},
                                        {"conv-flops", required_argument, NULL, 'c'},
                                        {"ops", required_argument, NULL, 'O'},
                                        {"no-cost-model", no_argument, NULL, 'N'},
                                        {"threads", required_argument, NULL, 'T'},
                                        {"host", no_argument, NULL, 'H'},
                                        {0}};

static int option(framework_state *s, int c, char *arg)
{
    switch (c) {
    case 'w':
        if (!s->torch)
            return cli_usage_error("import", "--within is for `import torch`");
        s->within = arg;
        return 0;
    case 'c': {
        rt_error cerr;
        if (rt_conv_flops_parse(arg, &s->conv, &cerr) != 0)
            return cli_usage_error("import", "--conv-flops: %s", cerr.msg);
        return 0;
    }
    case 'T': {
        char *end;
        long t = strtol(arg, &end, 10);
        if (end == arg || *end || t < 1 || t > RT_MAX_THREADS)
            return cli_usage_error("import", "--threads: '%s' is not a thread count (1 to %d)", arg,
                                   RT_MAX_THREADS);
        s->threads = (int)t;
        return 0;
    }
    case 'O':
    case 'N':
    case 'H':
        if (!s->torch)
            return cli_usage_error("import", "--%s is for `import torch`",
                                   c == 'O'   ? "ops"
                                   : c == 'N' ? "no-cost-model"
                                              : "host");
        if (c == 'O')
            s->ops_file = arg;
        else if (c == 'N')
            s->no_model = 1;
        else
            s->host = 1;
        return 0;
    }
    return -1;
}

static int option_onednn(void *state, int c, char *arg)
{
    return option(state, c, arg);
}

static int option_torch(void *state, int c, char *arg)
{
    ((framework_state *)state)->torch = 1;
    return option(state, c, arg);
}

static const char *option_input(const void *state)
{
    return ((const framework_state *)state)->ops_file;
}

static int read_onednn(void *state, const cli_import_args *a, rt_profile **p, rt_warnings *w,
                       rt_error *err)
{
    const framework_state *s = state;
    /* values no profile may hold are the importer's error, naming the log (rt_import_check) */
    if (rt_import_onednn_conv(a->inputs[0], s->conv, p, w, err) != 0)
        return -1;
    (*p)->threads = s->threads;
    return 0;
}

static int read_torch(void *state, const cli_import_args *a, rt_profile **p, rt_warnings *w,
                      rt_error *err)
{
    framework_state *s = state;
    if (!s->no_model && rt_torch_ops_load(s->ops_file, &s->ops, err) != 0)
        return -1;
    if (rt_comm_patterns_load(NULL, &s->comm, err) != 0)
        return -1;
    rt_torch_options to = {.within = s->within,
                           .ops = s->ops,
                           .conv = s->conv,
                           .by_source = 1,
                           .host = s->host,
                           .comm = &s->comm};
    if (rt_import_torch_opts(a->inputs[0], &to, p, w, err) != 0)
        return -1;
    (*p)->threads = s->threads;
    return 0;
}

static void report(const void *state, const cli_import_args *a, const rt_profile *p)
{
    (void)state;
    double calls = 0, t = 0;
    for (size_t i = 0; i < p->n_kernels; i++) {
        calls += p->kernels[i].invocations;
        t += p->kernels[i].time;
    }
    printf("%s: %zu kernels, %.0f invocations, %.6g s\n", a->output, p->n_kernels, calls, t);
    if (p->time_kind != RT_TIME_DEVICE || !p->tool || strcmp(p->tool, "pytorch-profiler") != 0)
        return;
    /* a GPU trace: the device it ran on and the preset of its rates */
    const char *preset = rt_tags_get(&p->provenance.notes, "gpu_preset");
    const char *share = rt_tags_get(&p->provenance.notes, "torch_device_covered_share");
    printf("device time of %s%s%s%s; %.1f%% of the non-communication time with FLOPs or bytes\n",
           p->machine ? p->machine : "an unnamed GPU", preset ? ": analyze with --machine " : "",
           preset ? preset : "", preset ? "" : " (no preset)", share ? 100 * atof(share) : 0.0);
}

static void release(void *state)
{
    rt_torch_ops_free(((framework_state *)state)->ops);
    rt_comm_patterns_release(&((framework_state *)state)->comm);
}

/* --threads, in both helps. */
#define THREADS_HELP                                                                               \
    "      --threads N        the threads that ran the kernels (OMP_NUM_THREADS,\n"                \
    "                         torch.get_num_threads()): hier mode places their estimated bytes\n"  \
    "                         at the level that holds each working set on that many threads\n"     \
    "                         (default: unknown, every instance of each cache)\n"

const cli_importer cli_importer_onednn = {
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
            "traffic; unreadable lines are reported by "
            "number\n" THREADS_HELP,
    .options = options,
    .state_size = sizeof(framework_state),
    .max_inputs = 1,
    .no_input = "no log file given",
    .too_many = "import onednn reads one file at a time",
    .option = option_onednn,
    .option_input = option_input,
    .read = read_onednn,
    .report = report,
    .release = release,
};

const cli_importer cli_importer_torch = {
    .name = "torch",
    .summary = "a PyTorch profiler chrome trace",
    .synopsis = "rooftime import torch TRACE.json[.gz] -o PROFILE [--within RANGE] [--conv-flops "
                "taps|window]\n"
                "                      [--ops FILE | --no-cost-model] [--threads N] [--host]\n"
                "                      [--tag KEY=VALUE]...\n",
    .help =
        "import torch: a PyTorch profiler chrome trace, gzip-compressed or not; operators by self\n"
        "time; FLOPs and bytes of each call from its recorded shapes and types by the cost model\n"
        "(data/torch/ops.json), operators tagged with the user's source line and nn.Module when\n"
        "the trace has call stacks; uncovered operators are listed with their share of the time.\n"
        "A trace of a GPU run becomes its device profile: kernels, memcpys and memsets by device\n"
        "time, each with the work of the operator that launched it (tags op, shapes, source),\n"
        "the GPU named and its preset (data/gpu/devices.json), the host side as the launch\n"
        "side: busy and idle time of the GPU, launch latency measured in the run (tau)\n"
        "      --within RANGE     only what runs inside ranges named RANGE (record_function)\n"
        "      --ops FILE         another cost model; --no-cost-model: FLOPs from args.flops "
        "only\n"
        "      --conv-flops taps|window  convolution and pooling FLOPs: taps inside the input\n"
        "                         (default, as oneDNN's benchdnn) or the whole window (as "
        "torch)\n" THREADS_HELP
        "      --host             a GPU trace's host operators by self time (wall time) instead\n"
        "                         of its device profile\n",
    .options = options,
    .state_size = sizeof(framework_state),
    .max_inputs = 1,
    .no_input = "no trace file given",
    .too_many = "import torch reads one file at a time",
    .option = option_torch,
    .option_input = option_input,
    .read = read_torch,
    .report = report,
    .release = release,
};
