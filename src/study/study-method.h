/* The method text of the study's profiles (study-method.c): how they were timed and counted. */
#ifndef ROOFTIME_STUDY_METHOD_H
#define ROOFTIME_STUDY_METHOD_H

#include <stdbool.h>
#include <stddef.h>

/* The C and oneDNN implementations' profiles; direct: the correctness reference's. Heap string. */
char *rt_study_method_text(int warmup, int iters, bool direct);
/* The PyTorch client's profiles: threads 0 for OMP_NUM_THREADS; npts of nall sweep points. */
char *rt_study_torch_method_text(int warmup, int iters, int threads, const char *python,
                                 const char *script, size_t npts, size_t nall);

#endif
