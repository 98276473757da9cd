/* The sanity rules of a machine: level ordering, fraction of theoretical peak, disturbed runs,
 * spread between attempts. */
#include <math.h>
#include <stddef.h>

#include "rooftime/core/machine-sanity.h"
#include "rooftime/core/machine.h"
#include "rooftime/util/error.h"

static size_t spread_rule(rt_warnings *w, const char *kind, const char *name, double value,
                          double min, double max, double scale, const char *unit)
{
    if (!(value > 0) || !(max > min) || (max - min) / value <= RT_SANITY_MAX_SPREAD)
        return 0;
    rt_warnings_add(w,
                    "%s %s: its attempts spread from %.4g to %.4g %s around %.4g (%.0f%%): the "
                    "figure is noise-bound",
                    kind, name, min / scale, max / scale, unit, value / scale,
                    100 * (max - min) / value);
    return 1;
}

size_t rt_machine_sanity(const rt_machine *m, rt_warnings *w)
{
    size_t n = 0;
    /* Levels are listed nearest first: each at most as fast as the one before it. */
    for (size_t l = 1; l < m->n_levels; l++) {
        const rt_level *up = &m->levels[l - 1], *down = &m->levels[l];
        if (down->bytes_per_s > RT_SANITY_LEVEL_SLACK * up->bytes_per_s) {
            rt_warnings_add(w,
                            "level %s (%.4g GB/s) is slower than %s (%.4g GB/s), the level below "
                            "it: one of the two was mismeasured, and bandwidth verdicts at them "
                            "are suspect",
                            up->name, up->bytes_per_s / 1e9, down->name, down->bytes_per_s / 1e9);
            n++;
        }
    }
    for (size_t u = 0; u < m->n_units; u++) {
        const rt_unit *x = &m->units[u];
        if (x->theoretical > 0 && x->flops < RT_SANITY_MIN_THEORETICAL * x->theoretical) {
            rt_warnings_add(w,
                            "unit %s: %.4g GFLOP/s is %.0f%% of its theoretical %.4g GFLOP/s: "
                            "the measurement ran slow (clock, contention), so compute-bound "
                            "efficiencies against it read high",
                            x->name, x->flops / 1e9, 100 * x->flops / x->theoretical,
                            x->theoretical / 1e9);
            n++;
        }
        n += spread_rule(w, "unit", x->name, x->flops, x->min, x->max, 1e9, "GFLOP/s");
    }
    for (size_t l = 0; l < m->n_levels; l++) {
        const rt_level *x = &m->levels[l];
        n += spread_rule(w, "level", x->name, x->bytes_per_s, x->min, x->max, 1e9, "GB/s");
    }
    if (m->timed_runs > 0 &&
        (double)m->disturbed_runs > RT_SANITY_MAX_DISTURBED * (double)m->timed_runs) {
        rt_warnings_add(w,
                        "%ld of %ld timed runs of the measurement were disturbed by other "
                        "processes: every ceiling may be low",
                        m->disturbed_runs, m->timed_runs);
        n++;
    }
    return n;
}
