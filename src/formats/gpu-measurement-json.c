/* A machine's GPU measurement record as JSON: the "gpu" member `machine measure --gpu` writes. */
#include <stdio.h>

#include "gpu-measurement-json.h"

static json_t *stat_json(rt_spread s)
{
    return json_pack("{s:f,s:f,s:f}", "median", s.median, "min", s.min, "max", s.max);
}

static json_t *array_of(const double *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, json_real(v[i]));
    return a;
}

json_t *rt_gpu_measurement_to_json(const rt_gpu_measurement *r)
{
    json_t *j = json_object();
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", r->cc_major, r->cc_minor);
    json_object_set_new(
        j, "device",
        json_pack("{s:s,s:i,s:s,s:s,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:i,s:s}", "name", r->device,
                  "index", r->index, "compute_capability", cc, "architecture", r->arch, "sms",
                  r->sms, "clock_hz", r->clock_hz, "memory_clock_hz", r->mem_clock_hz,
                  "memory_bus_bits", r->bus_width_bits, "memory_theoretical_bytes_per_s",
                  r->hbm_theoretical, "l2_bytes", r->l2_bytes, "memory_bytes", r->mem_bytes,
                  "driver_version", r->driver_version, "nvrtc", r->nvrtc));
    json_t *c = json_array();
    for (size_t i = 0; i < r->n_compute; i++) {
        const rt_gpu_compute *u = &r->compute[i];
        json_array_append_new(c, json_pack("{s:s,s:s,s:s,s:o,s:f,s:f,s:i}", "unit", u->unit,
                                           "kernel", u->kernel, "instruction", u->instr, "flops",
                                           stat_json(u->flops), "theoretical", u->theoretical,
                                           "clock_hz", u->clock_hz, "trials", u->trials));
    }
    json_object_set_new(j, "compute", c);
    json_t *b = json_array();
    for (size_t i = 0; i < r->n_bw; i++) {
        const rt_gpu_bw *w = &r->bw[i];
        json_array_append_new(
            b, json_pack("{s:s,s:s,s:s,s:f,s:o,s:f,s:f}", "name", w->name, "level", w->level,
                         "kernel", w->kernel, "working_set_bytes", w->working_set, "bytes_per_s",
                         stat_json(w->bw), "theoretical", w->theoretical, "clock_hz", w->clock_hz));
    }
    json_object_set_new(j, "bandwidth", b);
    json_t *o = json_object();
    for (int i = 0; i < RT_GPU_TAU_COUNT; i++) {
        const rt_gpu_overhead *h = &r->overhead[i];
        json_object_set_new(o, h->label[0] ? h->label : rt_gpu_tau_name((rt_gpu_tau)i),
                            json_pack("{s:o,s:s,s:s,s:I}", "seconds", stat_json(h->seconds),
                                      "overhead_name", rt_gpu_tau_overhead_name((rt_gpu_tau)i),
                                      "method", h->method, "launches", (json_int_t)h->launches));
    }
    json_object_set_new(o, "tau", json_string(rt_gpu_tau_name(r->tau)));
    json_object_set_new(j, "launch_overheads", o);
    json_t *cv = json_array();
    for (int i = 0; i < 2; i++) {
        const rt_gpu_curve *k = &r->curve[i];
        if (!k->n)
            continue;
        json_t *pl = json_array();
        for (int p = 0; p < 2; p++) {
            const rt_gpu_plateau *q = &k->plateau[p];
            json_array_append_new(pl, json_pack("{s:s,s:b,s:f,s:f,s:f,s:f,s:f,s:i,s:s}", "level",
                                                q->name, "found", q->found, "bytes_per_s",
                                                q->bw.median, "min", q->bw.min, "max", q->bw.max,
                                                "from_bytes", q->from_bytes, "to_bytes",
                                                q->to_bytes, "points", q->points, "note", q->note));
        }
        json_array_append_new(cv, json_pack("{s:s,s:s,s:o,s:o,s:o,s:o,s:o}", "kind", k->kind,
                                            "kernel", k->kernel, "working_set_bytes",
                                            array_of(k->bytes, k->n), "bytes_per_s",
                                            array_of(k->bw, k->n), "min", array_of(k->min, k->n),
                                            "max", array_of(k->max, k->n), "plateaus", pl));
    }
    json_object_set_new(j, "curves", cv);
    json_object_set_new(j, "quick", json_boolean(r->quick));
    json_object_set_new(j, "seconds", json_real(r->seconds));
    return j;
}
