/* A profile: the kernels of a run, with time, invocations, FLOPs per unit and bytes per level
 * (profile.c). */
#ifndef ROOFTIME_CORE_PROFILE_H
#define ROOFTIME_CORE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/core/time-spread.h"
#include "rooftime/core/tag-map.h"
#include "rooftime/core/value-map.h"
#include "rooftime/util/error.h"
#include "rooftime/util/rank-identity.h"

#define RT_PROFILE_SCHEMA "rooftime.profile/1"

/* Limits of what a profile holds (docs/limits.md): tags per kernel or profile, bytes of a name. */
#define RT_MAX_TAGS 1024
#define RT_MAX_NAME ((size_t)1 << 20)

typedef struct rt_kernel {
    char *name;
    double invocations;
    double time;     /* seconds, summed over invocations */
    rt_values flops; /* per compute unit */
    rt_values bytes; /* per memory level */
    rt_tags tags;    /* framework, precision, pass, operation, parameters ... */
    /* Time per invocation: median and quartiles where the source timed invocations one by one;
     * n = 0: unknown. */
    rt_time_spread spread;
    /* Per-invocation times not yet turned into spread (rt_profile_finish_spreads); NULL when none.
     * Owned; bounded in size (core/time-spread.h). */
    rt_time_samples *samples;
    /* The launch overhead each of its calls pays on its path, where that is not the profile's
     * (docs/model.md, "The overhead a kernel's calls pay"): one of the machine's overheads by name,
     * at overhead_threads threads (0: the one of that name with the most), or RT_OVERHEAD_NONE
     * (nothing measurable: a plain single-threaded call); NULL: the profile's. Owned. */
    char *overhead;
    int overhead_threads;
    /* The distinct bytes one invocation touches, where its source knows them to be fewer than
     * its bytes per invocation (an in-place update reads and writes one tensor: counted twice in
     * its traffic, held once in a cache); 0: its bytes per invocation. Where estimated bytes are
     * placed (core/byte-placement.c), the working set. */
    double working_set;
} rt_kernel;

void rt_kernel_init(rt_kernel *k, const char *name);
void rt_kernel_release(rt_kernel *k);
/* Add b's invocations, time, FLOPs and bytes into a (tags untouched), and its spread where that
 * stays exact: into an empty a, b's spread or samples are copied; samples on both sides merge;
 * otherwise (a settled spread on either side, or samples on one only) a's spread becomes unknown,
 * since quartiles of two sets do not give the quartiles of their union. An empty a takes b's
 * overhead; calls that pay different overheads pay RT_OVERHEAD_NONE together (no one overhead
 * bounds them all). */
void rt_kernel_accumulate(rt_kernel *a, const rt_kernel *b);
/* Set the overhead k's calls pay (name copied; NULL: the profile's; threads 0: the machine's
 * overhead of that name with the most threads). */
void rt_kernel_set_overhead(rt_kernel *k, const char *name, int threads);
/* Record one invocation's time (seconds) among k's samples; rt_profile_finish_spreads turns the
 * samples into k->spread. */
void rt_kernel_add_sample(rt_kernel *k, double seconds);
/* Record every sample of acc among k's samples. */
void rt_kernel_add_samples(rt_kernel *k, const rt_time_samples *acc);

/* How an importer read its inputs, written beside the kernels (formats/ serializes it). */
typedef struct rt_provenance {
    char **inputs; /* the files read, in order */
    size_t n_inputs;
    double launches;           /* launches or calls seen in the inputs; 0 when unknown */
    rt_tags formulas;          /* quantity -> the formula or column it came from */
    rt_tags notes;             /* other facts: mapping file, ISA, engine, per-config notes ... */
    rt_values kernel_time_sum; /* kernel name -> another reading of its time (ncu: the sum of
                                  per-launch cycles / rate), for comparison */
} rt_provenance;

/* Add a file to the inputs (copied). */
void rt_provenance_add_input(rt_provenance *pv, const char *path);
void rt_provenance_release(rt_provenance *pv);

/* What a profile's times measure (docs/profile-format.md, docs/model.md): device time (Nsight
 * Compute, CUPTI: the kernel alone, launch latency outside it) or wall time per call (oneDNN
 * verbose, the study's timers, PyTorch self time: launch or dispatch cost inside it). Unknown is
 * read as wall time. */
typedef enum rt_time_kind {
    RT_TIME_UNKNOWN = 0,
    RT_TIME_DEVICE,
    RT_TIME_WALL,
} rt_time_kind;

/* "device", "wall" or "unknown"; parse takes the first two (0, or -1 with a message in err). */
const char *rt_time_kind_name(rt_time_kind t);
int rt_time_kind_parse(const char *s, rt_time_kind *out, rt_error *err);

/* What a profile's byte counts are (docs/profile-format.md, "Estimated bytes"): measured per
 * level (counters: Nsight Compute, CUPTI, the papers' tables; taken as recorded), or estimates of
 * the compulsory traffic, each input read once and each output written once (shapes in PyTorch
 * traces, oneDNN descriptors, the study's exact counts), recorded at main memory, which hier mode
 * places at the level that holds each kernel's working set (core/byte-placement.h). A file
 * without the mark is taken as recorded. */
typedef enum rt_bytes_kind {
    RT_BYTES_MEASURED = 0,
    RT_BYTES_ESTIMATED,
} rt_bytes_kind;

/* "measured" or "estimated"; parse takes either (0, or -1 with a message in err). */
const char *rt_bytes_kind_name(rt_bytes_kind b);
int rt_bytes_kind_parse(const char *s, rt_bytes_kind *out, rt_error *err);

/* The most threads a profile may say ran its kernels (source.threads). */
#define RT_MAX_THREADS 16777216

/* A kernel's tag that says its work is of a kind no FLOP or byte count measures (random numbers,
 * sorting, data-dependent indexing: data/torch/ops.json's model "uncounted"); its value is the
 * class ("rng", "sort", "index"). Its verdict is unknown, "unknown (work not counted)". */
#define RT_TAG_UNCOUNTED "uncounted"
/* The class of k's uncounted work, or NULL when its counts measure its work. */
const char *rt_kernel_uncounted(const rt_kernel *k);

/* A kernel's tag that says its FLOPs and bytes are lower bounds: its records tell part of its work
 * (data/torch/ops.json's model "tbe": a table-batched embedding without its rows' widths); its
 * value is "lower_bound". Its bound holds, its class and recoverable time do not: a partial
 * verdict, labelled "(lower bound)". */
#define RT_TAG_COUNTS "counts"
#define RT_COUNTS_LOWER_BOUND "lower_bound"
/* Whether k's counts are lower bounds (tag counts=lower_bound). */
bool rt_kernel_counts_lower_bound(const rt_kernel *k);

/* The overheads rooftime measures and profiles name (rt_profile.overhead). */
#define RT_OVERHEAD_OPENMP "openmp_fork_join"      /* an empty parallel region */
#define RT_OVERHEAD_OPENCL "opencl_enqueue"        /* one enqueue and finish */
#define RT_OVERHEAD_FRAMEWORK "framework_dispatch" /* one empty framework op (PyTorch eager) */
#define RT_OVERHEAD_ONEDNN "onednn_primitive"      /* one execute of a trivial oneDNN primitive */
/* A GPU kernel's launch latency as a PyTorch trace measured it in the run itself (import torch:
 * the profile's notes.overhead_seconds; no machine file measures it) */
#define RT_OVERHEAD_TORCH_GPU "torch_gpu_launch"
/* A kernel's calls pay nothing rooftime measures (rt_kernel.overhead): no parallel region, no
 * dispatch, no primitive execute inside its time. */
#define RT_OVERHEAD_NONE "none"
/* The most threads a kernel's overhead names (rt_kernel.overhead_threads). */
#define RT_OVERHEAD_MAX_THREADS 65536

typedef struct rt_profile {
    char *tool; /* profiler or generator: "ncu", "onednn-verbose", "rooftime-study" ... */
    char *version;
    char *command;          /* the command that was profiled */
    char *machine;          /* the machine it ran on */
    char *method;           /* how the numbers were obtained (free text) */
    rt_time_kind time_kind; /* what its kernel times measure */
    /* The launch overhead its kernels pay, by the name of one of the machine's overheads
     * ("framework_dispatch", "openmp_fork_join" ...); NULL: the machine's tau. */
    char *overhead;
    rt_bytes_kind bytes_kind;   /* what its byte counts are: measured, or estimates to place */
    int threads;                /* the threads that ran its kernels (CPU); 0: unknown */
    rt_tags tags;               /* apply to every kernel */
    rt_rank_identity *identity; /* the rank, host and device that wrote it; NULL when unknown */
    rt_kernel *kernels;
    size_t n_kernels, cap;
    rt_provenance provenance;
    /* Members of a profile file that rooftime does not know (written by another tool or a later
     * version), kept for round trips as JSON text: formats/ parses and writes it, the core never
     * looks inside. NULL when there are none. */
    char *unknown_json;
    /* rt_profile_find_or_add's index: name and tag set -> the last such kernel, over the first
     * n_indexed kernels; owned, NULL until the first call. */
    struct rt_name_index *kernel_ix;
    size_t n_indexed;
    /* Where the kernels' borrowed maps (rt_tags_borrow, rt_values_borrow) and their strings lie:
     * a profile file's reader puts them there, a million kernels' tags in a few large blocks
     * instead of millions of small ones. Owned; NULL when none. */
    struct rt_arena *arena;
} rt_profile;

rt_profile *rt_profile_new(void);
void rt_profile_free(rt_profile *p);
/* Every kernel of p pays the overhead name (NULL: the machine's tau), the paper's one tau per
 * implementation: the profile's overhead set, each kernel's own cleared (what --tau does). */
void rt_profile_set_overhead(rt_profile *p, const char *name);
/* Append a zeroed kernel with this name; the pointer is valid until the next add. */
rt_kernel *rt_profile_add_kernel(rt_profile *p, const char *name);
/* Find a kernel with this name and these tags (the last one added, when several match), or add
 * it. A hash index keeps n calls O(n); it learns kernels added since the last call, so a kernel's
 * name and tags must not change once a call has seen it. */
rt_kernel *rt_profile_find_or_add(rt_profile *p, const char *name, const rt_tags *tags);
/* Every kernel's samples become its spread and are freed (kernels without samples keep theirs).
 * Sources that record samples call it once they are done. */
void rt_profile_finish_spreads(rt_profile *p);

/* Sums over a profile's kernels (profile-sums.c): a value whose sum with the others' overflows,
 * or comes near enough that a product of two such sums would, is an input error (docs/limits.md).
 * Seconds, FLOPs and bytes: each sum (over kernels, units and levels together) at most
 * RT_MAX_SUM; invocations: at most 2^53, the largest count a double holds exactly. */
#define RT_MAX_SUM 1e150
#define RT_MAX_INVOCATIONS 9007199254740992.0
typedef struct rt_profile_sums {
    double time, invocations, flops, bytes;
} rt_profile_sums;
/* Add k's values to s (zeroed first); -1 when one takes its sum past the limit: *field names it
 * ("time", "flops.fp32", ...; valid until k changes) and why says by how much. */
int rt_profile_sums_add(rt_profile_sums *s, const rt_kernel *k, char *field, size_t field_size,
                        rt_error *why);

/* What a profile file can hold: every time, count, FLOP and byte figure finite and >= 0, every
 * spread unknown or consistent (rt_time_spread_check: 0 <= q1 <= median <= q3), the sums within
 * rt_profile_sums_add's limits (names and tags are
 * valid UTF-8 by construction: the setters replace bad bytes with U+FFFD). -1 names the kernel
 * and the field. Every importer's result and every saved profile passes it. */
int rt_profile_check(const rt_profile *p, rt_error *err);

/* True when a and b hold the same kernels (names, counts, times, spreads, FLOPs, bytes, tags, in
 * order) and the same tool, version, command, machine, method, identity and profile tags; otherwise
 * false, with the first difference in why (may be NULL). Round-trip checks use it. */
bool rt_profile_equal(const rt_profile *a, const rt_profile *b, rt_error *why);

#endif
