/* What a profile explains of the run it came from (coverage.c): the share of the command's wall
 * time, or of the profiled steps, that its kernels' time accounts for. `profile --torch` records
 * the wall time; `analyze` and the report say the same figure from here. */
#ifndef ROOFTIME_CORE_COVERAGE_H
#define ROOFTIME_CORE_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/core/profile.h"

typedef struct rt_wall_coverage {
    double kernels; /* the kernels' time, seconds */
    double span;    /* what it is a share of, seconds: the profiled steps, else the command */
    bool steps;     /* span is the --steps window (notes.torch_window) */
    bool device;    /* the kernels' time is device time (a GPU run's device profile) */
} rt_wall_coverage;

/* A note of p holding a finite number >= 0 (seconds: command_wall_time, torch_window,
 * overhead_seconds ...); -1 when absent or not one. */
double rt_profile_note_seconds(const rt_profile *p, const char *key);

/* From p's notes command_wall_time and torch_window and its kernels' time; -1 when p recorded no
 * wall time. */
int rt_profile_wall_coverage(const rt_profile *p, rt_wall_coverage *out);

/* The figure in words into buf: "operator self time 1.82 s is 27.3% of the command's wall time
 * 6.67 s; the rest is outside any operator (Python, data loading, start-up, the profiler)". */
void rt_wall_coverage_text(const rt_wall_coverage *c, char *buf, size_t n);

/* What the cost model covered (note torch_coverage, or a GPU trace's device profile's
 * torch_device_coverage) and which torch wrote the trace (note torch_version) in words into buf:
 * "operator self time 36.3 ms: 84.6% with FLOPs or bytes, ...; written by torch 2.15.0+cu132";
 * -1 (buf untouched) when p has neither coverage note. */
int rt_cost_coverage_text(const rt_profile *p, char *buf, size_t n);

/* Record the run p came from: the command that ran (its text, made valid UTF-8) and its wall
 * time in seconds (note command_wall_time), then the coverage that gives in words (note
 * torch_wall_coverage), also written into buf. What `profile --torch` and the Python package's
 * in-process profile record alike. */
void rt_profile_note_run(rt_profile *p, const char *command, double wall, char *buf, size_t n);

#endif
