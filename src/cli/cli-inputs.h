/* The inputs the commands share: comma lists, tags, the machine and the profiles, the analysis
 * options (--reference, --tau, --mode), warnings. */
#ifndef ROOFTIME_CLI_INPUTS_H
#define ROOFTIME_CLI_INPUTS_H

#include <stdbool.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

/* Tag p's communication kernels (class=communication, core/comm.h) by the patterns of
 * data/comm/kernels.json, read once; -1 after printing the error when they cannot be read. */
int cli_comm_tag(rt_profile *p);
/* Load every profile (communication kernels tagged) or print the first error and return -1. */
int cli_load_profiles(char **paths, size_t n, rt_profile ***out);
void cli_free_profiles(rt_profile **ps, size_t n);
/* Whether a command frees its profiles and analyses before it returns to exit: a million
 * kernels' take tenths of a second to free, which the exit does at once. Builds with
 * AddressSanitizer (whose leak check runs at exit) free them, and so does any build with
 * ROOFTIME_FREE_AT_EXIT=1 in the environment (for valgrind's leak check). */
bool cli_frees_at_exit(void);
/* Resolve the machine (preset or file) and load the profiles, or print the error and return -1. */
int cli_load_inputs(const char *machine, char **paths, size_t n, rt_machine **m, rt_profile ***ps);
/* 0 when no two of the profiles name one file (by any path: ./, a link); else a usage error of
 * cmd (exit 2): its kernels would count twice in the totals. */
int cli_inputs_distinct(const char *cmd, char *const *paths, size_t n);
/* "key=value" into tags; -1 when malformed. */
int cli_parse_tag(const char *arg, rt_tags *tags);
/* A --tag option of command cmd: 0, or the exit code of the usage error it printed (2). */
int cli_tag_option(const char *cmd, const char *arg, rt_tags *tags);
/* s as a whole number in [lo, hi]; -1 when it is not one (the caller words the usage error). */
int cli_parse_long(const char *s, long lo, long hi, long *out);
/*
 * The options analyze, plot and report share: --machine (m), --mode (M), --group-by (g) and
 * --ignore (i). cli_analysis_option takes one parsed option and returns 1 when it was one of them.
 * cli_analysis_finish checks them (usage errors name `cmd`; returns 2 on error, else 0) and fills
 * *mode (default_mode when --mode was not given) and *g (pointing into o).
 */
/* Option codes of --reference and --tau, and their entries for a command's option table. */
#define CLI_OPT_REFERENCE 0x1001
#define CLI_OPT_TAU 0x1002
#define CLI_ANALYSIS_LONG_OPTS                                                                     \
    {"reference", required_argument, NULL, CLI_OPT_REFERENCE},                                     \
    {                                                                                              \
        "tau", required_argument, NULL, CLI_OPT_TAU                                                \
    }
/* Their usage lines. */
#define CLI_ANALYSIS_USAGE                                                                         \
    "      --reference U[/L] reference unit and level (default: the highest-peak unit the\n"       \
    "                       kernels use; the machine's level where they record bytes)\n"           \
    "      --tau NAME|TIME  launch overhead: one of the machine's overheads by name, or a time\n"  \
    "                       (4.2us, 3e-6); default: the one each profile names, else the\n"        \
    "                       machine's\n"
typedef struct cli_analysis_opts {
    const char *machine;
    const char *mode;
    const char *reference, *tau;
    char **group, **ignore;
    size_t n_group, n_ignore;
} cli_analysis_opts;
int cli_analysis_option(cli_analysis_opts *o, int c, const char *arg);
int cli_analysis_finish(const cli_analysis_opts *o, const char *cmd, const char *default_mode,
                        rt_mode *mode, rt_group_opts *g);
void cli_analysis_release(cli_analysis_opts *o);
/* After loading: the reference (--reference, else chosen from the profiles) and the tau (--tau)
 * on m and the profiles. 0, or the exit code of the usage error it printed (2). */
int cli_analysis_apply(const cli_analysis_opts *o, const char *cmd, rt_machine *m, rt_profile **ps,
                       size_t n);

/* Print at most max warnings to stderr, then a count of the rest. The first max warnings; the count
 * of the rest and, when all is not NULL, the command or file that lists them all. */
void cli_print_warnings(const rt_warnings *w, size_t max, const char *all);

#endif
