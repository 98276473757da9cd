/* Names in the study's findings (study-names.c): a small set of strings, an operator's base name,
 * a config's series. */
#ifndef ROOFTIME_STUDY_NAMES_H
#define ROOFTIME_STUDY_NAMES_H

#include <stddef.h>

#include "rooftime/core/tag-map.h"

/* A small set of strings, insertion-ordered. */
typedef struct rt_study_strset {
    char **v;
    size_t n;
} rt_study_strset;

/* The index of x in s, added (a copy) when new. */
size_t rt_study_strset_add(rt_study_strset *s, const char *x);
void rt_study_strset_release(rt_study_strset *s);
/* An operator's name without the input shapes torch's traces append ("aten::mm [[2,3],[3,4]]"). */
void rt_study_base_name(const char *name, char *buf, size_t n);

/* "onednn" or "pytorch graphs": the implementation and its variant (the GPU study's). */
void rt_study_impl_of(const rt_tags *t, char *buf, size_t n);
/* "pytorch graphs fp16 lstm forward": the profile a config belongs to, the findings' series. */
void rt_study_series_of(const rt_tags *t, char *buf, size_t n);

#endif
