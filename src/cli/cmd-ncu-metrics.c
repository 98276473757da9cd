/* `rooftime ncu-metrics`: the Nsight Compute metrics the import needs, and a ready ncu command
 * line. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/import/ncu-metric-list.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/util/error.h"

int cmd_ncu_metrics(int argc, char **argv)
{
    static const struct option opts[] = {{"arch", required_argument, NULL, 'a'},
                                         {"set", required_argument, NULL, 's'},
                                         {"metrics", required_argument, NULL, 'M'},
                                         {0}};
    const char *arch = "sm_70", *set = "throughput", *mfile = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'a':
            arch = optarg;
            break;
        case 's':
            set = optarg;
            break;
        case 'M':
            mfile = optarg;
            break;
        default:
            return cli_option_error("ncu-metrics", NULL, c, argv, opts);
        }
    }
    if (optind != argc)
        return cli_usage_error("ncu-metrics", "unexpected argument '%s'", argv[optind]);
    int sm = strncmp(arch, "sm_", 3) == 0 ? rt_ncu_parse_arch(arch) : -1;
    if (sm < 0) {
        char names[256];
        rt_ncu_arch_names(names, sizeof names, ", ");
        return cli_usage_error("ncu-metrics",
                               "--arch takes sm_XX, not '%s' (the generations of "
                               "data/gpu/architectures.json: %s)",
                               arch, names);
    }
    rt_error err = {{0}};
    rt_ncu_metric_list l;
    double k;
    char tensor[4096];
    if (rt_ncu_constant(mfile, arch, "tensor_factor", &k, &err) != 0 ||
        rt_ncu_tensor_formulas(mfile, set, sm, tensor, sizeof tensor, &err) != 0 ||
        rt_ncu_metric_list_load(mfile, set, sm, &l, &err) != 0) {
        cli_error("%s", err.msg);
        return RT_EXIT_FAIL;
    }
    printf("# Nsight Compute metrics for the time-based roofline, set '%s', %s\n", set, arch);
    /* The tensor FLOP formulas of this architecture: one instruction count to sm_75, the ops
     * counters per precision from sm_80 on. */
    if (strstr(tensor, "tensor_factor * sm__inst_executed_pipe_tensor.sum")) {
        printf("# (tensor FLOPs = %g x sm__inst_executed_pipe_tensor.sum on %s)\n", k, arch);
    } else if (!tensor[0]) {
        printf("# (no tensor FLOPs in set '%s' on %s)\n", set, arch);
    } else {
        double opf = NAN;
        rt_error e2 = {{0}};
        if (strstr(tensor, "tensor_op_flops") &&
            rt_ncu_constant(mfile, arch, "tensor_op_flops", &opf, &e2) == 0)
            printf("# (tensor FLOPs per precision on %s, tensor_op_flops = %g FLOP per math op:\n",
                   arch, opf);
        else
            printf("# (tensor FLOPs on %s:\n", arch);
        for (char *s = tensor, *nl; *s && (nl = strchr(s, '\n')); s = nl + 1)
            printf("#   %.*s\n", (int)(nl - s), s);
        printf("# )\n");
    }
    for (size_t i = 0; i < l.n; i++)
        printf("%s\n", l.metric[i]);
    /* Units in base (ncu scales values for display to two decimals otherwise), kernel names
     * mangled (the import demangles them as the collector does: the names match). */
    printf("\n# all metrics in one run (bracket the region with cudaProfilerStart/Stop):\n");
    printf("ncu --csv --print-units base --print-kernel-base mangled --profile-from-start off "
           "--metrics ");
    for (size_t i = 0; i < l.n; i++)
        printf("%s%s", i ? "," : "", l.metric[i]);
    printf(" ./app > ncu.csv\n");
    printf("\n# or one metric per run, as the authors did (less profiling overhead per run):\n");
    printf("for m in");
    for (size_t i = 0; i < l.n; i++)
        printf(" %s", l.metric[i]);
    printf("; do\n    ncu --csv --print-units base --print-kernel-base mangled "
           "--profile-from-start off --metrics $m ./app > out.$m\ndone\n");
    printf("\n# then (files without a CC column need --arch):\n"
           "rooftime import ncu ncu.csv -o profile.json\n"
           "rooftime import ncu out.* -o profile.json --arch %s\n",
           arch);
    rt_ncu_metric_list_release(&l);
    return RT_EXIT_OK;
}

/* `rooftime ncu-metrics`: name, entry point, summary and usage (main.c lists it). */
const rt_command rt_cmd_ncu_metrics = {
    "ncu-metrics", cmd_ncu_metrics,
    "the Nsight Compute metrics rooftime needs, and the ncu command",
    "rooftime ncu-metrics [--arch sm_XX] [--set throughput|sectors] [--metrics FILE]\n"
    "\n"
    "Prints the metrics `import ncu` needs, how tensor FLOPs are counted on the architecture, an\n"
    "ncu command that collects them all in one run and a loop that collects one per run.\n"
    "      --arch sm_XX     the GPU's architecture (default sm_70): the tensor FLOPs come from\n"
    "                       the instruction count to sm_75, per-precision ops counters from "
    "sm_80;\n"
    "                       the generations of data/gpu/architectures.json (one between two\n"
    "                       takes the lower one's formulas):\n"
    "                       @GPU_ARCHS@\n"
    "      --set S          throughput (default: bytes per level, FLOPs from instruction\n"
    "                       counts) or sectors (the older set: 32-byte sectors per level)\n"
    "      --metrics FILE   a metric mapping instead of data/ncu/metrics.json\n"
    "See docs/import-ncu.md.",
    "  rooftime ncu-metrics --arch sm_90      # an H100's metrics and ncu command, on standard "
    "output\n"
    "  ncu --csv --print-units base --print-kernel-base mangled --metrics M1,M2,... ./app > "
    "out.csv\n"
    "  rooftime import ncu out.csv -o run.json   # then the profile of that run\n"};
