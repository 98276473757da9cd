/* Private to the PyTorch trace importer: the GPU side of a trace. Its kernels, memcpys and
 * memsets, the runtime calls that launched them, how each is linked to the operator around its
 * launch and given that operator's work (torch-gpu-link.c), the launch side: the GPU's busy and
 * idle time and the launch latency measured in the run (torch-gpu-timeline.c), the GPU named and
 * its preset (torch-device.c), the unit its matrix kernels ran on (torch-gpu-units.c), and the
 * device profile made of them (torch-gpu-profile.c). */
#ifndef ROOFTIME_IMPORT_TORCH_GPU_H
#define ROOFTIME_IMPORT_TORCH_GPU_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

struct reader;

/* What ran on the device. */
enum { GK_KERNEL = 0, GK_MEMCPY = 1, GK_MEMSET = 2 };
/* A memcpy's direction, from its name ("Memcpy HtoD (Pageable -> Device)"). */
enum { GC_OTHER = 0, GC_DTOD = 1, GC_HOST = 2 };

/* One kernel, memcpy or memset as the trace recorded it. */
typedef struct gpu_ev {
    double ts, end, dur; /* microseconds; dur as the trace wrote it (end - ts rounds) */
    double bytes;        /* args.bytes of a memcpy or memset; < 0: not recorded */
    int64_t corr;        /* args.correlation; -1: none */
    uint32_t name;       /* its name: an index of the reader's names */
    uint32_t device;
    uint8_t kind, copy;
    /* filled by the link: the runtime call (index into rts) and the operator (index into the
     * reader's events) that launched it, and the operator whose work it carries; -1: none */
    int64_t rt, op, owner;
    double flops, wbytes;  /* the share of the owner's work it carries */
    const char *unit;      /* FLOPs unit of that share (static) */
    const char *uncounted; /* its operator's work no count measures ("rng" ...), or NULL */
    unsigned char lower;   /* the share it carries is of lower bounds (model tbe) */
    unsigned char inside;  /* kept: no --within, or launched inside such a range */
} gpu_ev;

/* One runtime call with a correlation id (cudaLaunchKernel, hipMemcpyAsync, cuLaunchKernelEx ...).
 */
typedef struct rt_call {
    double ts, end;
    int64_t corr, ext; /* args.correlation, args."External id" (-1: none) */
    uint32_t thread;   /* interned pid/tid, as the operators' */
} rt_call;

/* The work the cost model gave one operator call (per event of the reader), for the link. */
enum { CW_NONE = 0, CW_WORK, CW_COMPOSITE, CW_UNCOVERED, CW_UNCOUNTED };
typedef struct call_work {
    double flops, bytes;
    const char *unit, *precision; /* rt_torch_cost's: its FLOPs' unit, its data's; static */
    const char *klass; /* CW_UNCOUNTED: what its work is ("rng", "sort" ...; the table's) */
    uint8_t state, flops_known, bytes_known;
    uint8_t status; /* the cost model's (rt_torch_status): why a call has no work */
    uint8_t lower;  /* its counts are lower bounds (rt_torch_cost.lower_bound) */
} call_work;

/* The launch side, measured on the device's timeline (torch-gpu-timeline.c); microseconds. */
typedef struct gpu_timeline {
    double step;     /* from the first launch (or start) to the last end of the kept events */
    double busy;     /* the union of their intervals, over every stream */
    double dispatch; /* idle while the operator that launches next had started, before its launch */
    double latency;  /* idle during the launch call, or up to tau after its start */
    double outside;  /* idle while the host was outside any operator launching the next work */
    double other;    /* idle with the next work already launched: dependencies, synchronization */
    double tau;      /* median start - launch over kernels launched onto an idle GPU */
    size_t n_tau, n_gaps;
    double host_dispatch, n_dispatch; /* summed operator start -> launch, over the launches */
} gpu_timeline;

typedef struct torch_gpu {
    gpu_ev *ev;
    size_t n, cap;
    rt_call *rt;
    size_t n_rt, cap_rt;
    json_t *device_props, *dist_info; /* the trace's own members, or NULL */
    call_work *calls;                 /* per reader event, filled by rt_torch_apply_costs */
    uint32_t device;                  /* the device the profile is of (most device time) */
    size_t n_devices;
    size_t n_linked_ext;     /* GPU events linked by the shared External id */
    struct gpu_units *units; /* data/gpu/matrix-kernels.json */
    int *row;                /* per kernel name: its matrix row, -1 none, -2 not looked */
    unsigned char *comm;     /* per kernel name: 1 communication, 2 not, 0 not looked */
    gpu_timeline tl;
} torch_gpu;

/* ---- torch-gpu-link.c ---- */

/* Keep a GPU event (kind GK_*) or a runtime call of the reader's current event. */
void rt_torch_gpu_add_event(struct reader *r, double ts, double dur, int64_t corr, double bytes,
                            uint32_t name, const char *pid, int kind);
void rt_torch_gpu_add_call(struct reader *r, double ts, double dur, int64_t corr, int64_t ext,
                           uint32_t thread);
/* Link every GPU event to its runtime call and operator, find the operator whose work it
 * carries and give it its share (the split rule: docs/import-frameworks.md). After
 * rt_torch_aggregate. */
void rt_torch_gpu_link(struct reader *r);
void rt_torch_gpu_free(torch_gpu *g);
/* Whether kernel name n is communication (the options' patterns), looked up once per name. */
int rt_torch_gpu_is_comm(struct reader *r, uint32_t n);
/* What the cost model said of one call (composite: its callees carry its work). */
struct rt_torch_cost;
void rt_torch_gpu_note_call(call_work *cw, int composite, const struct rt_torch_cost *c);

/* ---- torch-gpu-timeline.c ---- */

/* The step, the busy time, the idle gaps by cause and tau over the kept events of the device. */
void rt_torch_gpu_timeline(struct reader *r);
/* Its figures into the profile's notes (and the measured tau as its overhead). */
void rt_torch_gpu_timeline_notes(const struct reader *r, rt_profile *p);

/* ---- torch-gpu-units.c: data/gpu/matrix-kernels.json ---- */

typedef struct gpu_units gpu_units; /* struct gpu_units: torch-gpu-units.c */
int rt_torch_gpu_units_load(gpu_units **out, rt_error *err);
void rt_torch_gpu_units_free(gpu_units *u);
/* The first row whose glob the kernel name matches (a matrix kernel: the one that does its
 * operator's math), or -1. */
int rt_torch_gpu_match(const gpu_units *u, const char *name);
/* The unit FLOPs of precision unit ("fp32" ...) count on in a kernel of that row: its matrix unit
 * ("tensor_tf32" ...), else (row -1, or a precision the row does not map) unit itself. */
const char *rt_torch_gpu_row_unit(const gpu_units *u, int row, const char *unit);
const char *rt_torch_gpu_units_label(const gpu_units *u);

/* ---- torch-device.c: deviceProperties, distributedInfo, data/gpu/devices.json ---- */

/* The GPU the profile's events ran on, in words, into p->machine; the preset it matches into
 * notes.gpu_preset, or a warning that none does; the trace's rank and job size into
 * p->identity. */
int rt_torch_device_describe(const struct reader *r, rt_profile *p, rt_warnings *w, rt_error *err);
/* distributedInfo {"rank": R, "world_size": N}: the trace's rank in its job, into p->identity (a
 * trace of the host operators too). */
void rt_torch_note_rank(const struct reader *r, rt_profile *p);

/* ---- torch-gpu-profile.c ---- */

/* The device profile: the kept GPU events by name, operator, source and precision, device time,
 * with their share of the work; coverage and launch-side notes. */
int rt_torch_gpu_profile(struct reader *r, rt_profile **out, rt_warnings *w, rt_error *err);

#endif
