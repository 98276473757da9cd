/* `rooftime import KIND`: one row per importer (name, usage, options, reader), and the one path
 * that runs a row's steps: -o and --tag, the placeholders of -o, the inputs, the checks that -o
 * overwrites none of them, the reader, its warnings, the save and the summary (cmd-import.c).
 * To add an importer: a cmd-import-NAME.c defining its row, its line below, and a line in the
 * table of cmd-import.c (docs/architecture.md, "Add an importer"). */
#ifndef ROOFTIME_CLI_IMPORT_H
#define ROOFTIME_CLI_IMPORT_H

#include <getopt.h>
#include <stddef.h>

#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

/* What the shared path hands a row's functions: the inputs after the options, and -o expanded. */
typedef struct cli_import_args {
    char **inputs;
    size_t n_inputs;
    const char *output;
} cli_import_args;

typedef struct cli_importer {
    const char *name;     /* `import NAME` */
    const char *summary;  /* its line in the list shown for an unknown importer */
    const char *synopsis; /* its lines of the usage's synopsis */
    const char *help;     /* its paragraph of the usage */
    /* Its options beside -o/--output and -t/--tag: getopt's letters ("m:") and long options
     * ({0}-terminated). */
    const char *short_opts;
    const struct option *options;
    size_t state_size;    /* its options' state, zeroed before parsing */
    size_t max_inputs;    /* 1, or 0 for any number */
    const char *no_input; /* usage error without an input ("no ncu output file given") */
    const char *too_many; /* usage error with more than max_inputs */
    /* One option (c: its letter); 0, the exit code after a usage error, or -1 for a letter that
     * is not its own. */
    int (*option)(void *state, int c, char *arg);
    /* A file an option names that -o must not overwrite (--metrics ...), or NULL. */
    const char *(*option_input)(const void *state);
    /* Checks of its own after the shared ones (NULL: none); 0 or the exit code. */
    int (*check)(void *state, const cli_import_args *a);
    /* Read the inputs: 0, or -1 with err set (an empty message: already reported). */
    int (*read)(void *state, const cli_import_args *a, rt_profile **p, rt_warnings *w,
                rt_error *err);
    /* What was written, once saved (standard output; notes on standard error). */
    void (*report)(const void *state, const cli_import_args *a, const rt_profile *p);
    /* Free what the options and the reader kept (NULL: nothing). */
    void (*release)(void *state);
} cli_importer;

/* The rows, each defined in its own cmd-import-NAME.c. */
extern const cli_importer cli_importer_ncu;    /* cmd-import-ncu.c */
extern const cli_importer cli_importer_table;  /* cmd-import-table.c */
extern const cli_importer cli_importer_onednn; /* cmd-import-frameworks.c */
extern const cli_importer cli_importer_torch;  /* cmd-import-frameworks.c */
extern const cli_importer cli_importer_cupti;  /* cmd-import-cupti.c */

#endif
