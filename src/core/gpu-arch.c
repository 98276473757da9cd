/* GPU generations: lookups, the instruction that reaches a ceiling, the quantity the counters
 * report a unit's work under, and the theoretical figure the rates give. */
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/gpu-arch.h"

void rt_gpu_archs_release(rt_gpu_archs *a)
{
    free(a->arch);
    free(a->part);
    memset(a, 0, sizeof *a);
}

const rt_gpu_arch *rt_gpu_arch_find(const rt_gpu_archs *a, int sm)
{
    for (size_t i = 0; i < a->n; i++)
        if (a->arch[i].sm == sm)
            return &a->arch[i];
    return NULL;
}

const rt_gpu_arch *rt_gpu_arch_generation(const rt_gpu_archs *a, int sm)
{
    const rt_gpu_arch *best = NULL;
    for (size_t i = 0; a && i < a->n; i++)
        if (a->arch[i].sm <= sm && (!best || a->arch[i].sm > best->sm))
            best = &a->arch[i];
    return best;
}

static const char *pair_of(const rt_gpu_pair *p, size_t n, const char *unit)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(p[i].unit, unit) == 0)
            return p[i].name;
    return NULL;
}

const char *rt_gpu_arch_timed_by(const rt_gpu_arch *arch, const char *unit)
{
    const char *by = pair_of(arch->timed_by, arch->n_timed_by, unit);
    if (by)
        return by;
    if (strncmp(unit, "tensor_", 7) == 0)
        return arch->tensor_instruction;
    return strncmp(unit, "mma_", 4) == 0 ? "mma.sync" : "fma";
}

const char *rt_gpu_arch_counted_as(const rt_gpu_arch *arch, const char *unit)
{
    const char *as = pair_of(arch->counted_as, arch->n_counted_as, unit);
    return as ? as : unit;
}

double rt_gpu_arch_rate(const rt_gpu_arch *arch, const char *unit)
{
    if (!arch)
        return 0;
    for (size_t i = 0; i < arch->n_units; i++)
        if (strcmp(arch->units[i].name, unit) == 0)
            return arch->units[i].flops_per_sm_clock;
    return 0;
}

double rt_gpu_theoretical(const rt_gpu_arch *arch, const char *unit, int sms, double clock_hz,
                          double tensor_clock_hz)
{
    double clock = strncmp(unit, "tensor", 6) == 0 ? tensor_clock_hz : clock_hz;
    return sms * clock * rt_gpu_arch_rate(arch, unit);
}

double rt_gpu_generation_peak(const rt_gpu_archs *a, int sm, const char *unit)
{
    const rt_gpu_arch *g = rt_gpu_arch_generation(a, sm);
    for (size_t i = 0; g && g->reference_part[0] && i < a->n_parts; i++) {
        const rt_gpu_part *p = &a->part[i];
        if (strcmp(p->name, g->reference_part) == 0)
            return rt_gpu_theoretical(g, unit, p->sms, p->clock_hz, p->tensor_clock_hz);
    }
    return 0;
}
