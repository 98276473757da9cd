/* Nsight Compute CSV, the last step: the joined launches of ncu.c into the profile's kernels, and
 * where the profile came from (inputs, formulas, method, notes, the warnings counted on the way).
 * A leaf: it reads the import's state and calls nothing of ncu.c. */
#include <stdio.h>
#include <string.h>

#include "ncu-internal.h"
#include "rooftime/util/strings.h"

void rt_ncu_profile_kernels(ncu_import *im, rt_profile *prof, int time_in_one)
{
    if (im->opt->per_launch)
        return; /* one kernel per launch: added as they joined */
    rt_provenance *pv = &prof->provenance;
    for (size_t id = 0; id < im->names.n; id++) {
        ktotal *t = &im->k[id];
        if (id >= im->nk || t->n == 0)
            continue;
        rt_kernel *k = rt_profile_add_kernel(prof, im->names.key[id]);
        k->invocations = t->n;
        /* The authors' aggregation: total cycles at the mean clock rate. */
        k->time = t->rate > 0 ? t->cycles / (t->rate / t->n) : 0;
        for (size_t i = 0; i < im->nchosen; i++) {
            if (!((t->applied >> i) & 1))
                continue; /* out of scope on every launch of this kernel */
            const char *q = im->map.q[im->chosen[i]].quantity;
            rt_values_add(q[0] == 'f' ? &k->flops : &k->bytes, q + 6, t->q[i]);
        }
        /* Per name with cycles and rate in different files, a launch's own time is unknown. */
        if (!im->by_name || time_in_one) {
            rt_values_set(&pv->kernel_time_sum, k->name, t->time_sum);
            rt_kernel_add_samples(k, &t->launch_times); /* the spread of launch times */
        }
    }
}

/* The warnings counted past their limit while reading. */
static void counted_warnings(ncu_import *im)
{
    if (!im->warnings)
        return;
    if (im->missing > NCU_MAX_WARN)
        rt_warnings_add(im->warnings, "%lu launches lacked a metric in all (counted as 0)",
                        im->missing);
    if (im->nan_values > NCU_MAX_WARN)
        rt_warnings_add(im->warnings, "%lu metric values were nan in all (counted as 0)",
                        im->nan_values);
    if (im->failed)
        rt_warnings_add(im->warnings,
                        "%lu failed launch%s dropped (every metric nan and grid (0, 0, 0): "
                        "Nsight's record of a launch that did not run)%s",
                        im->failed, im->failed == 1 ? "" : "es",
                        im->by_name && im->nf > 1 ? ", counted in each file" : "");
}

void rt_ncu_profile_describe(ncu_import *im, rt_profile *prof, const char *const *paths)
{
    const rt_ncu_options *opt = im->opt;
    int by_name = im->by_name;
    rt_profile_finish_spreads(prof);
    prof->tool = rt_strdup("ncu");
    prof->time_kind = RT_TIME_DEVICE; /* the kernel alone: launch latency is outside it */
    rt_provenance *pv = &prof->provenance;
    for (size_t i = 0; i < im->nf; i++) {
        rt_provenance_add_input(pv, paths[i]);
        char key[32];
        snprintf(key, sizeof key, "layout.%zu", i + 1);
        rt_tags_set(&pv->notes, key, im->f[i].layout);
    }
    for (size_t i = 0; i < im->nchosen; i++)
        if ((im->used >> i) & 1) /* the formulas some launch used */
            rt_tags_set(&pv->formulas, im->map.q[im->chosen[i]].quantity,
                        im->map.q[im->chosen[i]].f.e.text);
    prof->method = rt_strdup(
        opt->per_launch
            ? "Nsight Compute metrics, one kernel per launch; time = cycles / rate of the launch"
        : by_name
            ? "Nsight Compute metrics summed per kernel name in each file and joined on the name "
              "(the files' launch orders differ); time = sum of cycles / (sum of rates / "
              "launches), the authors' aggregation"
            : "Nsight Compute metrics aggregated per kernel name; time = sum of cycles / (sum of "
              "rates / launches), the authors' aggregation (the sum of per-launch cycles / rate "
              "is in provenance.kernel_time_sum)");
    rt_tags_set(&pv->notes, "mapping", im->map.label);
    rt_tags_set(&pv->notes, "time",
                opt->per_launch ? "cycles / rate per launch" : "sum of cycles / mean rate");
    rt_tags_set(&pv->notes, "join",
                by_name ? "per kernel name (the files' launch orders differ)"
                        : "per launch (process and launch ID)");
    pv->launches = (double)im->launches;
    if (opt->tensor_factor > 0) {
        char tf[32];
        snprintf(tf, sizeof tf, "%.17g", opt->tensor_factor);
        rt_tags_set(&pv->notes, "tensor_factor", tf);
    }
    counted_warnings(im);
}
