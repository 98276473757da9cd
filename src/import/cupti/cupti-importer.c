/* `rooftime import cupti DIR`: the CUPTI collector's directory, a row of the importers' table
 * (rooftime/import/importers.h); --reevaluate evaluates its raw counter images again through
 * librooftime-cupti.so first (rt_cupti_reevaluate). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/import/cupti-dir.h"
#include "rooftime/import/cupti.h"
#include "rooftime/import/importers.h"
#include "rooftime/util/atomic-file.h"

typedef struct cupti_state {
    rt_cupti_options o;
    int reevaluate;
    size_t manifests; /* raw counter images' manifests in the directory */
    char *scratch;    /* --reevaluate's ranges */
} cupti_state;

static const rt_import_option options[] = {
    {"reevaluate", 0, RT_IMPORT_FLAG, NULL,
     "evaluate the kept raw counter images again with this machine's\n"
     "CUPTI (librooftime-cupti.so; no GPU needed) instead of reading the\n"
     "values the collector evaluated (docs/import-cupti.md)",
     NULL},
    {"per-launch", 0, RT_IMPORT_FLAG, NULL, NULL, NULL},
    {"metrics", 0, RT_IMPORT_FILE, "FILE", NULL, NULL},
};

static int apply(void *state, const rt_import_option *opt, const char *v, rt_error *err)
{
    (void)err;
    cupti_state *s = state;
    if (strcmp(opt->name, "metrics") == 0)
        s->o.metrics_file = v;
    else if (strcmp(opt->name, "per-launch") == 0)
        s->o.per_launch = true;
    else if (strcmp(opt->name, "reevaluate") == 0)
        s->reevaluate = 1;
    return 0;
}

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

/* -o must not be one of the collector's files, and --reevaluate needs raw images. */
static int check(void *state, const rt_import_run *r, rt_error *err)
{
    cupti_state *s = state;
    const char *dir = r->inputs[0];
    if (r->output && rt_path_in_dir(r->output, dir) && collector_file(r->output)) {
        rt_error_set(err,
                     "output '%s' is one of the collector's files in '%s': it would be overwritten",
                     r->output, dir);
        return -1;
    }
    s->manifests = rt_cupti_image_manifests(dir);
    if (s->reevaluate && s->manifests == 0) {
        rt_error_set(err,
                     "--reevaluate: '%s' holds no raw counter images (images.PID.csv): "
                     "`profile --gpu --counters` keeps them in run.cupti/ beside run.json, or in "
                     "--keep-dir DIR",
                     dir);
        return -1;
    }
    return 0;
}

/* With --reevaluate, the images evaluated again first, into a scratch directory. */
static int read_cupti(void *state, const rt_import_run *r, rt_profile **p, rt_warnings *w,
                      rt_error *err)
{
    cupti_state *s = state;
    if (s->reevaluate) {
        rt_error lerr = {{0}};
        char *lib = r->cupti_lib ? r->cupti_lib(&lerr) : NULL;
        if (!lib) {
            rt_error_set(err, "--reevaluate: %s",
                         lerr.msg[0] ? lerr.msg : "librooftime-cupti.so not found");
            return -1;
        }
        long n = rt_cupti_reevaluate(lib, r->inputs[0], &s->scratch, w, err);
        if (n >= 0 && r->notes)
            fprintf(r->notes,
                    "rooftime: import: %ld counter ranges evaluated again from the raw images in "
                    "%s (%s)\n",
                    n, r->inputs[0], lib);
        free(lib);
        if (n < 0)
            return -1;
    }
    s->o.ranges_dir = s->scratch;
    return rt_import_cupti(r->inputs[0], &s->o, p, w, err);
}

static void report(const void *state, const rt_import_run *r, const rt_profile *p, FILE *out)
{
    const cupti_state *s = state;
    double n = 0;
    for (size_t i = 0; i < p->n_kernels; i++)
        n += p->kernels[i].invocations;
    fprintf(out, "%s: %zu kernels, %.0f launches\n", r->output, p->n_kernels, n);
    if (s->manifests && !s->reevaluate && r->notes)
        fprintf(r->notes,
                "rooftime: import: note: %s keeps raw counter images; --reevaluate evaluates "
                "them again with this machine's CUPTI (the values read are the collector's)\n",
                r->inputs[0]);
}

static void release(void *state)
{
    cupti_state *s = state;
    if (s->scratch)
        rt_cupti_remove_dir(s->scratch);
    free(s->scratch);
}

const rt_importer rt_importer_cupti = {
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
        "--metrics as for ncu\n",
    .options = options,
    .n_options = sizeof options / sizeof options[0],
    .state_size = sizeof(cupti_state),
    .max_inputs = 1,
    .no_input = "no collector directory given",
    .too_many = "import cupti reads one directory",
    .apply = apply,
    .check = check,
    .read = read_cupti,
    .report = report,
    .release = release,
};
