/* The machine object: ceilings, lookups, machine balance and consistency checks. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rooftime/core/job.h"
#include "rooftime/core/machine.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

rt_machine *rt_machine_new(const char *name)
{
    rt_machine *m = rt_xcalloc(1, sizeof *m);
    m->name = rt_strdup(name ? name : "unnamed");
    return m;
}

void rt_machine_free(rt_machine *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_units; i++) {
        free(m->units[i].name);
        free(m->units[i].note);
        rt_values_release(&m->units[i].derivation);
        rt_tags_release(&m->units[i].derivation_notes);
    }
    for (size_t i = 0; i < m->n_levels; i++) {
        free(m->levels[i].name);
        free(m->levels[i].note);
        free(m->levels[i].size_source);
    }
    free(m->units);
    free(m->levels);
    free(m->name);
    free(m->source);
    free(m->method);
    free(m->tau_method);
    free(m->link_name);
    free(m->ref_unit);
    free(m->ref_level);
    free(m->ref_reason);
    for (size_t i = 0; i < m->n_overheads; i++) {
        free(m->overheads[i].name);
        free(m->overheads[i].method);
    }
    free(m->overheads);
    rt_measurement_free(m->measurement);
    rt_gpu_measurement_free(m->gpu);
    rt_rank_identity_free(m->identity);
    rt_job_free(m->job);
    free(m->unknown_json);
    free(m);
}

void rt_machine_set_str(char **field, const char *value)
{
    free(*field);
    *field = rt_strdup(value);
}

rt_unit *rt_machine_add_unit(rt_machine *m, const char *name, double flops)
{
    m->units = rt_xrealloc(m->units, (m->n_units + 1) * sizeof *m->units);
    rt_unit *u = &m->units[m->n_units++];
    memset(u, 0, sizeof *u);
    u->name = rt_strdup(name);
    u->flops = flops;
    return u;
}

rt_overhead *rt_machine_add_overhead(rt_machine *m, const char *name, int threads,
                                     rt_spread seconds, const char *method)
{
    m->overheads = rt_xrealloc(m->overheads, (m->n_overheads + 1) * sizeof *m->overheads);
    rt_overhead *o = &m->overheads[m->n_overheads++];
    memset(o, 0, sizeof *o);
    o->name = rt_strdup(name);
    o->threads = threads;
    o->seconds = seconds;
    o->method = method ? rt_strdup(method) : NULL;
    return o;
}

rt_level *rt_machine_add_level(rt_machine *m, const char *name, double bytes_per_s)
{
    m->levels = rt_xrealloc(m->levels, (m->n_levels + 1) * sizeof *m->levels);
    rt_level *l = &m->levels[m->n_levels++];
    memset(l, 0, sizeof *l);
    l->name = rt_strdup(name);
    l->bytes_per_s = bytes_per_s;
    return l;
}

double rt_level_capacity(const rt_level *l, int threads)
{
    if (!(l->size_bytes > 0))
        return 0;
    double instances = l->instances > 0 ? l->instances : 1;
    if (threads > 0 && threads < instances)
        instances = threads;
    return l->size_bytes * instances;
}

/* strcasecmp(a, b) == 0, the usual answer (no) mostly found without it: two ASCII first bytes
 * that are not one letter in two cases differ in every locale. A million kernels' unit and level
 * names are looked up among a machine's few, several times each. */
static bool same_name(const char *a, const char *b)
{
    unsigned x = (unsigned char)a[0], y = (unsigned char)b[0], lx = x | 0x20;
    if (x != y && x < 0x80 && y < 0x80 && (lx != (y | 0x20) || lx < 'a' || lx > 'z'))
        return false;
    return strcasecmp(a, b) == 0;
}

int rt_machine_unit_index(const rt_machine *m, const char *name)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < m->n_units; i++)
        if (same_name(m->units[i].name, name))
            return (int)i;
    return -1;
}

/* Stand-ins, in order of preference. Since Ampere the dense BF16 Tensor Core rate equals the
 * FP16 one (A100, H100 and H200 datasheets), and machine presets and older measurements call the
 * dense FP16 Tensor Core ceiling "tensor". No other precision has a stand-in: TF32, FP8, INT8 and
 * FP64 rates differ from FP16's by factors that vary per part. */
static const struct {
    const char *unit, *standin[2];
} standins[] = {
    {"tensor_fp16", {"tensor", NULL}},
    {"tensor", {"tensor_fp16", NULL}},
    {"tensor_bf16", {"tensor_fp16", "tensor"}},
};

int rt_machine_resolve_unit(const rt_machine *m, const char *name, rt_unit_match *how)
{
    rt_unit_match dummy;
    if (!how)
        how = &dummy;
    int u = rt_machine_unit_index(m, name);
    if (u >= 0 || !name) {
        *how = u >= 0 ? RT_UNIT_EXACT : RT_UNIT_ABSENT;
        return u;
    }
    for (size_t i = 0; i < sizeof standins / sizeof standins[0]; i++) {
        if (!same_name(standins[i].unit, name))
            continue;
        for (size_t j = 0; j < 2 && standins[i].standin[j]; j++)
            if ((u = rt_machine_unit_index(m, standins[i].standin[j])) >= 0) {
                *how = RT_UNIT_STANDIN;
                return u;
            }
    }
    *how = strncasecmp(name, "tensor_", 7) == 0 ? RT_UNIT_NO_CEILING : RT_UNIT_ABSENT;
    return -1;
}

int rt_machine_level_index(const rt_machine *m, const char *name)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < m->n_levels; i++)
        if (same_name(m->levels[i].name, name))
            return (int)i;
    return -1;
}

const rt_unit *rt_machine_unit(const rt_machine *m, const char *name)
{
    int i = rt_machine_unit_index(m, name);
    return i < 0 ? NULL : &m->units[i];
}

const rt_level *rt_machine_level(const rt_machine *m, const char *name)
{
    int i = rt_machine_level_index(m, name);
    return i < 0 ? NULL : &m->levels[i];
}

const rt_overhead *rt_machine_overhead(const rt_machine *m, const char *name)
{
    const rt_overhead *best = NULL;
    for (size_t i = 0; name && i < m->n_overheads; i++)
        if (same_name(m->overheads[i].name, name) &&
            (!best || m->overheads[i].threads > best->threads))
            best = &m->overheads[i];
    return best;
}

double rt_machine_ref_flops(const rt_machine *m)
{
    const rt_unit *u = rt_machine_unit(m, m->ref_unit);
    return u ? u->flops : NAN;
}

double rt_machine_ref_bw(const rt_machine *m)
{
    const rt_level *l = rt_machine_level(m, m->ref_level);
    return l ? l->bytes_per_s : NAN;
}

double rt_machine_balance(const rt_machine *m)
{
    return rt_machine_ref_flops(m) / rt_machine_ref_bw(m);
}

double rt_machine_overhead_flops(const rt_machine *m, const char *unit)
{
    const rt_unit *u = rt_machine_unit(m, unit ? unit : m->ref_unit);
    return u ? u->flops * m->tau : NAN;
}

int rt_machine_check(const rt_machine *m, rt_error *err)
{
    if (m->n_units == 0) {
        rt_error_set(err, "machine '%s' has no compute ceilings", m->name);
        return -1;
    }
    if (m->n_levels == 0) {
        rt_error_set(err, "machine '%s' has no memory levels", m->name);
        return -1;
    }
    for (size_t i = 0; i < m->n_units; i++) {
        if (!(m->units[i].flops > 0) || !isfinite(m->units[i].flops)) {
            rt_error_set(err, "machine '%s': unit '%s': FLOP/s must be positive", m->name,
                         m->units[i].name);
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            if (strcasecmp(m->units[i].name, m->units[j].name) == 0) {
                rt_error_set(err, "machine '%s': unit '%s' appears twice", m->name,
                             m->units[i].name);
                return -1;
            }
        if (m->units[i].derivation.n) {
            double p = 1.0;
            for (size_t f = 0; f < m->units[i].derivation.n; f++)
                p *= m->units[i].derivation.v[f].value;
            if (!(fabs(p - m->units[i].flops) <= 1e-6 * m->units[i].flops)) {
                rt_error_set(err,
                             "machine '%s': unit '%s': derivation gives %.6g FLOP/s but the file "
                             "says %.6g",
                             m->name, m->units[i].name, p, m->units[i].flops);
                return -1;
            }
        }
    }
    for (size_t i = 0; i < m->n_levels; i++) {
        if (!(m->levels[i].bytes_per_s > 0) || !isfinite(m->levels[i].bytes_per_s)) {
            rt_error_set(err, "machine '%s': level '%s': bandwidth must be positive", m->name,
                         m->levels[i].name);
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            if (strcasecmp(m->levels[i].name, m->levels[j].name) == 0) {
                rt_error_set(err, "machine '%s': level '%s' appears twice", m->name,
                             m->levels[i].name);
                return -1;
            }
    }
    if (!rt_machine_unit(m, m->ref_unit)) {
        rt_error_set(err, "machine '%s': reference unit '%s' is not one of its units", m->name,
                     m->ref_unit ? m->ref_unit : "(none)");
        return -1;
    }
    if (!rt_machine_level(m, m->ref_level)) {
        rt_error_set(err, "machine '%s': reference level '%s' is not one of its levels", m->name,
                     m->ref_level ? m->ref_level : "(none)");
        return -1;
    }
    if (!(m->tau >= 0) || !isfinite(m->tau)) {
        rt_error_set(err, "machine '%s': launch overhead must be a non-negative number", m->name);
        return -1;
    }
    return 0;
}
