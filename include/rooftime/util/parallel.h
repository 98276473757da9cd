/* Loops split over this machine's processors (parallel.c): a range of indices cut into one
 * contiguous part per worker, each run on a thread of its own. */
#ifndef ROOFTIME_UTIL_PARALLEL_H
#define ROOFTIME_UTIL_PARALLEL_H

#include <stddef.h>
#include <stdio.h>

/* The most workers rt_parallel_for uses. */
#define RT_PARALLEL_MAX 16

/* Work on indices [begin, end) as worker `worker` (0 .. workers - 1; parts in order: worker w's
 * indices all come before worker w + 1's). */
typedef void (*rt_parallel_fn)(void *ctx, size_t begin, size_t end, size_t worker);

/* How many workers rt_parallel_for(n, min_part, ...) uses: one per online processor, at most
 * RT_PARALLEL_MAX, none with fewer than min_part indices; at least 1. Callers size per-worker
 * state (warnings, counts) with it and merge it in worker order, which is index order: a result
 * never depends on how many workers there were. */
size_t rt_parallel_workers(size_t n, size_t min_part);
/* Run fn over [0, n) in rt_parallel_workers(n, min_part) contiguous parts, the first on the
 * calling thread, the others on threads of their own (on the calling thread too where a thread
 * cannot start); returns when all are done. fn must write nothing another part reads. */
void rt_parallel_for(size_t n, size_t min_part, rt_parallel_fn fn, void *ctx);

/* Write elements [begin, end) to out, a stream of the worker's own; 0, or -1 on an error. */
typedef int (*rt_parallel_write_fn)(void *ctx, size_t begin, size_t end, FILE *out);
/* Elements 0 .. n - 1 written to fp in order, formatted on the workers in rounds of about `block`
 * elements each (a round's text is held in memory, then written): the long outputs of a million
 * kernels (text tables, CSV, JSON) on every processor. Returns 0, or -1 when a part or a write
 * failed (what was written stays). */
int rt_parallel_write(FILE *fp, size_t n, size_t block, rt_parallel_write_fn fn, void *ctx);

#endif
