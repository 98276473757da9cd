/* Running sums over a profile's kernels: values whose sums overflow (or come within a square of
 * it) are refused where a profile is read or written, naming the kernel and the field, instead
 * of printing `inf s` totals, `-nan%` shares and 309-digit launch counts later. */
#include <stdio.h>

#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

/* *sum += v; -1 when the sum passes max (why says how). */
static int add(double *sum, double v, double max, const char *unit, rt_error *why)
{
    double t = *sum + v;
    if (v > max) {
        rt_error_set(why, "%g%s is over the limit of %g%s", v, unit, max, unit);
        return -1;
    }
    if (!(t <= max)) {
        rt_error_set(
            why, "%g%s takes the sum over the profile's kernels to %g%s, over the limit of %g%s", v,
            unit, t, unit, max, unit);
        return -1;
    }
    *sum = t;
    return 0;
}

int rt_profile_sums_add(rt_profile_sums *s, const rt_kernel *k, char *field, size_t field_size,
                        rt_error *why)
{
    if (add(&s->time, k->time, RT_MAX_SUM, " s", why) != 0) {
        snprintf(field, field_size, "time");
        return -1;
    }
    if (add(&s->invocations, k->invocations, RT_MAX_INVOCATIONS, "", why) != 0) {
        snprintf(field, field_size, "invocations");
        return -1;
    }
    for (size_t j = 0; j < k->flops.n; j++)
        if (add(&s->flops, k->flops.v[j].value, RT_MAX_SUM, " FLOPs", why) != 0) {
            snprintf(field, field_size, "flops.%s", k->flops.v[j].key);
            return -1;
        }
    for (size_t j = 0; j < k->bytes.n; j++)
        if (add(&s->bytes, k->bytes.v[j].value, RT_MAX_SUM, " bytes", why) != 0) {
            snprintf(field, field_size, "bytes.%s", k->bytes.v[j].key);
            return -1;
        }
    return 0;
}
