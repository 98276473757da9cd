/* `rooftime import cupti DIR`: the CUPTI collector's directory into a profile, a row of the
 * importers' table; --reevaluate evaluates its raw counter images again through
 * librooftime-cupti.so first. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-cupti.h"
#include "cli-import.h"
#include "cli-output.h"
#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/cupti-dir.h"
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

typedef struct cupti_state {
    rt_cupti_options o;
    int reevaluate;
    size_t manifests; /* raw counter images' manifests in the directory */
    char *scratch;    /* --reevaluate's ranges */
} cupti_state;

static const struct option options[] = {{"metrics", required_argument, NULL, 'M'},
                                        {"per-launch", no_argument, NULL, 'P'},
                                        {"reevaluate", no_argument, NULL, 'R'},
                                        {0}};

static int option(void *state, int c, char *arg)
{
    cupti_state *s = state;
    switch (c) {
    case 'M':
        s->o.metrics_file = arg;
        return 0;
    case 'P':
        s->o.per_launch = true;
        return 0;
    case 'R':
        s->reevaluate = 1;
        return 0;
    }
    return -1;
}

static const char *option_input(const void *state)
{
    return ((const cupti_state *)state)->o.metrics_file;
}

/* -o must not be one of the collector's files, and --reevaluate needs raw images. */
static int check(void *state, const cli_import_args *a)
{
    cupti_state *s = state;
    const char *dir = a->inputs[0];
    if (cli_path_in_dir(a->output, dir) && collector_file(a->output))
        return cli_usage_error("import",
                               "output '%s' is one of the collector's files in '%s': it "
                               "would be overwritten",
                               a->output, dir);
    s->manifests = rt_cupti_image_manifests(dir);
    if (s->reevaluate && s->manifests == 0)
        return cli_usage_error(
            "import",
            "--reevaluate: '%s' holds no raw counter images (images.PID.csv): "
            "`profile --gpu --counters` keeps them in run.cupti/ beside run.json, or in "
            "--keep-dir DIR",
            dir);
    return 0;
}

/* With --reevaluate, the images evaluated again first (a failure is reported there). */
static int read_cupti(void *state, const cli_import_args *a, rt_profile **p, rt_warnings *w,
                      rt_error *err)
{
    cupti_state *s = state;
    if (s->reevaluate && cli_cupti_reevaluate(a->inputs[0], &s->scratch, w) != 0)
        return -1;
    s->o.ranges_dir = s->scratch;
    return rt_import_cupti(a->inputs[0], &s->o, p, w, err);
}

static void report(const void *state, const cli_import_args *a, const rt_profile *p)
{
    const cupti_state *s = state;
    double n = 0;
    for (size_t i = 0; i < p->n_kernels; i++)
        n += p->kernels[i].invocations;
    printf("%s: %zu kernels, %.0f launches\n", a->output, p->n_kernels, n);
    if (s->manifests && !s->reevaluate)
        fprintf(stderr,
                "rooftime: import: note: %s keeps raw counter images; --reevaluate evaluates "
                "them again with this machine's CUPTI (the values read are the collector's)\n",
                a->inputs[0]);
}

static void release(void *state)
{
    cupti_state *s = state;
    if (s->scratch)
        rt_cupti_remove_dir(s->scratch);
    free(s->scratch);
}

const cli_importer cli_importer_cupti = {
    .name = "cupti",
    .summary = "the CUPTI collector's directory (profile --gpu --keep-dir)",
    .synopsis =
        "rooftime import cupti DIR -o PROFILE [--reevaluate] [--per-launch] [--metrics FILE]\n"
        "                      [--tag KEY=VALUE]...\n",
    .help =
        "import cupti: what `profile --gpu --keep-dir DIR` collected (or run.cupti/ of `profile\n"
        "--gpu --counters -o run.json`): times from the trace run, FLOPs and bytes from the "
        "counter\n"
        "run (formulas of `import ncu`), joined by kernel name and launch order; --per-launch "
        "and\n"
        "--metrics as for ncu\n"
        "      --reevaluate       evaluate the kept raw counter images again with this "
        "machine's\n"
        "                         CUPTI (librooftime-cupti.so; no GPU needed) instead of "
        "reading the\n"
        "                         values the collector evaluated (docs/import-cupti.md)\n",
    .options = options,
    .state_size = sizeof(cupti_state),
    .max_inputs = 1,
    .no_input = "no collector directory given",
    .too_many = "import cupti reads one directory",
    .option = option,
    .option_input = option_input,
    .check = check,
    .read = read_cupti,
    .report = report,
    .release = release,
};
