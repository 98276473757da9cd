/* The importers' table (importers.c): one row per `rooftime import KIND`, with its name, summary,
 * usage, options and reader. The command builds its getopt options, usage, help and completion
 * from it (src/cli/import/cmd-import.c), the API its option parser and the option list Python's
 * keywords come from (src/api/api-import.c). To add an importer: its reader and its row in its
 * room of src/import, and the row's line in importers.c (docs/architecture.md, "Add an
 * importer"). */
#ifndef ROOFTIME_IMPORT_IMPORTERS_H
#define ROOFTIME_IMPORT_IMPORTERS_H

#include <stddef.h>
#include <stdio.h>

#include "rooftime/core/profile.h"
#include "rooftime/import/conv-flops.h"
#include "rooftime/util/error.h"

/* What an option takes. */
typedef enum rt_import_arg {
    RT_IMPORT_FLAG,  /* no value */
    RT_IMPORT_VALUE, /* one value (the last given wins) */
    RT_IMPORT_FILE,  /* one value naming a file the importer reads: -o must not overwrite it */
    RT_IMPORT_LIST,  /* a value, repeatable */
} rt_import_arg;

typedef struct rt_import_option {
    const char *name; /* its long name (--name), the API's and Python's keyword */
    char letter;      /* its short option ('m': -m), or 0 */
    rt_import_arg arg;
    const char *label; /* the usage's words after --name ("FILE"); NULL: none */
    /* Its help in the usage, lines after the first indented under the first; NULL: its row's
     * paragraph or synopsis describes it. */
    const char *help;
    const char *def; /* its default, as the help words it; NULL: none (or unset) */
} rt_import_option;

/* What a row's functions get beside their options. */
typedef struct rt_import_run {
    const char *const *inputs; /* the paths given, n_inputs of them (checked against max_inputs) */
    size_t n_inputs;
    const char *output; /* the profile to be written (the command's -o), or NULL */
    FILE *notes;        /* notes on what was done (the command: standard error), or NULL */
    /* Where librooftime-cupti.so is (a heap path), or NULL with err set: the caller finds it, as
     * it is found beside the program or beside the library. */
    char *(*cupti_lib)(rt_error *err);
} rt_import_run;

typedef struct rt_importer {
    const char *name;     /* `import NAME` */
    const char *summary;  /* its line in the list shown for an unknown importer */
    const char *synopsis; /* its lines of the usage's synopsis */
    const char *help;     /* its paragraph of the usage, before its options */
    /* Its usage lists -o and --tag around its options, then a blank line (the importers whose
     * synopses leave them out do not). */
    int usage_lists_shared;
    const rt_import_option *options; /* beside -o/--output and -t/--tag, which every row takes */
    size_t n_options;
    size_t state_size;    /* its options' state, zeroed before the first apply */
    size_t max_inputs;    /* 1, or 0 for any number */
    const char *no_input; /* the command's usage error without an input */
    const char *too_many; /* ... and with more than max_inputs */
    /* One option given (o: a row of options; value NULL for a flag): 0, or -1 with err set to
     * the message without the command's prefix ("--tensor-factor takes a number > 0, not 'x'"). */
    int (*apply)(void *state, const rt_import_option *o, const char *value, rt_error *err);
    /* Checks before reading (NULL: none): 0, or -1 with err set (a usage error). */
    int (*check)(void *state, const rt_import_run *r, rt_error *err);
    /* Read the inputs into *p: 0, or -1 with err set. */
    int (*read)(void *state, const rt_import_run *r, rt_profile **p, rt_warnings *w, rt_error *err);
    /* What was written, once saved to r->output: to out, notes to r->notes. */
    void (*report)(const void *state, const rt_import_run *r, const rt_profile *p, FILE *out);
    /* Free what the options and the reader kept (NULL: nothing). */
    void (*release)(void *state);
} rt_importer;

/* The rows, in the order the usage shows them. */
extern const rt_importer *const rt_importers[];
extern const size_t rt_n_importers;

/* The row named name, or NULL. */
const rt_importer *rt_importer_find(const char *name);
/* The option of im named name, or NULL. */
const rt_import_option *rt_import_option_find(const rt_importer *im, const char *name);

/* Values the options of several rows take; 0, or -1 with err set as the rows word it. */
int rt_import_parse_threads(const char *v, int *threads, rt_error *err);     /* --threads */
int rt_import_parse_conv(const char *v, rt_conv_flops *conv, rt_error *err); /* --conv-flops */

/* "OUTPUT: N kernels, N invocations, T s": what onednn and torch report. */
void rt_import_report_invocations(FILE *out, const char *output, const rt_profile *p);

/* --threads's help, in the rows that take it (onednn, torch). */
#define RT_IMPORT_THREADS_HELP                                                                     \
    "the threads that ran the kernels (OMP_NUM_THREADS,\n"                                         \
    "torch.get_num_threads()): hier mode places their estimated bytes\n"                           \
    "at the level that holds each working set on that many threads\n"                              \
    "(default: unknown, every instance of each cache)"

#endif
