/* `rooftime import onednn LOG` and `import torch TRACE`: the framework rows of `import`. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-output.h"
#include "cli-util.h"
#include "commands.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/onednn.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/error.h"

/* Options both share: -o FILE, --tag key=value; torch adds --within NAME. */
static int run_import(int argc, char **argv, int torch)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"tag", required_argument, NULL, 't'},
                                         {"within", required_argument, NULL, 'w'},
                                         {0}};
    const char *output = NULL, *within = NULL;
    char *out_path = NULL; /* -o with its placeholders expanded */
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
    if ((rc = cli_output_check("import", output, argv + optind, 1)) != 0)
        goto out;
    rt_error err = {{0}};
    rc = RT_EXIT_FAIL;
    int r = torch ? rt_import_torch(argv[optind], within, &p, &warnings, &err)
                  : rt_import_onednn(argv[optind], &p, &warnings, &err);
    cli_print_warnings(&warnings, 20);
    if (r != 0) {
        cli_error("%s", err.msg);
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
