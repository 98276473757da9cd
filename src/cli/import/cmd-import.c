/* `rooftime import KIND ...`: the one path that runs a row of the importers' table
 * (rooftime/import/importers.h): its getopt options and `import`'s usage are built from the
 * rows, so an importer's options are written once, in its row. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-cupti.h"
#include "cli-inputs.h"
#include "cli-output.h"
#include "commands.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/importers.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* getopt's value of a row's option without a letter: OPT_BASE + its index in the row. */
#define OPT_BASE 256

/* What one run holds: the row's state, -o and --tag, and the files the options name. */
typedef struct import_cmd {
    const rt_importer *im;
    void *state;
    const char *output;
    rt_tags tags;
    /* The value of each RT_IMPORT_FILE option given (the last one, as it wins; by its index in
     * the row), then packed to n_files: -o must not overwrite them. */
    char **files;
    size_t n_files;
} import_cmd;

/* getopt's long options: -o, --tag, then the row's ({0}-terminated, heap); its short ones too. */
static struct option *long_options(const rt_importer *im, char **short_opts)
{
    struct option *opts = rt_xcalloc(im->n_options + 3, sizeof *opts);
    opts[0] = (struct option){"output", required_argument, NULL, 'o'};
    opts[1] = (struct option){"tag", required_argument, NULL, 't'};
    char *s = rt_xmalloc(5 + 2 * im->n_options + 1), *at = s + 5;
    memcpy(s, ":o:t:", 5);
    for (size_t i = 0; i < im->n_options; i++) {
        const rt_import_option *o = &im->options[i];
        int has = o->arg == RT_IMPORT_FLAG ? no_argument : required_argument;
        opts[2 + i] =
            (struct option){o->name, has, NULL, o->letter ? o->letter : OPT_BASE + (int)i};
        if (o->letter) {
            *at++ = o->letter;
            if (has)
                *at++ = ':';
        }
    }
    *at = '\0';
    *short_opts = s;
    return opts;
}

/* The row's option getopt returned as c, or NULL. */
static const rt_import_option *option_of(const rt_importer *im, int c)
{
    if (c >= OPT_BASE && (size_t)(c - OPT_BASE) < im->n_options)
        return &im->options[c - OPT_BASE];
    for (size_t i = 0; i < im->n_options; i++)
        if (im->options[i].letter && im->options[i].letter == c)
            return &im->options[i];
    return NULL;
}

/* An unknown long option that another importer takes: "--ops is for `import torch`"; 0 when
 * it is none. */
static int other_importers(const rt_importer *im, char **argv)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    if (optopt != 0 || strncmp(arg, "--", 2) != 0)
        return 0;
    char *name = rt_strndup(arg + 2, strcspn(arg + 2, "="));
    int rc = 0;
    for (size_t i = 0; !rc && i < rt_n_importers; i++)
        if (rt_importers[i] != im && rt_import_option_find(rt_importers[i], name))
            rc = cli_usage_error("import", "--%s is for `import %s`", name, rt_importers[i]->name);
    free(name);
    return rc;
}

/* -o, --tag and the row's options; 0 or the exit code. */
static int parse_options(import_cmd *ic, int argc, char **argv)
{
    const rt_importer *im = ic->im;
    char *short_opts;
    struct option *opts = long_options(im, &short_opts);
    ic->files = rt_xcalloc(im->n_options + 1, sizeof *ic->files);
    int rc = 0, c;
    optind = 1;
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, short_opts, opts, NULL)) != -1) {
        const rt_import_option *o = option_of(im, c);
        rt_error err = {{0}};
        if (c == 'o') {
            ic->output = optarg;
        } else if (c == 't') {
            rc = cli_tag_option("import", optarg, &ic->tags);
        } else if (!o) {
            if (c != '?' || (rc = other_importers(im, argv)) == 0)
                rc = cli_option_error("import", NULL, c, argv, opts);
        } else if (im->apply(ic->state, o, optarg, &err) != 0) {
            rc = cli_usage_error("import", "%s", err.msg);
        } else if (o->arg == RT_IMPORT_FILE) {
            ic->files[o - im->options] = optarg;
        }
    }
    for (size_t i = 0; i < im->n_options; i++)
        if (ic->files[i])
            ic->files[ic->n_files++] = ic->files[i];
    free(short_opts);
    free(opts);
    return rc;
}

/* librooftime-cupti.so for --reevaluate: beside rooftime or in ../lib (cli-cupti.c). */
static char *cupti_lib(rt_error *err)
{
    char *lib = cli_cupti_library();
    if (!lib)
        rt_error_set(err, CLI_CUPTI_NOT_FOUND);
    return lib;
}

/* Read, save and report: the steps after the checks; 0 or the exit code. */
static int import_and_save(import_cmd *ic, const rt_import_run *r)
{
    rt_warnings warnings = {0};
    rt_profile *p = NULL;
    rt_error err = {{0}};
    int rc = RT_EXIT_FAIL;
    if (ic->im->read(ic->state, r, &p, &warnings, &err) != 0) {
        cli_print_warnings(&warnings, 10, NULL);
        cli_error("%s", err.msg);
        goto out;
    }
    cli_print_warnings(&warnings, 20, NULL);
    if (cli_save_profile(p, &ic->tags, r->output) != 0)
        goto out;
    ic->im->report(ic->state, r, p, stdout);
    rc = RT_EXIT_OK;
out:
    rt_profile_free(p);
    rt_warnings_release(&warnings);
    return rc;
}

/* The checks after the options: -o, the inputs (as many as the row reads), that -o overwrites
 * none of them nor a file an option names, and the row's own. 0 or the exit code. */
static int check_run(import_cmd *ic, int argc, char **argv, char **out_path)
{
    const rt_importer *im = ic->im;
    int rc = cli_output_required("import", ic->output, out_path);
    if (rc != 0)
        return rc;
    if (optind >= argc)
        return cli_usage_error("import", "%s", im->no_input);
    if (im->max_inputs && (size_t)(argc - optind) > im->max_inputs)
        return cli_usage_error("import", "%s", im->too_many);
    if ((rc = cli_output_check("import", *out_path, argv + optind, (size_t)(argc - optind))) != 0 ||
        (rc = cli_output_check("import", *out_path, ic->files, ic->n_files)) != 0)
        return rc;
    return 0;
}

/* Run one importer (argv[0] its name): its options, the checks, then read, save and report.
 * Returns the exit code. */
static int import_run(const rt_importer *im, int argc, char **argv)
{
    import_cmd ic = {.im = im, .state = rt_xcalloc(1, im->state_size ? im->state_size : 1)};
    char *out_path = NULL; /* -o with its placeholders expanded */
    int rc = parse_options(&ic, argc, argv);
    if (rc == 0)
        rc = check_run(&ic, argc, argv, &out_path);
    if (rc == 0) {
        rt_import_run r = {(const char *const *)argv + optind, (size_t)(argc - optind), out_path,
                           stderr, cupti_lib};
        rt_error err = {{0}};
        if (im->check && im->check(ic.state, &r, &err) != 0)
            rc = cli_usage_error("import", "%s", err.msg);
        else
            rc = import_and_save(&ic, &r);
    }
    if (im->release)
        im->release(ic.state);
    free(ic.state);
    free(ic.files);
    free(out_path);
    rt_tags_release(&ic.tags);
    return rc;
}

int cmd_import(int argc, char **argv)
{
    if (argc < 2) {
        char list[256] = "";
        for (size_t i = 0; i < rt_n_importers; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     rt_importers[i]->name);
        return cli_usage_error("import", "which importer? (%s)", list);
    }
    const rt_importer *im = rt_importer_find(argv[1]);
    if (im)
        return import_run(im, argc - 1, argv + 1);
    cli_error("unknown importer '%s'; these exist:", argv[1]);
    for (size_t i = 0; i < rt_n_importers; i++)
        fprintf(stderr, "  %-8s %s\n", rt_importers[i]->name, rt_importers[i]->summary);
    return RT_EXIT_USAGE;
}

/* The usage: the rows' synopses, their paragraphs with their options, then what every importer
 * shares. Built once from the table before main runs, so that `rooftime help import` (and the
 * completion, which reads it) shows it like any command's. */
static const char usage_tail[] =
    "\n"
    "Every profile records the launcher's rank, the host and the device (\"identity\"); in -o,\n"
    "%r is the rank, %l the local rank, %s the job size, %h the host, %% a '%' (one file per "
    "rank).\n"
    "See docs/import-ncu.md, docs/import-frameworks.md and docs/import-cupti.md.";
static char usage[8192];
static size_t usage_n;

static void usage_add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void usage_add(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(usage + usage_n, sizeof usage - usage_n, fmt, ap);
    va_end(ap);
    usage_n += n > 0 ? (size_t)n : 0;
    if (usage_n >= sizeof usage)
        abort(); /* a row's text outgrew the buffer: a build mistake, caught by cli-usage.sh */
}

/* One option's lines: "  -m, --map Q=COLUMN" or "      --name LABEL", its help from column 25
 * (two spaces after a longer one), the help's further lines indented to it. */
static void usage_option(char letter, const char *name, const char *label, const char *help)
{
    size_t at = usage_n;
    if (letter)
        usage_add("  -%c, --%s", letter, name);
    else
        usage_add("      --%s", name);
    if (label)
        usage_add(" %s", label);
    size_t w = usage_n - at;
    usage_add("%*s", w < 25 ? (int)(25 - w) : 2, "");
    for (const char *s = help;;) {
        const char *nl = strchr(s, '\n');
        usage_add("%.*s", nl ? (int)(nl - s) : (int)strlen(s), s);
        if (!nl)
            break;
        usage_add("\n%25s", "");
        s = nl + 1;
    }
    usage_add("\n");
}

__attribute__((constructor)) static void usage_build(void)
{
    for (size_t i = 0; i < rt_n_importers; i++)
        usage_add("%s", rt_importers[i]->synopsis);
    usage_add("\n");
    for (size_t i = 0; i < rt_n_importers; i++) {
        const rt_importer *im = rt_importers[i];
        usage_add("%s", im->help);
        if (im->usage_lists_shared)
            usage_option('o', "output", "FILE", "the profile to write (required)");
        for (size_t k = 0; k < im->n_options; k++) {
            const rt_import_option *o = &im->options[k];
            if (o->help)
                usage_option(o->letter, o->name, o->label, o->help);
        }
        if (im->usage_lists_shared) {
            usage_option('t', "tag", "KEY=VALUE", "tag the profile (repeatable)");
            usage_add("\n");
        }
    }
    usage_add("%s", usage_tail);
}

/* `rooftime import`: name, entry point, summary and usage (main.c lists it). */
const rt_command rt_cmd_import = {
    "import", cmd_import, "turn profiler output or a result table into a rooftime profile", usage,
    "  rooftime import ncu out.* -o run.json          # Nsight Compute CSVs, into run.json\n"
    "  rooftime import torch trace.json.gz --within step -o run.json   # a PyTorch trace\n"
    "  rooftime import onednn verbose.log -o run.json # ONEDNN_VERBOSE=1 output\n"
    "  rooftime import table conv2d-pt.main.csv --ai-file conv2d-pt.l2-l1-ai.csv -o pt.json\n"
    "  rooftime import cupti DIR -o run.json          # what profile --gpu --keep-dir DIR kept\n"};
