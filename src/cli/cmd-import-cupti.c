/* `rooftime import cupti DIR`: the CUPTI collector's directory into a profile; --reevaluate
 * evaluates its raw counter images again through librooftime-cupti.so first. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-cupti.h"
#include "cli-output.h"
#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/cupti.h"
#include "rooftime/util/error.h"

/* A file the importer reads from the directory: collector.PID.txt, kernels.PID.csv,
 * launches.PID.csv, ranges.PID.csv, images.PID.csv (only the last part of path counts). */
static int collector_file(const char *path)
{
    static const char *const names[][2] = {{"collector.", ".txt"},
                                           {"kernels.", ".csv"},
                                           {"launches.", ".csv"},
                                           {"ranges.", ".csv"},
                                           {"images.", ".csv"}};
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i][0]);
        if (strncmp(base, names[i][0], n) != 0)
            continue;
        const char *d = base + n;
        while (*d == '-' || (*d >= '0' && *d <= '9'))
            d++;
        if (d > base + n && strcmp(d, names[i][1]) == 0)
            return 1;
    }
    return 0;
}

int cli_import_cupti(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"metrics", required_argument, NULL, 'M'},
        {"per-launch", no_argument, NULL, 'P'},   {"tag", required_argument, NULL, 't'},
        {"reevaluate", no_argument, NULL, 'R'},   {0}};
    const char *output = NULL;
    char *scratch = NULL; /* --reevaluate's ranges */
    int reevaluate = 0;
    rt_cupti_options o = {0};
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
        case 'M':
            o.metrics_file = optarg;
            break;
        case 'P':
            o.per_launch = true;
            break;
        case 'R':
            reevaluate = 1;
            break;
        case 't':
            if ((rc = cli_tag_option("import", optarg, &tags)) != 0)
                goto out;
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
    if (optind != argc - 1) {
        rc = cli_usage_error("import", optind >= argc ? "no collector directory given"
                                                      : "import cupti reads one directory");
        goto out;
    }
    if ((rc = cli_output_check("import", output, argv + optind, 1)) != 0 ||
        (rc = cli_output_check("import", output, (char **)&o.metrics_file, 1)) != 0)
        goto out;
    if (cli_path_in_dir(output, argv[optind]) && collector_file(output)) {
        rc = cli_usage_error("import",
                             "output '%s' is one of the collector's files in '%s': it "
                             "would be overwritten",
                             output, argv[optind]);
        goto out;
    }
    size_t manifests = rt_cupti_image_manifests(argv[optind]);
    if (reevaluate && manifests == 0) {
        rc = cli_usage_error(
            "import",
            "--reevaluate: '%s' holds no raw counter images (images.PID.csv): "
            "`profile --gpu --counters` keeps them in run.cupti/ beside run.json, or in "
            "--keep-dir DIR",
            argv[optind]);
        goto out;
    }
    rc = RT_EXIT_FAIL;
    if (reevaluate && cli_cupti_reevaluate(argv[optind], &scratch, &warnings) != 0) {
        cli_print_warnings(&warnings, 10, NULL);
        goto out;
    }
    o.ranges_dir = scratch;
    rt_error err = {{0}};
    if (rt_import_cupti(argv[optind], &o, &p, &warnings, &err) != 0) {
        cli_print_warnings(&warnings, 10, NULL);
        cli_error("%s", err.msg);
        goto out;
    }
    cli_print_warnings(&warnings, 20, NULL);
    if (cli_save_profile(p, &tags, output) != 0)
        goto out;
    double n = 0;
    for (size_t i = 0; i < p->n_kernels; i++)
        n += p->kernels[i].invocations;
    printf("%s: %zu kernels, %.0f launches\n", output, p->n_kernels, n);
    if (manifests && !reevaluate)
        fprintf(stderr,
                "rooftime: import: note: %s keeps raw counter images; --reevaluate evaluates "
                "them again with this machine's CUPTI (the values read are the collector's)\n",
                argv[optind]);
    rc = RT_EXIT_OK;
out:
    if (scratch)
        cli_cupti_remove_dir(scratch);
    free(scratch);
    rt_profile_free(p);
    rt_tags_release(&tags);
    rt_warnings_release(&warnings);
    return rc;
}
