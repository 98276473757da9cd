/* The overhead a kernel's calls pay on their path (overhead-path.c): the floor under a wall time,
 * per kernel (docs/model.md, "The overhead a kernel's calls pay"). The overhead box, which
 * classifies, keeps the implementation's tau (the paper's); the floor, which bounds, is what the
 * calls pay: a parallel region at its thread count, a framework's dispatch, a oneDNN primitive
 * execute, or nothing measurable. */
#ifndef ROOFTIME_CORE_OVERHEAD_PATH_H
#define ROOFTIME_CORE_OVERHEAD_PATH_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"

/* The machine's overhead of this name (case-insensitive) at this many threads: one that names no
 * threads, else the one with the most threads not above `threads` (a region of fewer threads
 * costs no more); threads 0: the one with the most. NULL when there is none. */
const rt_overhead *rt_overhead_at(const rt_machine *m, const char *name, int threads);

/* What a call that pays o pays at the least: its fastest trial (the machine file's min), else its
 * median. Contention only ever lengthens a latency, so on a busy machine the median reads high,
 * and a floor must not: a bound a call beats is not a bound. (The box keeps the median, the
 * paper's tau.) */
double rt_overhead_floor(const rt_overhead *o);

/* ctx (the profile's) for kernel k: where k names its own overhead, what its calls pay, found on
 * m (RT_PAID_OVERHEAD, its floor), nothing (RT_PAID_NONE), or an overhead m has not measured
 * (RT_PAID_UNMEASURED: no floor); else ctx is left as it is. */
void rt_overhead_path_resolve(const rt_machine *m, const rt_kernel *k, rt_verdict_ctx *ctx);

/* A config's ctx from its members' (in member order, first true for the first): the paid
 * seconds per invocation weighted by the members' invocations n (*n_paid accumulates n x paid),
 * the path the members share, else RT_PAID_MIXED. */
void rt_overhead_path_merge(rt_verdict_ctx *acc, const rt_verdict_ctx *member, double n, bool first,
                            double *n_paid);

/* v's t_paid and what it names, from ctx (model.c calls it; device time pays nothing). */
void rt_verdict_paid(const rt_verdict_ctx *ctx, bool device, rt_verdict *v);

/* The overhead v's calls pay, for a table: "openmp_fork_join(2 threads)", "none", "mixed",
 * "framework_dispatch", "tau" (the machine's). Returns buf. */
const char *rt_verdict_paid_label(const rt_verdict *v, char *buf, size_t n);

/* The same with its time per call, for a message: "openmp_fork_join(2 threads) 0.836 µs",
 * "tau = 4.2 µs". */
void rt_verdict_paid_text(const rt_verdict_ctx *ctx, const rt_verdict *v, char *buf, size_t n);

/* After the items' verdicts, in item order: whether a kernel names its own overhead
 * (a->own_paths), and one warning per overhead a kernel pays that the machine has not measured. */
struct rt_analysis;
void rt_overhead_path_note(struct rt_analysis *a);

#endif
