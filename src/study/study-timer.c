/* Per-invocation timing of the study's kernels: a monotonic clock around each call, into a profile.
 */
#include <math.h>

#include "rooftime/core/profile.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/util/clock.h"

void rt_timer_init(rt_study_timer *t, rt_profile *p, const rt_tags *tags)
{
    t->profile = p;
    t->tags = tags;
    t->recording = false;
    t->t0 = 0;
    t->total = 0;
}

/* The bookkeeping happens after the clock stops, so it is never inside a kernel's time. */
void rt_timer_stop(rt_study_timer *t, const rt_kernel_cost *cost)
{
    double dt = rt_now() - t->t0;
    t->total += dt;
    if (!t->recording || !t->profile)
        return;
    rt_tags tags = {0};
    if (t->tags)
        rt_tags_copy(&tags, t->tags);
    if (cost->impl)
        rt_tags_set(&tags, "impl", cost->impl);
    rt_kernel *k = rt_profile_find_or_add(t->profile, cost->name, &tags);
    rt_tags_release(&tags);
    if (cost->overhead && !k->overhead)
        rt_kernel_set_overhead(k, cost->overhead, cost->overhead_threads);
    if (cost->working_set > 0)
        k->working_set = cost->working_set;
    k->invocations += 1;
    k->time += dt;
    rt_kernel_add_sample(k, dt); /* its spread: rt_profile_finish_spreads at the end of the run */
    rt_values_add(&k->flops, cost->unit ? cost->unit : "fp32", cost->flops);
    rt_values_add(&k->bytes, "DRAM", cost->dram_bytes);
    if (cost->l1_bytes >= 0)
        rt_values_add(&k->bytes, "L1", cost->l1_bytes);
}
