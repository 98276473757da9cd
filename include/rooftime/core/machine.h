/* A machine: its compute ceilings, memory levels and launch overhead (machine.c). */
#ifndef ROOFTIME_CORE_MACHINE_H
#define ROOFTIME_CORE_MACHINE_H

#include <jansson.h>
#include <stddef.h>

#include "rooftime/util/error.h"

#define RT_MACHINE_SCHEMA "rooftime.machine/1"

/* One compute ceiling: a unit such as fp64, fp32, fp16, bf16, tensor, amx_bf16, int8. */
typedef struct rt_unit {
    char *name;
    double flops;       /* FLOP/s the model uses */
    double min, max;    /* spread of repeated measurements; 0 when unknown */
    double theoretical; /* clock x FLOPs/cycle peak; 0 when unknown */
    char *note;         /* how the figure was obtained; may be NULL */
    json_t
        *derivation; /* {"factor name": number, ...} whose product is flops; NULL if none; owned */
} rt_unit;

/* One memory level: L1, L2, L3, DRAM, HBM ... */
typedef struct rt_level {
    char *name;
    double bytes_per_s;
    double min, max;   /* spread; 0 when unknown */
    double size_bytes; /* capacity, 0 when unknown */
    char *note;
} rt_level;

typedef struct rt_machine {
    char *name;
    char *source; /* "measured", "spec-sheet", "derived", "paper" */
    char *method; /* free text: how the numbers were obtained */
    rt_unit *units;
    size_t n_units;
    rt_level *levels;
    size_t n_levels;
    double tau;       /* launch overhead per invocation, seconds */
    char *tau_method; /* how tau was measured */
    char *ref_unit;   /* unit and level that define the machine balance */
    char *ref_level;
    json_t *extra; /* other members (derivation, curves, cpu ...), kept for round trips; owned */
} rt_machine;

rt_machine *rt_machine_new(const char *name);
void rt_machine_free(rt_machine *m);

/* Append a unit or level (copies the name); returns the new element, owned by m. */
rt_unit *rt_machine_add_unit(rt_machine *m, const char *name, double flops);
rt_level *rt_machine_add_level(rt_machine *m, const char *name, double bytes_per_s);
void rt_machine_set_str(char **field, const char *value);

/* Lookup by name (case-insensitive); NULL or -1 when absent. */
const rt_unit *rt_machine_unit(const rt_machine *m, const char *name);
const rt_level *rt_machine_level(const rt_machine *m, const char *name);
int rt_machine_unit_index(const rt_machine *m, const char *name);
int rt_machine_level_index(const rt_machine *m, const char *name);

/* Reference peak, reference bandwidth and their ratio, the machine balance (FLOP/byte). */
double rt_machine_ref_flops(const rt_machine *m);
double rt_machine_ref_bw(const rt_machine *m);
double rt_machine_balance(const rt_machine *m);
/* FLOPs one launch must carry on unit u (NULL: reference unit) to escape the overhead bound. */
double rt_machine_overhead_flops(const rt_machine *m, const char *unit);

/*
 * Consistency: reference unit and level exist, ceilings are positive, and every
 * "derivation" in extra (count x count x ... = value) matches its unit within 1e-6.
 */
int rt_machine_check(const rt_machine *m, rt_error *err);

#endif
