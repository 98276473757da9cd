/* Private to the PyTorch trace importer: one trace event's fields, read by a fast strict scanner
 * or through jansson (torch-event.c), for torch.c to aggregate. */
#ifndef ROOFTIME_IMPORT_TORCH_INTERNAL_H
#define ROOFTIME_IMPORT_TORCH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "torch-gpu.h"
#include "rooftime/core/time-spread.h"
#include "rooftime/import/torch-cost.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"

/* The fields of one event that matter, whichever parser read it. Strings are NUL-terminated
 * copies in `scratch` (fast path) or point into the json_t (jansson path). */
typedef struct evf {
    int is_object;
    const char *ph, *cat, *name;
    int ts_ok, dur_ok, flops_ok, steps_ok;
    double ts, dur, flops;
    int corr_ok, ext_ok, bytes_ok; /* args.correlation, args."External id", args.bytes */
    int seq_ok;                    /* args."Sequence number": autograd's, forward to backward */
    int64_t corr, ext, seq;
    double bytes;
    double steps;     /* args.steps: the optimizer steps inside the runner's rooftime:window */
    char thread[256]; /* pid and tid as written ("1/1", "\"CPU functions\"/1") */
    char *dims;       /* compact "Input Dims", heap, or NULL */
    char *types;      /* compact "Input type", heap, or NULL */
    char *concrete;   /* compact "Concrete Inputs", heap, or NULL */
    char *stack;      /* "Call stack" (frames, innermost first, ';' between), heap, or NULL */
    char *call_from;  /* a python_function's "CallFrom" ("file.py:12": its caller's line), heap */
    const char *unit;
} evf;

/* Free the heap strings of f. */
void rt_torch_evf_release(evf *f);

/* Scratch space rt_torch_event_scan copies strings into. */
#define SCRATCH_SIZE 65536

/* Read one event at p (up to e) without jansson: 0 and *used on success; -1 when it is not a
 * plain event (let jansson read it). */
int rt_torch_event_scan(const char *p, const char *e, evf *f, char *scratch, size_t *used);
/* The fields of an event jansson parsed (strings point into j). */
void rt_torch_event_from_json(const json_t *j, evf *f);

/* ---- torch-shares.c: time by reason (an operator and why it has no work) ---- */

typedef struct torch_shares {
    rt_name_index why; /* "operator (reason)" -> slot */
    double *us;        /* per slot, summed */
    size_t cap;
} torch_shares;
void rt_torch_shares_add(torch_shares *s, const char *what, double us);
/* The `most` largest, largest first: "what 1.2%; ...; N more" of base (heap); *sum: all of them. */
char *rt_torch_shares_list(const torch_shares *s, double base, size_t most, double *sum);
void rt_torch_shares_release(torch_shares *s);

/* ---- the reader torch.c fills and torch-attribute.c completes ---- */

enum { EV_CPU = 0, EV_GPU = 1, EV_WITHIN = 2 };

/* One complete ("ph": "X") event, reduced to what the profile needs. */
typedef struct ev {
    double ts, end; /* microseconds */
    double flops;
    int64_t ext;     /* args."External id" of an operator; -1: none */
    uint32_t key;    /* kernel index (EV_CPU, EV_GPU) */
    uint32_t thread; /* interned pid/tid */
    uint8_t kind;
} ev;

typedef struct kern {
    double calls, us, flops;
    rt_time_samples samples; /* each call's self time in seconds, for the kernel's spread */
    const char *unit;
    int gpu;
    /* with the cost model or sources: what one call recorded, and where it came from */
    char *dims, *types, *concrete, *source, *module;
    char *display;      /* "name [dims]" */
    rt_torch_cost cost; /* of one call, for cost_flops_arg */
    double cost_flops_arg;
    int cost_done;
    double cflops, cbytes; /* summed over the calls the model costs */
    double cws; /* an in-place call's distinct bytes (rt_torch_cost.working_set); 0: none */
    int has_cflops, has_cbytes;
    const char *cunit, *cprecision; /* where its FLOPs count (rt_torch_cost.unit), its data's */
    const char *uncounted; /* its work is of a kind no count measures: the class (static) */
    int lower_bound;       /* the model's counts of a call are lower bounds (model tbe) */
    /* torch.compile's framework time: "wrapper" (its wrappers around a compiled region) or
     * "region" (the region's own time, its kernels recorded below it); NULL otherwise */
    const char *compiled;
    const char *phase; /* prefill, decode or a mark's name (torch-phase.c); NULL: none */
} kern;

/* A phase over [ts, end): a user's mark (rooftime:phase=NAME, phase owned) or a run of attention
 * calls of one phase. */
typedef struct rt_torch_phase_range {
    double ts, end;
    const char *phase;
} rt_torch_phase_range;

/* One python_function event of torch 2.x's Python tracer (with_stack=True), what it says of the
 * operators inside it: strings interned in the reader's py.text (UINT32_MAX: none). */
typedef struct rt_torch_pyframe {
    double ts, end;
    uint32_t thread;
    uint32_t from;   /* its "CallFrom": the line of the frame around it that called it */
    uint32_t module; /* "nn.Module: Linear_0" -> "Linear_0" */
    uint8_t kind;    /* PF_LIBRARY, PF_USER (a frame of the user's code), PF_MODULE */
} rt_torch_pyframe;
enum { PF_LIBRARY = 0, PF_USER = 1, PF_MODULE = 2 };
/* An operator's autograd sequence number: the event's index in the reader's evs. */
typedef struct rt_torch_seq {
    size_t ev;
    int64_t seq;
} rt_torch_seq;

typedef struct reader {
    const char *origin;
    const char *within;
    const char *buf;
    size_t len, pos;
    size_t line, col; /* of pos, 1-based */
    size_t n_events;  /* trace events seen, of every kind */
    ev *evs;
    size_t n_evs, cap_evs;
    rt_name_index keys, threads;
    char **names; /* kernel index -> name */
    kern *k;
    size_t n_k, cap_k;
    size_t *parent;   /* per event after rt_torch_aggregate: its caller on the same thread, or -1 */
    torch_gpu gpu;    /* the GPU side: kernels, runtime calls, the link (torch-gpu.h) */
    size_t n_partial; /* children overlapping their parent's end */
    /* CPU operators: all, with 'Input Dims', without 'cat', with 'args.flops' */
    size_t n_cpu, n_cpu_dims, n_cpu_uncat, n_cpu_flops;
    rt_error *err;
    char *scratch; /* room for the strings of one event (fast path): the input's size */
    const rt_torch_options *opt;
    double window_us;         /* the longest "rooftime:window" event (the runner's --steps) */
    double window_steps;      /* the optimizer steps it holds (args.steps); 0: unknown */
    char *version, *profiler; /* the trace's torch_version and torch_profiler members, or NULL */
    int torch_threads;        /* its torch_threads member (torch.get_num_threads()); 0: none */
    const rt_torch_ops *ops;  /* the cost model, or NULL */
    struct {
        rt_torch_phase_range *marks; /* the user's rooftime:phase=NAME ranges */
        size_t n, cap, bad;
        const char *source; /* "marks", "attention", or NULL: no phases */
        size_t prefill_calls, decode_calls, tagged;
    } phases;
    struct {
        rt_torch_pyframe *f; /* torch 2.x's Python frames (torch-pyframes.c) */
        size_t n, cap;
        rt_name_index text; /* their CallFrom lines and module names */
        size_t crossing;    /* frames crossing the end of the frame around them: left out */
        size_t ops, placed; /* operator calls, and those inside a frame of the user's code */
        size_t outside;     /* operators crossing the end of their innermost frame */
        size_t bare;        /* operators on threads with no Python frames */
        rt_torch_seq *seq;  /* the operators with a sequence number (torch-backward.c) */
        size_t n_seq, cap_seq;
        size_t linked; /* operators tagged as the forward call their backward node is of */
    } py;
    struct {
        double busy, work, zero, composite; /* self time (us) by what the model says */
        double uncounted;                   /* work no count measures (model uncounted) */
        double aten_busy, aten_work;        /* the same for aten:: operators */
        torch_shares why;                   /* uncovered operator + reason -> self time */
    } cov;
} reader;

/* Source line ("file.py:12") and nn.Module ("Linear_0") of the user's code in a "Call stack"
 * (frames innermost first, ';' between them); either may be NULL. */
void rt_torch_source_of(const char *stack, char **source, char **module);
/* Whether frame f (n bytes, "path/file.py(12): fn") is library code rather than the user's. */
int rt_torch_library_frame(const char *f, size_t n);
/* "float->c10::BFloat16" when an aten::copy_ converts between its recorded types, else NULL. */
char *rt_torch_conversion(const char *name, const char *types);
/* FLOPs and bytes of every operator call from the cost model, the innermost working operator of
 * each subtree keeping them; coverage of the self time. */
void rt_torch_apply_costs(reader *r, const size_t *parent, const double *self,
                          const unsigned char *inside, rt_warnings *w);
/* Whether the trace is torch's own export of the legacy profiler (no operator has 'cat' or
 * 'Input Dims'): that format carries no shapes even with record_shapes=True. */
int rt_torch_legacy_export(const reader *r);
/* The one warning for such a trace: what it lacks, and what records it. */
void rt_torch_warn_legacy(const reader *r, rt_warnings *w);
/* With by_source: the share of the operators' self time with a source line, and "source
 * unknown" (a line the trace does not know), into the provenance notes. */
void rt_torch_source_notes(const reader *r, rt_profile *p);
/* The notes of the cost model and its coverage into the profile's provenance. */
void rt_torch_cost_notes(const reader *r, rt_profile *p, rt_warnings *w);

/* ---- torch-pyframes.c: torch 2.x's Python frames (with_stack=True) ---- */

/* Keep one python_function event (its times checked). */
void rt_torch_pyframe_add(reader *r, const evf *f);
/* Give each operator without a "Call stack" the source line and nn.Module of the Python frames
 * around it on its thread, as a kernel of its own; warnings into w. Before rt_torch_phases. */
void rt_torch_pyframes_attribute(reader *r, rt_warnings *w);
void rt_torch_pyframes_release(reader *r);

/* ---- torch-backward.c: the backward pass tagged as its forward calls ---- */

/* Keep operator ev_index's sequence number. */
void rt_torch_seq_add(reader *r, size_t ev_index, int64_t seq);
/* src and mod (per event: an interned line and module of py.text, or UINT32_MAX): a backward
 * node and the operators inside it (ending up to `rounding` microseconds after it) take those of
 * the latest forward operator before it with its sequence number. */
void rt_torch_backward_link(reader *r, uint32_t *src, uint32_t *mod, double rounding);

/* ---- torch-kernels.c ---- */

/* Kernel index of key (interned, made when new: a GPU kernel when gpu). */
uint32_t rt_torch_intern(reader *r, const char *key, size_t kl, int gpu);
/* Number of the thread "pid/tid" as an event writes them (made when new). */
uint32_t rt_torch_intern_thread(reader *r, const char *key);

/* ---- torch-phase.c: the phases of a generation loop ---- */

/* Take event `name` as a user's phase mark when it is one (rooftime:phase=NAME): true. */
bool rt_torch_phase_mark(reader *r, const char *name, double ts, double dur);
/* Give every event its phase (from the marks, else from the attention operators' query length
 * when some is one token: a generation loop), each phase's calls a kernel of their own; nothing
 * when the run has neither. Before rt_torch_aggregate. */
void rt_torch_phases(reader *r);
/* How the phases were found (notes "phases"), and the marks left out (warnings). */
void rt_torch_phase_notes(const reader *r, rt_profile *p, rt_warnings *w);
/* The host profile's kernel of name in phase (phase NULL: a kernel of its own, as without phases;
 * else one per name and phase, tagged with it). */
rt_kernel *rt_torch_phase_kernel(rt_profile *p, const char *name, const char *phase);
void rt_torch_phase_release(reader *r);

/* The runner's --steps window (its length, notes.torch_window, and its optimizer steps,
 * notes.steps) into the profile's notes, when the trace has one (torch-notes.c). */
void rt_torch_window_notes(const reader *r, rt_profile *p);

/* Which torch wrote the trace, as it says (notes.torch_version, "unknown" when it names none, and
 * notes.torch_profiler), for the host and the device profile. */
void rt_torch_version_notes(const reader *r, rt_profile *p);

/* ---- torch-aggregate.c ---- */

/* Self time of every operator (its duration minus its direct children's on the same thread) and
 * its FLOPs, over r's events (sorted here); warnings into w. */
void rt_torch_aggregate(reader *r, rt_warnings *w);

#endif
