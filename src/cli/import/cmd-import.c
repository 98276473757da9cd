/* `rooftime import KIND ...`: the table of importers and the one path that runs a row's steps. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-import.h"
#include "cli-output.h"
#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* The importers, in the order the usage and the list of an unknown importer show them. To add
 * one: its row in a cmd-import-NAME.c, declared in cli-import.h, and its line here. */
static const cli_importer *const importers[] = {
    &cli_importer_ncu,   &cli_importer_table, &cli_importer_onednn,
    &cli_importer_torch, &cli_importer_cupti,
};
#define N_IMPORTERS (sizeof importers / sizeof importers[0])

/* The options every importer takes, before the row's own. */
static const struct option shared_options[] = {{"output", required_argument, NULL, 'o'},
                                               {"tag", required_argument, NULL, 't'}};
#define N_SHARED (sizeof shared_options / sizeof shared_options[0])

/* -o, --tag and the row's options into *output, tags and state; 0 or the exit code. */
static int parse_options(const cli_importer *im, int argc, char **argv, void *state,
                         const char **output, rt_tags *tags)
{
    size_t n_own = 0;
    while (im->options && im->options[n_own].name)
        n_own++;
    struct option *opts = rt_xmalloc((N_SHARED + n_own + 1) * sizeof *opts);
    memcpy(opts, shared_options, sizeof shared_options);
    memcpy(opts + N_SHARED, im->options, n_own * sizeof *opts);
    memset(&opts[N_SHARED + n_own], 0, sizeof *opts);
    char *short_opts = rt_asprintf(":o:t:%s", im->short_opts ? im->short_opts : "");
    int rc = 0, c;
    optind = 1;
    opterr = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, short_opts, opts, NULL)) != -1) {
        if (c == 'o')
            *output = optarg;
        else if (c == 't')
            rc = cli_tag_option("import", optarg, tags);
        else if (c == '?' || c == ':' || !im->option || (rc = im->option(state, c, optarg)) < 0)
            rc = cli_option_error("import", NULL, c, argv, opts);
    }
    free(short_opts);
    free(opts);
    return rc;
}

/* The inputs after the options: as many as the row reads; 0 or the exit code. */
static int check_inputs(const cli_importer *im, int argc)
{
    if (optind >= argc)
        return cli_usage_error("import", "%s", im->no_input);
    if (im->max_inputs && (size_t)(argc - optind) > im->max_inputs)
        return cli_usage_error("import", "%s", im->too_many);
    return 0;
}

/* Read, save and report: the steps after the checks; 0 or the exit code. */
static int import_and_save(const cli_importer *im, void *state, const cli_import_args *a,
                           const rt_tags *tags)
{
    rt_warnings warnings = {0};
    rt_profile *p = NULL;
    rt_error err = {{0}};
    int rc = RT_EXIT_FAIL;
    if (im->read(state, a, &p, &warnings, &err) != 0) {
        cli_print_warnings(&warnings, 10, NULL);
        if (err.msg[0])
            cli_error("%s", err.msg);
        goto out;
    }
    cli_print_warnings(&warnings, 20, NULL);
    if (cli_save_profile(p, tags, a->output) != 0)
        goto out;
    im->report(state, a, p);
    rc = RT_EXIT_OK;
out:
    rt_profile_free(p);
    rt_warnings_release(&warnings);
    return rc;
}

/*
 * Run one importer (argv[0] its name): its options, -o with its placeholders expanded, its
 * inputs, the checks that -o names none of them nor a file an option names, its own checks, then
 * read, save and report. Returns the exit code.
 */
static int import_run(const cli_importer *im, int argc, char **argv)
{
    void *state = rt_xcalloc(1, im->state_size ? im->state_size : 1);
    rt_tags tags = {0};
    const char *output = NULL;
    char *out_path = NULL; /* -o with its placeholders expanded */
    int rc = parse_options(im, argc, argv, state, &output, &tags);
    if (rc != 0)
        goto out;
    if ((rc = cli_output_required("import", output, &out_path)) != 0 ||
        (rc = check_inputs(im, argc)) != 0)
        goto out;
    cli_import_args a = {argv + optind, (size_t)(argc - optind), out_path};
    const char *extra = im->option_input ? im->option_input(state) : NULL;
    if ((rc = cli_output_check("import", a.output, a.inputs, a.n_inputs)) != 0 ||
        (rc = cli_output_check("import", a.output, (char **)&extra, 1)) != 0)
        goto out;
    if (im->check && (rc = im->check(state, &a)) != 0)
        goto out;
    rc = import_and_save(im, state, &a, &tags);
out:
    if (im->release)
        im->release(state);
    free(state);
    free(out_path);
    rt_tags_release(&tags);
    return rc;
}

int cmd_import(int argc, char **argv)
{
    if (argc < 2) {
        char list[256] = "";
        for (size_t i = 0; i < N_IMPORTERS; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     importers[i]->name);
        return cli_usage_error("import", "which importer? (%s)", list);
    }
    for (size_t i = 0; i < N_IMPORTERS; i++)
        if (strcmp(argv[1], importers[i]->name) == 0)
            return import_run(importers[i], argc - 1, argv + 1);
    cli_error("unknown importer '%s'; these exist:", argv[1]);
    for (size_t i = 0; i < N_IMPORTERS; i++)
        fprintf(stderr, "  %-8s %s\n", importers[i]->name, importers[i]->summary);
    return RT_EXIT_USAGE;
}

/* The usage: the rows' synopses, their paragraphs, then what every importer shares. Built once
 * from the table before main runs, so that `rooftime help import` reads it like any command's. */
static const char usage_tail[] =
    "\n"
    "Every profile records the launcher's rank, the host and the device (\"identity\"); in -o,\n"
    "%r is the rank, %l the local rank, %s the job size, %h the host, %% a '%' (one file per "
    "rank).\n"
    "See docs/import-ncu.md, docs/import-frameworks.md and docs/import-cupti.md.";
static char usage[8192];

__attribute__((constructor)) static void usage_build(void)
{
    size_t n = 0;
    for (size_t i = 0; i < N_IMPORTERS; i++)
        n += (size_t)snprintf(usage + n, sizeof usage - n, "%s", importers[i]->synopsis);
    n += (size_t)snprintf(usage + n, sizeof usage - n, "\n");
    for (size_t i = 0; i < N_IMPORTERS; i++)
        n += (size_t)snprintf(usage + n, sizeof usage - n, "%s", importers[i]->help);
    n += (size_t)snprintf(usage + n, sizeof usage - n, "%s", usage_tail);
    if (n >= sizeof usage)
        abort(); /* a row's text outgrew the buffer: a build mistake, caught by cli-usage.sh */
}

/* `rooftime import`: name, entry point, summary and usage (main.c lists it). */
const rt_command rt_cmd_import = {
    "import", cmd_import, "turn profiler output or a result table into a rooftime profile", usage};
