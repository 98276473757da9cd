/* The metric list of the mapping, for `rooftime ncu-metrics`, the collector and the GPU study:
 * which metrics to collect, the tensor formulas and the constants of an architecture. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/formats/gpu-arch-json.h"
#include "rooftime/import/ncu-metric-list.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* The mapping metrics_file (NULL: the shipped one) with its default recipe. */
static int load(const char *metrics_file, rt_ncu_map *m, rt_error *err)
{
    char *path =
        metrics_file ? rt_strdup(metrics_file) : rt_asprintf("%s/ncu/metrics.json", rt_datadir());
    int rc = rt_ncu_map_load(path, m, err);
    free(path);
    return rc;
}

int rt_ncu_metric_list_load(const char *metrics_file, const char *set, int sm,
                            rt_ncu_metric_list *out, rt_error *err)
{
    memset(out, 0, sizeof *out);
    rt_ncu_map m;
    if (load(metrics_file, &m, err) != 0)
        return -1;
    /* Time first, then the quantities of the set, each metric once. */
    uint64_t want = m.cycles.metrics | m.rate.metrics;
    int found = 0;
    for (size_t i = 0; i < m.n_q; i++)
        if ((!set || strcmp(m.q[i].set, set) == 0) &&
            (sm <= 0 || rt_ncu_quantity_applies(&m, &m.q[i], sm, 0))) {
            want |= m.q[i].f.metrics;
            found = 1;
        }
    if (!found) {
        rt_error_set(err, "%s: no quantities of set '%s'", m.path, set);
        rt_ncu_map_release(&m);
        return -1;
    }
    out->metric = rt_xcalloc(m.n_metric + 1, sizeof *out->metric);
    for (size_t s = 0; s < m.n_metric; s++)
        if ((want >> s) & 1)
            out->metric[out->n++] = rt_strdup(m.metric[s]);
    rt_ncu_map_release(&m);
    return 0;
}

int rt_ncu_tensor_formulas(const char *metrics_file, const char *set, int sm, char *buf, size_t n,
                           rt_error *err)
{
    rt_ncu_map m;
    if (load(metrics_file, &m, err) != 0)
        return -1;
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < m.n_q; i++) {
        const rt_ncu_quantity *q = &m.q[i];
        if (strncmp(q->quantity, "flops.tensor", 12) != 0 || (set && strcmp(q->set, set) != 0) ||
            !rt_ncu_quantity_applies(&m, q, sm, 0))
            continue;
        int w = snprintf(buf + used, n - used, "%s = %s\n", q->quantity, q->f.e.text);
        if (w < 0 || (size_t)w >= n - used)
            break;
        used += (size_t)w;
    }
    rt_ncu_map_release(&m);
    return 0;
}

int rt_ncu_constant(const char *metrics_file, const char *arch, const char *name, double *value,
                    rt_error *err)
{
    rt_ncu_map m;
    if (load(metrics_file, &m, err) != 0)
        return -1;
    int sm = arch ? rt_ncu_parse_arch(arch) : m.default_sm, rc = -1;
    if (sm < 0) {
        rt_error_set(err, "'%s' is not an architecture like sm_70", arch);
    } else {
        const double *c = rt_ncu_map_constants(&m, sm);
        for (size_t i = 0; c && i < m.n_const; i++)
            if (strcmp(m.const_name[i], name) == 0 && !isnan(c[i])) {
                *value = c[i];
                rc = 0;
            }
        if (rc != 0)
            rt_error_set(err, "%s: no constant '%s' for sm_%d", m.path, name, sm);
    }
    rt_ncu_map_release(&m);
    return rc;
}

void rt_ncu_metric_list_release(rt_ncu_metric_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->metric[i]);
    free(l->metric);
    memset(l, 0, sizeof *l);
}

void rt_ncu_arch_names(char *buf, size_t n, const char *sep)
{
    rt_gpu_archs archs;
    rt_error err;
    buf[0] = '\0';
    if (rt_gpu_archs_load(NULL, &archs, &err) != 0) {
        snprintf(buf, n, "sm_70%ssm_80%ssm_90 ...", sep, sep); /* the table unread: examples */
        return;
    }
    size_t used = 0;
    for (size_t i = 0; i < archs.n && used < n; i++) {
        int w = snprintf(buf + used, n - used, "%ssm_%d", i ? sep : "", archs.arch[i].sm);
        used += w > 0 ? (size_t)w : 0;
    }
    rt_gpu_archs_release(&archs);
}

void rt_ncu_arch_message(char *buf, size_t n, const char *arg)
{
    char names[256];
    rt_ncu_arch_names(names, sizeof names, ", ");
    snprintf(buf, n,
             "--arch takes sm_XX or X.Y, not '%s' (the generations of "
             "data/gpu/architectures.json: %s)",
             arg, names);
}
