/* The unit each PyTorch operator of the study ran on (study-torch-units.c): the client's oneDNN
 * verbose output of an untimed pass per point, joined to that point's trace. */
#ifndef ROOFTIME_STUDY_TORCH_UNITS_H
#define ROOFTIME_STUDY_TORCH_UNITS_H

#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

typedef struct rt_torch_units rt_torch_units;

/* One per client run: oneDNN prints its version, CPU and header lines once per process, in the
 * first point's output, and every later point is read as its continuation. */
rt_torch_units *rt_torch_units_new(void);
void rt_torch_units_free(rt_torch_units *u);

/* Point `what`'s oneDNN verbose output (the file log) joined to its profile p
 * (rt_torch_join_onednn): each operator that ran a primitive takes the primitive's unit and
 * overhead. A log without execution records joins nothing (torch ran no primitive, or has no
 * verbose switch) and is counted. 0, or -1 with err set when log cannot be read. */
int rt_torch_units_join(rt_torch_units *u, const char *log, const char *what, rt_profile *p,
                        rt_error *err);

/* What the joins found, as notes of the sweep's profile: "onednn_units" (operators joined, the
 * units their implementations gave, points without records) and "onednn_units_warnings" (what
 * the oneDNN import said of units it could not take from an implementation). */
void rt_torch_units_note(const rt_torch_units *u, rt_profile *prof);

#endif
