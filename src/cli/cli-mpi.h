/* What the MPI build adds to the command (src/cli/mpi/, compiled with ROOFTIME_MPI); without it,
 * cli-mpi-absent.c answers --mpi with a usage error. */
#ifndef ROOFTIME_CLI_MPI_H
#define ROOFTIME_CLI_MPI_H

#include <stddef.h>

#include "cli-across.h"
#include "rooftime/probe/measure-machine.h"

/* `machine measure --mpi`: every rank alone on its node, then all at once; rank 0 writes output
 * (NULL: standard output) with the "job" member. Returns the exit code (the same on every rank). */
int cli_machine_measure_mpi(const rt_measure_opts *opts, const char *output, double fraction);
/* `analyze --across rank --mpi`: the paths split between the ranks, the folds merged up a tree,
 * rank 0 writes. Returns the exit code. */
int cli_across_mpi(char *const *paths, size_t n, const rt_across_opts *ao,
                   const cli_across_opts *o);

#endif
