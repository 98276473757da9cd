/* What the API's files share: the per-thread error and warnings. */
#ifndef ROOFTIME_API_INTERNAL_H
#define ROOFTIME_API_INTERNAL_H

#include "rooftime/util/error.h"

/* Set this thread's error message (printf-style). */
void api_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Keep w's messages as this thread's warnings (replacing the last call's); w stays the caller's. */
void api_keep_warnings(const rt_warnings *w);
/* Clear the error and warnings at the start of a call. */
void api_begin(void);
/* A heap string of everything fn wrote to a memory stream, or NULL (error set) when it failed. */
#include <stdio.h>
typedef int (*api_writer)(void *ctx, FILE *fp, rt_error *err);
char *api_capture(api_writer fn, void *ctx);

/* The analysis the tables show (`analyze`'s: the mode given, else hier), computed on first use;
 * NULL with the error set (api-analysis.c). */
#include "rooftime/api/api.h"
#include "rooftime/core/analysis.h"
rt_analysis *api_analysis_for_tables(rt_api_analysis *a);

/* The summary and callouts of an analysis as a JSON array of blocks (api-findings.c). */
#include "rooftime/core/analysis.h"
char *api_findings_json(const rt_analysis *an);

/* Copies through JSON, for options that change them (api-analysis.c); NULL with the error set. */
#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"
rt_machine *api_copy_machine(const rt_machine *m);
rt_profile *api_copy_profile(const rt_profile *p);

/* This process's rank, host and device, as the commands stamp on what they write (the launcher's
 * variables, read on each call); NULL with the error set when one holds a bad value. */
#include "rooftime/util/rank-identity.h"
rt_rank_identity *api_identity(void);

/* librooftime-cupti.so, found as `profile --gpu` finds it: $ROOFTIME_CUPTI_LIB, else beside
 * librooftime.so; a realpath to free, or NULL with the error set (api-gpu.c). */
char *api_find_cupti_lib(void);

#endif
