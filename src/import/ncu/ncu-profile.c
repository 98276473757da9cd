/* Nsight Compute CSV, the last step: the joined launches of ncu.c into the profile's kernels, and
 * where the profile came from (inputs, formulas, method, notes, the warnings counted on the way).
 * A leaf: it reads the import's state and calls nothing of ncu.c. */
#include <stdio.h>
#include <string.h>

#include "ncu-internal.h"
#include "rooftime/util/strings.h"

/* A kernel's quantities that read a metric n/a on some of its launches: left out, said once. */
static void warn_unknown(ncu_import *im, const ktotal *t, const char *name)
{
    char sbuf[160], qs[512] = "";
    for (size_t i = 0; i < im->nchosen; i++)
        if ((t->unknown >> i) & 1) {
            size_t l = strlen(qs);
            snprintf(qs + l, sizeof qs - l, "%s%s", l ? ", " : "",
                     im->map.q[im->chosen[i]].quantity);
        }
    char msg[1024];
    snprintf(msg, sizeof msg,
             "kernel '%s': %s left out: a metric it reads is n/a on %lu of its %.0f launches "
             "(ncu did not collect it), never counted as 0",
             rt_ncu_short(name, sbuf, sizeof sbuf), qs, t->na_launches, t->n);
    rt_ncu_warn_limited(im, &im->na_kernels, msg);
}

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
        /* The authors' aggregation: total cycles at the mean clock rate; ncu's durations summed
         * where the inputs have no cycles. */
        k->time = im->by_duration ? t->time_sum : t->rate > 0 ? t->cycles / (t->rate / t->n) : 0;
        for (size_t i = 0; i < im->nchosen; i++) {
            if (!((t->applied >> i) & 1) || ((t->unknown >> i) & 1))
                continue; /* out of scope on every launch, or unknown on one */
            const char *q = im->map.q[im->chosen[i]].quantity;
            rt_values_add(q[0] == 'f' ? &k->flops : &k->bytes, q + 6, t->q[i]);
        }
        if (t->unknown)
            warn_unknown(im, t, k->name);
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
    if (im->na_kernels > NCU_MAX_WARN)
        rt_warnings_add(im->warnings, "%lu kernels in all had quantities left out for metrics n/a",
                        im->na_kernels);
    if (im->opt->per_launch && im->na_values)
        rt_warnings_add(im->warnings,
                        "%lu launches read a metric n/a (ncu did not collect it): the quantities "
                        "that read it are left out of those launches, never counted as 0",
                        im->na_values);
    if (im->failed)
        rt_warnings_add(im->warnings,
                        "%lu failed launch%s dropped (every metric nan and grid (0, 0, 0): "
                        "Nsight's record of a launch that did not run)%s",
                        im->failed, im->failed == 1 ? "" : "es",
                        im->by_name && im->nf > 1 ? ", counted in each file" : "");
}

/* Per file: the rule rows skipped (a note), and the values in units ncu scaled for display (one
 * warning per file, and a note). */
static void file_notes(ncu_import *im, rt_provenance *pv)
{
    for (size_t i = 0; i < im->nf; i++) {
        const ncu_file *f = &im->f[i];
        char key[32], val[256];
        if (f->rule_rows) {
            snprintf(key, sizeof key, "rules.%zu", i + 1);
            snprintf(val, sizeof val,
                     "%lu rows of ncu's analysis rules (an empty metric name) skipped",
                     f->rule_rows);
            rt_tags_set(&pv->notes, key, val);
        }
        if (!f->scaled_unit)
            continue;
        snprintf(key, sizeof key, "units.%zu", i + 1);
        snprintf(val, sizeof val,
                 "scaled for display ('%s' first on line %lu): two decimals, about three "
                 "significant digits",
                 f->scaled_unit, f->scaled_line);
        rt_tags_set(&pv->notes, key, val);
        if (im->warnings)
            rt_warnings_add(im->warnings,
                            "%s: line %lu: values in units ncu scaled for display ('%s') carry "
                            "two decimals, about three significant digits; collect with `ncu "
                            "--print-units base` for exact counts",
                            f->path, f->scaled_line, f->scaled_unit);
    }
}

/* What was missing, in the profile: the quantities no input gave and the metric each lacked
 * (with or without --allow-missing: such a quantity is absent, not zero, and `analyze` says so
 * after the import's warnings are gone), and with --allow-missing the launches with metrics n/a
 * or lacking one. */
static void missing_note(ncu_import *im, rt_provenance *pv)
{
    if (!im->n_lacking && !im->na_values && !im->missing)
        return;
    char note[2048] = "";
    size_t l = 0;
    for (size_t i = 0; i < im->n_lacking && l < sizeof note; i++) {
        const rt_ncu_lack *a = &im->lacking[i];
        l += (size_t)snprintf(note + l, sizeof note - l, "%s%s (%s %s)", l ? "; " : "", a->quantity,
                              im->map.metric[a->slot], a->na ? "n/a" : "absent");
    }
    if (im->na_values && l < sizeof note)
        l += (size_t)snprintf(note + l, sizeof note - l,
                              "%s%lu launches with a metric n/a: the quantities that read it "
                              "left out of their kernels",
                              l ? "; " : "", im->na_values);
    if (im->missing && l < sizeof note)
        snprintf(note + l, sizeof note - l, "%s%lu launches lacking a metric (counted as 0)",
                 l ? "; " : "", im->missing);
    rt_tags_set(&pv->notes, "missing", note);
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
    if (im->by_duration)
        rt_tags_set(&pv->formulas, "time", im->map.duration.e.text);
    prof->method = rt_strdup(
        im->by_duration
            ? (opt->per_launch ? "Nsight Compute metrics, one kernel per launch; time = ncu's "
                                 "duration of the launch (the inputs have no cycles)"
                               : "Nsight Compute metrics aggregated per kernel name; time = the "
                                 "sum of ncu's durations of its launches (the inputs have no "
                                 "cycles)")
        : opt->per_launch
            ? "Nsight Compute metrics, one kernel per launch; time = cycles / rate of the launch"
        : by_name
            ? "Nsight Compute metrics summed per kernel name in each file and joined on the name "
              "(the files' launch orders differ); time = sum of cycles / (sum of rates / "
              "launches), the authors' aggregation"
            : "Nsight Compute metrics aggregated per kernel name; time = sum of cycles / (sum of "
              "rates / launches), the authors' aggregation (the sum of per-launch cycles / rate "
              "is in provenance.kernel_time_sum)");
    rt_tags_set(&pv->notes, "mapping", im->map.label);
    if (im->map.recipe)
        rt_tags_set(&pv->notes, "recipe", im->map.recipe);
    rt_tags_set(&pv->notes, "time",
                im->by_duration   ? (opt->per_launch ? "ncu's duration per launch"
                                                     : "sum of ncu's durations of the launches")
                : opt->per_launch ? "cycles / rate per launch"
                                  : "sum of cycles / mean rate");
    rt_tags_set(&pv->notes, "join",
                by_name ? "per kernel name (the files' launch orders differ)"
                        : "per launch (process and launch ID)");
    pv->launches = (double)im->launches;
    if (opt->tensor_factor > 0) {
        char tf[32];
        snprintf(tf, sizeof tf, "%.17g", opt->tensor_factor);
        rt_tags_set(&pv->notes, "tensor_factor", tf);
    }
    file_notes(im, pv);
    missing_note(im, pv);
    counted_warnings(im);
}
