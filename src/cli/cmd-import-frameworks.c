/* `rooftime import onednn LOG` and `import torch TRACE`: the framework rows of `import`. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-output.h"
#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/onednn.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/error.h"

/* Options both share: -o FILE, --tag key=value, --conv-flops; torch adds --within NAME, --ops FILE,
 * --no-cost-model. */
static int run_import(int argc, char **argv, int torch)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"tag", required_argument, NULL, 't'},
                                         {"within", required_argument, NULL, 'w'},
                                         {"conv-flops", required_argument, NULL, 'c'},
                                         {"ops", required_argument, NULL, 'O'},
                                         {"no-cost-model", no_argument, NULL, 'N'},
                                         {0}};
    const char *output = NULL, *within = NULL;
    char *out_path = NULL; /* -o with its placeholders expanded */
    const char *ops_file = NULL;
    rt_conv_flops conv = RT_CONV_TAPS;
    int no_model = 0;
    rt_torch_ops *ops = NULL;
    rt_tags tags = {0};
    rt_warnings warnings = {0};
    rt_profile *p = NULL;
    int rc = RT_EXIT_USAGE, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:t:", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 't':
            if ((rc = cli_tag_option("import", optarg, &tags)) != 0)
                goto out;
            break;
        case 'w':
            if (!torch) {
                rc = cli_usage_error("import", "--within is for `import torch`");
                goto out;
            }
            within = optarg;
            break;
        case 'c': {
            rt_error cerr;
            if (rt_conv_flops_parse(optarg, &conv, &cerr) != 0) {
                rc = cli_usage_error("import", "--conv-flops: %s", cerr.msg);
                goto out;
            }
            break;
        }
        case 'O':
        case 'N':
            if (!torch) {
                rc = cli_usage_error("import", "--%s is for `import torch`",
                                     c == 'O' ? "ops" : "no-cost-model");
                goto out;
            }
            if (c == 'O')
                ops_file = optarg;
            else
                no_model = 1;
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
        rc = cli_usage_error(
            "import", optind >= argc ? "no %s file given" : "import %s reads one file at a time",
            torch ? "trace" : "log");
        goto out;
    }
    if ((rc = cli_output_check("import", output, argv + optind, 1)) != 0 ||
        (rc = cli_output_check("import", output, (char **)&ops_file, 1)) != 0)
        goto out;
    rt_error err = {{0}};
    rc = RT_EXIT_FAIL;
    if (torch && !no_model && rt_torch_ops_load(ops_file, &ops, &err) != 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    rt_torch_options to = {.within = within, .ops = ops, .conv = conv, .by_source = 1};
    int r = torch ? rt_import_torch_opts(argv[optind], &to, &p, &warnings, &err)
                  : rt_import_onednn_conv(argv[optind], conv, &p, &warnings, &err);
    cli_print_warnings(&warnings, 20, NULL);
    if (r != 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    /* Values no profile may hold (sums that overflow ...): named with the trace or log. */
    if (rt_profile_check(p, &err) != 0) {
        cli_error("'%s': %s", argv[optind], err.msg);
        goto out;
    }
    if (cli_save_profile(p, &tags, output) != 0)
        goto out;
    double calls = 0, t = 0;
    for (size_t i = 0; i < p->n_kernels; i++) {
        calls += p->kernels[i].invocations;
        t += p->kernels[i].time;
    }
    printf("%s: %zu kernels, %.0f invocations, %.6g s\n", output, p->n_kernels, calls, t);
    rc = RT_EXIT_OK;
out:
    free(out_path);
    rt_torch_ops_free(ops);
    rt_profile_free(p);
    rt_tags_release(&tags);
    rt_warnings_release(&warnings);
    return rc;
}

int cli_import_onednn(int argc, char **argv)
{
    return run_import(argc, argv, 0);
}

int cli_import_torch(int argc, char **argv)
{
    return run_import(argc, argv, 1);
}
