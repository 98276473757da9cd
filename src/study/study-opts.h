/* The iterations the study runs (study-opts.c, with the options' defaults and validation). */
#ifndef ROOFTIME_STUDY_OPTS_H
#define ROOFTIME_STUDY_OPTS_H

#include "rooftime/study/study-run.h"
#include "rooftime/study/study-shapes.h"

/* Warm-up and measured iterations of conv2d's and lstm's configs: --warmup and --iters, else 5 and
 * 20 (1 and 3 with --quick). */
int rt_study_warmup(const rt_study_opts *o);
int rt_study_iters(const rt_study_opts *o);
/* The same for op's configs: the transformer ops' full sweep has its own (RT_STUDY_XF_WARMUP,
 * RT_STUDY_XF_ITERS). */
int rt_study_op_warmup(const rt_study_opts *o, rt_study_op op);
int rt_study_op_iters(const rt_study_opts *o, rt_study_op op);

#endif
