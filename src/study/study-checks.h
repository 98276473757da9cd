/* Private to the study: the correctness checks and the notes of skipped cases (study-checks.c). */
#ifndef ROOFTIME_STUDY_CHECKS_H
#define ROOFTIME_STUDY_CHECKS_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/study/study-impls.h"
#include "rooftime/study/study-run.h"
#include "rooftime/study/study-shapes.h"

/* Note a skipped case in r->skipped; the passes of one implementation x precision x op that fail
 * for the same reason share one note. */
void rt_study_skip_add(rt_study_result *r, rt_study_impl i, rt_precision pr, rt_study_op op,
                       rt_pass pass, const char *msg);

/* Check every selected implementation x precision x pass of o at a small shape against the
 * reference, adding each check to r; returns the number of failed checks. Cases that cannot be
 * created are noted as skipped (once) and marked in skip, indexed by op, implementation,
 * precision and pass. */
size_t rt_study_checks_run(const rt_study_opts *o, rt_study_result *r, bool *skip);

#endif
