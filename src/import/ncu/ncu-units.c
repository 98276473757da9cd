/* Nsight Compute's auto-scaled units (Kbyte, cycle/usecond, Mhz ...) and their factors to base
 * units. */
#include <string.h>

#include "rooftime/import/ncu-units.h"

/*
 * Nsight Compute scales values for display and writes the scaled unit in the
 * CSV: bytes in powers of 1000 (Kbyte, Mbyte ...; KB/MB/GB in some versions,
 * KiB/MiB in others), rates as cycle per nsecond/usecond/msecond/second or in
 * hz, times in nsecond ... second. Counts (inst, cycle, sector ...) are plain.
 */
static const struct {
    const char *unit;
    double scale;
} ncu_units[] = {
    /* counts */
    {"", 1},
    {"inst", 1},
    {"cycle", 1},
    {"sector", 1},
    {"request", 1},
    {"warp", 1},
    {"thread", 1},
    {"block", 1},
    {"wavefront", 1},
    {"transaction", 1},
    {"instruction", 1},
    {"%", 1},
    {"register/thread", 1},
    {"sector/request", 1},
    {"inst/cycle", 1},
    {"ratio", 1},
    {"Kinst", 1e3},
    {"Minst", 1e6},
    {"Ginst", 1e9},
    {"Tinst", 1e12},
    {"Kcycle", 1e3},
    {"Mcycle", 1e6},
    {"Gcycle", 1e9},
    {"Ksector", 1e3},
    {"Msector", 1e6},
    {"Gsector", 1e9},
    /* bytes */
    {"byte", 1},
    {"Kbyte", 1e3},
    {"Mbyte", 1e6},
    {"Gbyte", 1e9},
    {"Tbyte", 1e12},
    {"B", 1},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"KiB", 1024.0},
    {"MiB", 1048576.0},
    {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0},
    {"Kibyte", 1024.0},
    {"Mibyte", 1048576.0},
    {"Gibyte", 1073741824.0},
    /* rates of cycles */
    {"cycle/nsecond", 1e9},
    {"cycle/usecond", 1e6},
    {"cycle/msecond", 1e3},
    {"cycle/second", 1},
    {"cycle/ns", 1e9},
    {"cycle/us", 1e6},
    {"cycle/ms", 1e3},
    {"cycle/s", 1},
    {"hz", 1},
    {"Khz", 1e3},
    {"Mhz", 1e6},
    {"Ghz", 1e9},
    {"Hz", 1},
    {"KHz", 1e3},
    {"kHz", 1e3},
    {"MHz", 1e6},
    {"GHz", 1e9},
    /* times */
    {"nsecond", 1e-9},
    {"usecond", 1e-6},
    {"msecond", 1e-3},
    {"second", 1},
    {"ns", 1e-9},
    {"us", 1e-6},
    {"ms", 1e-3},
    {"s", 1},
    /* byte rates */
    {"byte/second", 1},
    {"Kbyte/second", 1e3},
    {"Mbyte/second", 1e6},
    {"Gbyte/second", 1e9},
    {"Tbyte/second", 1e12},
};

double rt_ncu_unit_scale(const char *unit)
{
    for (size_t i = 0; i < sizeof ncu_units / sizeof ncu_units[0]; i++)
        if (strcmp(ncu_units[i].unit, unit) == 0)
            return ncu_units[i].scale;
    return 0;
}
