/* Analyses of the same profiles in several modes: the first whole, the others sharing its
 * grouping (configs, families and orders depend on the tags and times alone). */
#include <stdlib.h>

#include "rooftime/core/analysis.h"
#include "rooftime/util/strings.h"

int rt_analysis_new_modes(const rt_machine *m, const rt_mode *modes, size_t n_modes,
                          rt_profile *const *profiles, size_t n_profiles, const rt_group_opts *opts,
                          rt_analysis **out, rt_error *err)
{
    for (size_t i = 0; i < n_modes; i++)
        out[i] = NULL;
    if (!n_modes)
        return 0;
    /* The first whole (its steps on threads of their own), the others with its grouping. */
    out[0] = rt_analysis_new(m, modes[0], profiles, n_profiles, opts, err);
    for (size_t i = 1; out[0] && i < n_modes; i++)
        if (!(out[i] = rt_analysis_new_like(out[0], modes[i], profiles, n_profiles, err))) {
            for (size_t j = 0; j < n_modes; j++) {
                rt_analysis_free(out[j]);
                out[j] = NULL;
            }
            return -1;
        }
    return out[0] ? 0 : -1;
}
