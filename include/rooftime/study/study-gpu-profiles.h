/* The GPU study's profiles from the collector's (study-gpu-profiles.c): the trace run's times and
 * the counter run's FLOPs and bytes per invocation joined by kernel and tags, warm-up dropped,
 * split into one profile per implementation x precision x operation x pass x variant. */
#ifndef ROOFTIME_STUDY_STUDY_GPU_PROFILES_H
#define ROOFTIME_STUDY_STUDY_GPU_PROFILES_H

#include <stddef.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

/* The tags a GPU study kernel keeps (the marks' configuration tags); the others are dropped. */
const char *const *rt_study_gpu_kept_tags(size_t *n);

/*
 * Join one client's trace profile (times) and counter profile (FLOPs and bytes; NULL when the
 * counter run did not run) into profiles split per implementation x precision x operation x pass
 * x variant, appended to *profiles (n_profiles grows). Kernels without an implementation or pass
 * tag (before the first mark, after an empty one) and warm-up kernels (pass=warmup) are dropped;
 * a kernel's FLOPs and bytes are the counter run's per invocation for the same kernel name and
 * tags, times the trace's invocations (the counter run samples fewer iterations). A kernel that
 * finds none there takes them from `eager` (may be NULL): the counter run of the same client
 * without CUDA Graphs, matched ignoring the variant tag, since the Range Profiler sees a graph
 * launch as one unnamed range. What finds no counters, and what took the eager run's, is counted
 * into w. what names the client ("pytorch-conv2d-fp16").
 */
int rt_study_gpu_join(const rt_profile *trace, const rt_profile *counters, const rt_profile *eager,
                      const char *what, rt_profile ***profiles, size_t *n_profiles, rt_warnings *w,
                      rt_error *err);

/* How the GPU study groups kernels into configs and families (the CPU study's keys and variant). */
const rt_group_opts *rt_study_gpu_group_opts(void);

#endif
