/* The metrics the collector asks for in counters mode on the GPUs at hand: set "throughput" of
 * data/ncu/metrics.json for the first architecture, kept where every other architecture's list
 * names it too, so that one configuration builds on each device. Shared by `profile --gpu
 * --counters` and rooftime.gpu.profile(counters=True) (through the C API). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti-internal.h"
#include "rooftime/import/ncu-metric-list.h"
#include "rooftime/util/strings.h"

char *rt_cupti_metrics_for(const int *sms, size_t n_sms, rt_error *err)
{
    rt_ncu_metric_list l = {0};
    if (rt_ncu_metric_list_load(NULL, "throughput", n_sms ? sms[0] : 0, &l, err) != 0)
        return NULL;
    unsigned char *keep = rt_xcalloc(l.n + 1, 1);
    memset(keep, 1, l.n);
    for (size_t d = 1; d < n_sms; d++) {
        rt_ncu_metric_list o = {0};
        rt_error e2;
        if (sms[d] == sms[0] || rt_ncu_metric_list_load(NULL, "throughput", sms[d], &o, &e2))
            continue;
        for (size_t i = 0; i < l.n; i++) {
            int in = 0;
            for (size_t j = 0; j < o.n && !in; j++)
                in = strcmp(l.metric[i], o.metric[j]) == 0;
            keep[i] &= (unsigned char)in;
        }
        rt_ncu_metric_list_release(&o);
    }
    size_t n = 1;
    for (size_t i = 0; i < l.n; i++)
        n += strlen(l.metric[i]) + 1;
    char *metrics = rt_xcalloc(n, 1);
    for (size_t i = 0; i < l.n; i++)
        if (keep[i])
            snprintf(metrics + strlen(metrics), n - strlen(metrics), "%s%s", metrics[0] ? "," : "",
                     l.metric[i]);
    free(keep);
    rt_ncu_metric_list_release(&l);
    return metrics;
}
