/* The subcommands of `rooftime`: one cmd-<name>.c each, listed once in main.c's table. */
#ifndef ROOFTIME_CLI_COMMANDS_H
#define ROOFTIME_CLI_COMMANDS_H

#include <stdio.h>

/* Exit codes of every command. */
enum { RT_EXIT_OK = 0, RT_EXIT_FAIL = 1, RT_EXIT_USAGE = 2 };

typedef struct rt_command {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
    const char *summary;
    const char *usage;    /* printed by `rooftime help NAME`; its synopsis (up to the first blank
                           * line) on usage errors */
    const char *examples; /* command lines that run as written (files named as placeholders),
                           * each with where its output goes; printed after the usage */
} rt_command;

extern const rt_command *const rt_commands[];
extern const size_t rt_n_commands;

/* Each defined in its own file (rt_cmd_help in main.c). */
extern const rt_command rt_cmd_help;
extern const rt_command rt_cmd_machine;
extern const rt_command rt_cmd_analyze;
extern const rt_command rt_cmd_import;
extern const rt_command rt_cmd_profile;
extern const rt_command rt_cmd_diff;
extern const rt_command rt_cmd_ncu_metrics;
extern const rt_command rt_cmd_plot;
extern const rt_command rt_cmd_report;
extern const rt_command rt_cmd_completion;
extern const rt_command rt_cmd_study;

int cmd_help(int argc, char **argv);
int cmd_machine(int argc, char **argv);
int cmd_machine_measure(int argc, char **argv); /* machine/cmd-machine-measure.c */
/* machine/cmd-machine-measure-gpu.c: `machine measure --gpu`; tau NULL: the paper's */
int cmd_machine_measure_gpu(int device, int quick, const char *tau, const char *skip_family,
                            const char *output);
/* machine/cmd-machine-selfcheck.c: `machine measure --gpu --self-check`, and the hidden subcommands
 * `machine selfcheck-kernels` and `machine selfcheck-compare` */
int cmd_machine_selfcheck_gpu(int device, const char *output, const char *keep_dir);
int cmd_machine_selfcheck_kernels(int argc, char **argv);
int cmd_machine_selfcheck_compare(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_completion(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_ncu_metrics(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_study(int argc, char **argv); /* cmd-study.c */
int cmd_profile(int argc, char **argv);
int cmd_diff(int argc, char **argv); /* cmd-diff.c */

/* Messages in the house form: "rooftime: error: ..." on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error for command `name`: prints the message and the command's usage; returns 2. */
int cli_usage_error(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The usage error for getopt_long's answer c ('?' or ':'; the option string starts with ':' and
 * opterr is 0): the option as written that is unknown, lacks its value or takes none, for command
 * `name` (`sub`, when not NULL, names the form of it: "machine measure"); returns 2. */
struct option;
int cli_option_error(const char *name, const char *sub, int c, char *const *argv,
                     const struct option *longopts);
/* Print the usage of command `name` to fp. */
void cli_print_usage(const char *name, FILE *fp);
/* True when argv[i] is -h or --help. */
int cli_wants_help(int argc, char **argv);

#endif
