/* The --mpi options of a build without MPI (ROOFTIME_MPI off, or Open MPI not found): a usage
 * error that says how to get them. The MPI build compiles src/cli/mpi/ instead. */
#include "rooftime-config.h"

#if !RT_HAVE_MPI
#include "cli-mpi.h"
#include "commands.h"

#define NO_MPI "--mpi needs a build with MPI (Debian libopenmpi-dev, cmake -DROOFTIME_MPI=ON)"

int cli_across_mpi(char *const *paths, size_t n, const rt_across_opts *ao, const cli_across_opts *o)
{
    (void)paths, (void)n, (void)ao, (void)o;
    return cli_usage_error("analyze", NO_MPI);
}

int cli_machine_measure_mpi(const rt_measure_opts *opts, const char *output, double fraction)
{
    (void)opts, (void)output, (void)fraction;
    return cli_usage_error("machine", NO_MPI);
}
#else
typedef int rt_cli_mpi_present; /* ISO C: a translation unit is never empty */
#endif
