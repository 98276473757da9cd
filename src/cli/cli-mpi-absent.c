/* The --mpi options of a build without MPI (ROOFTIME_MPI off): a usage error that says how to get
 * them. The MPI build compiles src/cli/mpi/ instead. */
#include "rooftime-config.h"

#if !RT_HAVE_MPI
#include "cli-across.h"
#include "commands.h"

int cli_across_mpi(char *const *paths, size_t n, const rt_across_opts *ao, const cli_across_opts *o)
{
    (void)paths, (void)n, (void)ao, (void)o;
    return cli_usage_error("analyze", "--mpi needs a build with MPI (cmake -DROOFTIME_MPI=ON, "
                                      "Debian libopenmpi-dev)");
}
#endif
