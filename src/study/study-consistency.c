/* Kernels faster than their bound in the study, by the reason the data points to: launch overhead,
 * a level's bandwidth below what a kernel whose working set it holds reached, DRAM bytes that stay
 * in cache (a machine without capacities), Winograd's fewer multiplications, a compute peak
 * measured low. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study-consistency.h"
#include "study-names.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/core/verdict-trust.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

/* Kernels that ran faster than their bound, by the reason the data points to. */
void rt_study_findings_consistency(rt_findings *o, const rt_analysis *a)
{
    rt_findings_section_add(o, "Kernels faster than their bound (efficiency above 1)");
    size_t n_oh = 0, n_bw = 0, n_fit = 0, n_wino = 0, n_comp = 0, n_noise = 0;
    double noise_spread = 0;
    rt_study_strset oh = {0}, bw = {0}, fit = {0}, fit_levels = {0}, comp = {0};
    for (size_t i = 0; i < a->n_items; i++) {
        const rt_item *it = &a->items[i];
        if (!(it->v.efficiency > 1))
            continue;
        double spread;
        if (!rt_trust_beyond_spread(a->machine, &it->v, &spread) && isfinite(spread)) {
            /* above its bound by less than the bound's own measured spread: noise */
            n_noise++;
            noise_spread = fmax(noise_spread, spread);
            continue;
        }
        const char *impl = rt_tags_get(&it->kernel->tags, "impl");
        char bn[128];
        rt_study_base_name(it->kernel->name, bn, sizeof bn);
        rt_bound b = rt_verdict_binding(&it->v); /* the term that set the bound it beat */
        if (b == RT_BOUND_OVERHEAD) {
            n_oh++;
            rt_study_strset_add(&oh, bn);
        } else if (b == RT_BOUND_BANDWIDTH && it->v.placed) {
            n_fit++;
            rt_study_strset_add(&fit, bn);
            if (it->v.placed_level >= 0)
                rt_study_strset_add(&fit_levels, a->machine->levels[it->v.placed_level].name);
        } else if (b == RT_BOUND_BANDWIDTH) {
            n_bw++;
            rt_study_strset_add(&bw, bn);
        } else if (impl && strstr(impl, "wino")) {
            n_wino++;
        } else {
            n_comp++;
            rt_study_strset_add(&comp, bn);
        }
    }
    rt_findings_list(o);
    char names[512];
#define JOIN(set)                                                                                  \
    do {                                                                                           \
        names[0] = '\0';                                                                           \
        for (size_t j = 0; j < (set).n; j++)                                                       \
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", j ? ", " : "",   \
                     (set).v[j]);                                                                  \
    } while (0)
    if (n_oh) {
        JOIN(oh);
        rt_findings_item(o,
                         "%zu kernels beat their overhead bound (%s): the overhead their calls "
                         "pay on their path (the verdicts name it; from machine measure) reads "
                         "above their time per call: an overhead measured on a busy machine "
                         "reads high.",
                         n_oh, names);
    }
    if (n_bw) {
        JOIN(bw);
        rt_findings_item(
            o,
            "%zu kernels beat their DRAM bound (%s): their tensors likely stay in cache from "
            "one iteration to the next, so the compulsory DRAM bytes overcount what they move "
            "(%s).",
            n_bw, names,
            a->mode == RT_MODE_SINGLE
                ? "single mode keeps every byte at the reference level; hier mode places them "
                  "where their working set fits"
                : "the machine records no cache capacities to place them by: measure it again");
    }
    if (n_fit) {
        char levels[128] = "";
        for (size_t j = 0; j < fit_levels.n; j++)
            snprintf(levels + strlen(levels), sizeof levels - strlen(levels), "%s%s", j ? ", " : "",
                     fit_levels.v[j]);
        JOIN(fit);
        rt_findings_item(
            o,
            "%zu kernels beat their bandwidth bound at the level that holds their working set "
            "(%s; bound at %s): the level's measured bandwidth is below what they reached, or "
            "their tensors stay in a faster level than their working set alone suggests (a "
            "level's capacity is shared with what runs beside them).",
            n_fit, names, levels);
    }
    if (n_wino)
        rt_findings_item(
            o,
            "%zu oneDNN Winograd kernels beat their compute bound: their notes say which "
            "count they are credited with (the direct count where the implementation's name "
            "gives no F(m, r): Winograd does fewer multiplications).",
            n_wino);
    if (n_comp) {
        JOIN(comp);
        rt_findings_item(
            o,
            "%zu kernels beat their compute bound (%s): the machine's measured peak is below "
            "what they reached (a busy machine measures low peaks).",
            n_comp, names);
    }
#undef JOIN
    if (!n_oh && !n_bw && !n_fit && !n_wino && !n_comp && !n_noise)
        rt_findings_item(o, "None.");
    if (n_noise)
        rt_findings_item(o,
                         "Not listed, within noise: %zu kernels above their bound by less than "
                         "its measured spread (up to ±%.0f%%: the ceiling's slowest and fastest "
                         "trials in machine measure).",
                         n_noise, 100 * noise_spread);
    rt_study_strset_release(&oh);
    rt_study_strset_release(&bw);
    rt_study_strset_release(&fit);
    rt_study_strset_release(&fit_levels);
    rt_study_strset_release(&comp);
}
