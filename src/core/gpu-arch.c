/* GPU architectures' peak rates: lookups and the theoretical figure they give. */
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
