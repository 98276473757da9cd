/* `analyze --across rank`: shared by the plain fold (cmd-analyze-across.c) and the MPI one
 * (cmd-analyze-across-mpi.c, built with ROOFTIME_MPI). */
#ifndef ROOFTIME_CLI_ACROSS_H
#define ROOFTIME_CLI_ACROSS_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/core/across.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"

typedef struct cli_across_opts {
    const char *machine, *output, *chart;
    bool json;
    size_t top;
} cli_across_opts;

/* The whole command: analyze's entry point hands argv over when --across is given. */
int cli_analyze_across(int argc, char **argv);
/* Fold paths[first], paths[first + step] ... into a, one profile in memory at a time; -1 after
 * printing the error. */
int cli_across_fold(char *const *paths, size_t n, size_t first, size_t step, rt_across *a);
/* Write the finished analysis (-o or standard output, and --chart); returns the exit code. */
int cli_across_write(const rt_across *a, const cli_across_opts *o, char *const *inputs,
                     size_t n_inputs);
/* The report's stragglers section for profiles already loaded (ranks as rt_across_rank_of
 * gives them); a heap string, or NULL after printing the error. */
char *cli_across_section(rt_profile *const *ps, char *const *paths, size_t n, const rt_machine *m);

#endif
