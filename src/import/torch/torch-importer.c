/* `rooftime import torch TRACE`: a PyTorch profiler trace with the cost model, a row of the
 * importers' table (rooftime/import/importers.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/comm.h"
#include "rooftime/formats/comm-json.h"
#include "rooftime/import/importers.h"
#include "rooftime/import/torch-cost.h"
#include "rooftime/import/torch.h"

typedef struct torch_state {
    const char *within, *ops_file;
    rt_conv_flops conv; /* RT_CONV_TAPS unless --conv-flops says otherwise */
    int no_model, host;
    int threads; /* --threads: what ran the kernels, for where their bytes fit; 0: unknown */
    rt_torch_ops *ops;
    rt_comm_patterns comm; /* a GPU trace's communication kernels get no operator's work */
} torch_state;

static const rt_import_option options[] = {
    {"within", 0, RT_IMPORT_VALUE, "RANGE",
     "only what runs inside ranges named RANGE (record_function)", NULL},
    {"ops", 0, RT_IMPORT_FILE, "FILE",
     "another cost model; --no-cost-model: FLOPs from args.flops only", "data/torch/ops.json"},
    {"no-cost-model", 0, RT_IMPORT_FLAG, NULL, NULL, NULL},
    {"conv-flops", 0, RT_IMPORT_VALUE, "taps|window",
     "convolution and pooling FLOPs: taps inside the input\n"
     "(default, as oneDNN's benchdnn) or the whole window (as torch)",
     "taps"},
    {"threads", 0, RT_IMPORT_VALUE, "N", RT_IMPORT_THREADS_HELP, "unknown"},
    {"host", 0, RT_IMPORT_FLAG, NULL,
     "a GPU trace's host operators by self time (wall time) instead\n"
     "of its device profile",
     NULL},
};

static int apply(void *state, const rt_import_option *opt, const char *v, rt_error *err)
{
    torch_state *s = state;
    const char *name = opt->name;
    if (strcmp(name, "within") == 0)
        s->within = v;
    else if (strcmp(name, "ops") == 0)
        s->ops_file = v;
    else if (strcmp(name, "no-cost-model") == 0)
        s->no_model = 1;
    else if (strcmp(name, "host") == 0)
        s->host = 1;
    else if (strcmp(name, "conv-flops") == 0)
        return rt_import_parse_conv(v, &s->conv, err);
    else if (strcmp(name, "threads") == 0)
        return rt_import_parse_threads(v, &s->threads, err);
    return 0;
}

static int read_torch(void *state, const rt_import_run *r, rt_profile **p, rt_warnings *w,
                      rt_error *err)
{
    torch_state *s = state;
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
    if (rt_import_torch_opts(r->inputs[0], &to, p, w, err) != 0)
        return -1;
    (*p)->threads = s->threads;
    return 0;
}

/* The calls and time; for a GPU trace, the device it ran on and the preset of its rates. */
static void report(const void *state, const rt_import_run *r, const rt_profile *p, FILE *out)
{
    (void)state;
    rt_import_report_invocations(out, r->output, p);
    if (p->time_kind != RT_TIME_DEVICE || !p->tool || strcmp(p->tool, "pytorch-profiler") != 0)
        return;
    const char *preset = rt_tags_get(&p->provenance.notes, "gpu_preset");
    const char *share = rt_tags_get(&p->provenance.notes, "torch_device_covered_share");
    fprintf(out,
            "device time of %s%s%s%s; %.1f%% of the non-communication time with FLOPs or bytes\n",
            p->machine ? p->machine : "an unnamed GPU", preset ? ": analyze with --machine " : "",
            preset ? preset : "", preset ? "" : " (no preset)", share ? 100 * atof(share) : 0.0);
}

static void release(void *state)
{
    rt_torch_ops_free(((torch_state *)state)->ops);
    rt_comm_patterns_release(&((torch_state *)state)->comm);
}

const rt_importer rt_importer_torch = {
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
        "the trace has call stacks (torch 1.x's 'Call stack', or torch 2.x's Python frames of\n"
        "with_stack=True); uncovered operators are listed with their share of the time.\n"
        "A trace of a GPU run becomes its device profile: kernels, memcpys and memsets by device\n"
        "time, each with the work of the operator that launched it (tags op, shapes, source),\n"
        "the GPU named and its preset (data/gpu/devices.json), the host side as the launch\n"
        "side: busy and idle time of the GPU, launch latency measured in the run (tau)\n",
    .options = options,
    .n_options = sizeof options / sizeof options[0],
    .state_size = sizeof(torch_state),
    .max_inputs = 1,
    .no_input = "no trace file given",
    .too_many = "import torch reads one file at a time",
    .apply = apply,
    .read = read_torch,
    .report = report,
    .release = release,
};
