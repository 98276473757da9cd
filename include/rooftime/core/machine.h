/* A machine: its compute ceilings, memory levels and launch overhead (machine.c). */
#ifndef ROOFTIME_CORE_MACHINE_H
#define ROOFTIME_CORE_MACHINE_H

#include <stddef.h>

#include "rooftime/core/gpu-measurement.h"
#include "rooftime/core/measurement.h"
#include "rooftime/core/tag-map.h"
#include "rooftime/core/value-map.h"
#include "rooftime/util/error.h"
#include "rooftime/util/rank-identity.h"

#define RT_MACHINE_SCHEMA "rooftime.machine/1"
/* The largest capacity a machine file may give a level: 2^64 bytes. */
#define RT_MAX_CAPACITY 18446744073709551616.0

/* One compute ceiling: a unit such as fp64, fp32, fp16, bf16, tensor, amx_bf16, int8. */
typedef struct rt_unit {
    char *name;
    double flops;             /* FLOP/s the model uses: the ceiling */
    double min, max;          /* spread of repeated measurements; 0 when unknown */
    double typical;           /* the median of those measurements; 0 when unknown */
    double theoretical;       /* clock x FLOPs/cycle peak; 0 when unknown */
    char *note;               /* how the figure was obtained; may be NULL */
    rt_values derivation;     /* factors whose product is flops (sms, clock_hz ...); may be empty */
    rt_tags derivation_notes; /* what the factors mean ("_note" in the file) */
} rt_unit;

/* One memory level: L1, L2, L3, DRAM, HBM ... */
typedef struct rt_level {
    char *name;
    double bytes_per_s; /* the ceiling */
    double min, max;    /* spread; 0 when unknown */
    double typical;     /* the median measurement; 0 when unknown */
    double size_bytes;  /* capacity of one instance (a core's L2, a socket's L3, an SM's L1), 0
                         * when unknown */
    char *note;
    /* Capacity (docs/machine-format.md, "Capacities"): size_bytes per instance, each shared by
     * shared_by logical CPUs (SMs on a GPU), instances of it in the machine (0: unknown, read as
     * 1); where the figures come from (hwloc, sysfs, a datasheet; NULL: unknown); and what the
     * working-set sweep saw: the largest working set, all swept_threads threads together, on the
     * level's plateau (0: not swept). */
    int shared_by, instances;
    char *size_source;
    double swept_bytes;
    int swept_threads;
} rt_level;

/* The bytes level l holds for a kernel on `threads` threads (0: unknown, every instance): one
 * instance per thread up to the machine's instances (the threads spread over them, the most a
 * kernel may use). 0 when the capacity is unknown. */
double rt_level_capacity(const rt_level *l, int threads);

/* One definition of launch overhead (the paper's empty kernel between events, OpenMP fork/join,
 * an OpenCL enqueue, a framework's dispatch ...). The model's tau is one of them. */
typedef struct rt_overhead {
    char *name;  /* "openmp_fork_join", "opencl_enqueue", "cuda_event_sync" ... */
    int threads; /* 0 when it does not apply */
    rt_spread seconds;
    char *method; /* how it was timed; may be NULL */
} rt_overhead;

typedef struct rt_machine {
    char *name;
    char *source; /* "measured", "spec-sheet", "derived", "paper" */
    char *method; /* free text: how the numbers were obtained */
    rt_unit *units;
    size_t n_units;
    rt_level *levels;
    size_t n_levels;
    double tau;     /* launch overhead per invocation, seconds */
    double link_bw; /* bytes/s of the link communication kernels use (NVLink, network); 0 unknown */
    char *link_name;  /* what that link is; may be NULL */
    char *tau_method; /* how tau was measured */
    char *ref_unit;   /* unit and level that define the machine balance */
    char *ref_level;
    char *ref_reason; /* why that reference (rt_reference_choose, --reference); NULL: the file's.
                       * Not written to machine files. */
    rt_overhead *overheads; /* every launch overhead measured, each by its own definition */
    size_t n_overheads;
    rt_measurement *measurement; /* how the figures were measured; NULL for presets and files */
    rt_gpu_measurement *gpu;     /* how a GPU was measured (machine measure --gpu); else NULL */
    /* Timed runs of the measurement and how many other processes disturbed (from the measurement,
     * or its record read back from a file); 0 when unknown. */
    long timed_runs, disturbed_runs;
    rt_rank_identity *identity; /* the rank, host and device that measured it; NULL when unknown */
    struct rt_job
        *job; /* every rank's and node's figures (machine measure --mpi); NULL otherwise */
    /* Members of a machine file that rooftime does not know (a measurement record read back,
     * another tool's), kept for round trips as JSON text: formats/ parses and writes it, the core
     * never looks inside. NULL when there are none. */
    char *unknown_json;
} rt_machine;

rt_machine *rt_machine_new(const char *name);
void rt_machine_free(rt_machine *m);

/* Append a unit or level (copies the name); returns the new element, owned by m. */
rt_unit *rt_machine_add_unit(rt_machine *m, const char *name, double flops);
rt_level *rt_machine_add_level(rt_machine *m, const char *name, double bytes_per_s);
rt_overhead *rt_machine_add_overhead(rt_machine *m, const char *name, int threads,
                                     rt_spread seconds, const char *method);
void rt_machine_set_str(char **field, const char *value);

/* Lookup by name (case-insensitive); NULL or -1 when absent. */
const rt_unit *rt_machine_unit(const rt_machine *m, const char *name);
const rt_level *rt_machine_level(const rt_machine *m, const char *name);
int rt_machine_unit_index(const rt_machine *m, const char *name);
int rt_machine_level_index(const rt_machine *m, const char *name);

/* How a profile's FLOP unit meets the machine's compute ceilings (docs/model.md, "Units and
 * stand-ins"). The one place where profile units are resolved. */
typedef enum rt_unit_match {
    RT_UNIT_EXACT,      /* the machine has the unit */
    RT_UNIT_STANDIN,    /* a documented stand-in of the same dense rate: tensor_fp16 <-> tensor,
                           tensor_bf16 -> tensor_fp16, then tensor */
    RT_UNIT_ABSENT,     /* no ceiling: its FLOPs count at the reference peak (warned) */
    RT_UNIT_NO_CEILING, /* a Tensor Core precision (tensor_*) with neither ceiling nor stand-in:
                           the hier verdict of a kernel with its FLOPs is unknown */
} rt_unit_match;
/* The machine unit that judges FLOPs of profile unit name, or -1; *how (may be NULL) says how. */
int rt_machine_resolve_unit(const rt_machine *m, const char *name, rt_unit_match *how);

/* The overhead of this name (case-insensitive) with the most threads; NULL when absent. */
const rt_overhead *rt_machine_overhead(const rt_machine *m, const char *name);

/* Reference peak, reference bandwidth and their ratio, the machine balance (FLOP/byte). */
double rt_machine_ref_flops(const rt_machine *m);
double rt_machine_ref_bw(const rt_machine *m);
double rt_machine_balance(const rt_machine *m);
/* FLOPs one launch must carry on unit u (NULL: reference unit) to escape the overhead bound. */
double rt_machine_overhead_flops(const rt_machine *m, const char *unit);

/*
 * Consistency: reference unit and level exist, ceilings are positive, and every unit's
 * derivation (count x count x ... = value) matches its figure within 1e-6.
 */
int rt_machine_check(const rt_machine *m, rt_error *err);

#endif
