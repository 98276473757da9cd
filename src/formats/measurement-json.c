/* A machine's measurement record as JSON: the processor, the clock, every compute trial, the
 * caches, the bandwidth curves and plateaus, and what was skipped. */
#include <stdlib.h>

#include "json-write.h"
#include "measurement-json.h"

static json_t *spread(json_t *o, const char *key, rt_spread s)
{
    json_object_set_new(o, key, json_real(s.median));
    json_object_set_new(o, "min", json_real(s.min));
    json_object_set_new(o, "max", json_real(s.max));
    return o;
}

static json_t *str(const char *s)
{
    return s ? json_string(s) : json_null();
}

json_t *rt_measurement_to_json(const rt_measurement *x)
{
    json_t *j = json_object();
    json_t *cpu = json_object();
    json_object_set_new(cpu, "vendor", str(x->cpu_vendor));
    json_object_set_new(cpu, "model", str(x->cpu_model));
    json_object_set_new(cpu, "family", json_integer(x->cpu_family));
    json_object_set_new(cpu, "model_id", json_integer(x->cpu_model_id));
    json_object_set_new(cpu, "isa_used", str(x->isa_used));
    json_object_set_new(cpu, "cpus", json_integer(x->cpus));
    json_object_set_new(j, "cpu", cpu);
    json_t *tc = json_array();
    for (size_t i = 0; i < x->n_thread_counts; i++)
        json_array_append_new(tc, json_integer(x->thread_counts[i]));
    json_object_set_new(j, "thread_counts", tc);
    json_object_set_new(j, "quick", json_boolean(x->quick));
    json_object_set_new(j, "max_isa", str(x->max_isa));
    json_object_set_new(j, "seconds", json_real(x->seconds));
    json_object_set_new(j, "stage_seconds",
                        json_pack("{s:f,s:f,s:f,s:f}", "clock", x->stage_seconds[0], "compute",
                                  x->stage_seconds[1], "bandwidth", x->stage_seconds[2],
                                  "overheads", x->stage_seconds[3]));
    json_object_set_new(j, "timed_runs", json_integer(x->timed_runs));
    json_object_set_new(j, "disturbed_runs", json_integer(x->disturbed_runs));
    json_object_set_new(j, "slow_runs", json_integer(x->slow_runs));
    json_object_set_new(j, "revisits",
                        json_pack("{s:i,s:i,s:i,s:i}", "points", x->revisited_points, "points_kept",
                                  x->revisits_kept, "peaks", x->revisited_peaks, "peaks_kept",
                                  x->peak_revisits_kept));

    json_t *clock = spread(json_object(), "hz", x->clock_hz);
    json_object_set_new(clock, "imul_hz", json_real(x->imul_hz));
    json_object_set_new(clock, "method", str(x->clock_method));
    if (x->clock_samples) {
        json_t *k = spread(json_object(), "hz", x->clock_before_kernels);
        json_object_set_new(k, "samples", json_integer((json_int_t)x->clock_samples));
        json_object_set_new(clock, "before_each_compute_kernel", k);
    }
    json_object_set_new(j, "clock", clock);

    json_t *flops = json_array();
    for (size_t i = 0; i < x->n_peaks; i++) {
        const rt_peak_trial *p = &x->peaks[i];
        json_t *e = json_object();
        json_object_set_new(e, "unit", str(p->unit));
        json_object_set_new(e, "isa", str(p->isa));
        json_object_set_new(e, "instruction", str(p->instruction));
        json_object_set_new(e, "threads", json_integer(p->threads));
        spread(e, "flops", p->flops);
        json_object_set_new(e, "ceiling", json_real(p->ceiling));
        json_object_set_new(e, "clean_trials", json_integer(p->clean));
        json_object_set_new(e, "clock_hz", json_real(p->clock_hz));
        json_object_set_new(e, "flops_per_cycle_per_thread",
                            json_real(p->clock_hz > 0 && p->threads > 0
                                          ? p->flops.median / p->threads / p->clock_hz
                                          : 0));
        json_array_append_new(flops, e);
    }
    json_object_set_new(j, "flops", flops);

    json_t *caches = json_array();
    for (size_t i = 0; i < x->n_caches; i++) {
        json_t *c = json_object();
        json_object_set_new(c, "level", json_integer(x->caches[i].level));
        json_object_set_new(c, "size_bytes", json_real(x->caches[i].size_bytes));
        json_object_set_new(c, "shared_by_cpus", json_integer(x->caches[i].shared_by));
        json_array_append_new(caches, c);
    }
    json_object_set_new(j, "caches", caches);
    json_object_set_new(j, "cache_source", str(x->cache_source));

    json_t *bw = json_object(), *curves = json_array(), *levels = json_array();
    json_object_set_new(bw, "isa", str(x->bw_isa));
    for (size_t i = 0; i < x->n_curves; i++) {
        const rt_bw_curve *c = &x->curves[i];
        json_t *o = json_object(), *pts = json_array();
        json_object_set_new(o, "kernel", str(c->kernel));
        json_object_set_new(o, "isa", str(c->isa));
        json_object_set_new(o, "threads", json_integer(c->threads));
        json_object_set_new(o, "columns",
                            json_string("working set per thread (bytes), bytes/s all "
                                        "threads (median, min, max, ceiling)"));
        for (size_t k = 0; k < c->n; k++)
            json_array_append_new(pts, json_pack("[f,f,f,f,f]", c->bytes[k], c->bw[k].median,
                                                 c->bw[k].min, c->bw[k].max, c->ceil[k]));
        json_object_set_new(o, "points", pts);
        json_array_append_new(curves, o);
    }
    for (size_t i = 0; i < x->n_plateaus; i++) {
        const rt_bw_plateau *p = &x->plateaus[i];
        json_t *l = json_object();
        json_object_set_new(l, "kernel", str(p->kernel));
        json_object_set_new(l, "threads", json_integer(p->threads));
        json_object_set_new(l, "name", str(p->name));
        json_object_set_new(l, "found", json_boolean(p->found));
        if (p->found) {
            spread(l, "bytes_per_s", p->bw);
            json_object_set_new(l, "typical", json_real(p->typical));
            json_object_set_new(l, "from_bytes", json_real(p->from_bytes));
            json_object_set_new(l, "to_bytes", json_real(p->to_bytes));
        }
        json_object_set_new(l, "note", str(p->note));
        json_array_append_new(levels, l);
    }
    json_object_set_new(bw, "curves", curves);
    json_object_set_new(bw, "levels", levels);
    json_object_set_new(bw, "method", str(x->bw_method));
    json_object_set_new(j, "bandwidth", bw);

    json_t *sk = json_array();
    for (size_t i = 0; i < x->n_skipped; i++)
        json_array_append_new(sk, json_string(x->skipped[i]));
    json_object_set_new(j, "skipped", sk);
    return j;
}
