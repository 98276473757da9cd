/* Two runs side by side, kernel by kernel (diff-format.c): the table of `rooftime diff`, its
 * text and CSV, and the rows `plot --diff` draws. */
#ifndef ROOFTIME_FORMATS_DIFF_FORMAT_H
#define ROOFTIME_FORMATS_DIFF_FORMAT_H

#include <stdio.h>

#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/name-index.h"

/* One key's kernels before and after (summed over the kernels that share the key). */
typedef struct rt_diff_row {
    char *key;
    rt_kernel k[2];
    int seen[2];
} rt_diff_row;

typedef struct rt_diff {
    rt_diff_row *r; /* by the largest change in time first, then by key */
    size_t n, cap;
    rt_name_index ix;
} rt_diff;

/*
 * Match the kernels of before and after by `by`: "name" (or NULL: the name and tags but 'caller'
 * and 'onednn', which only annotate), "op" (the name up to its first blank) or a tag's value.
 * Release with rt_diff_release.
 */
void rt_diff_build(rt_diff *d, const rt_profile *before, const rt_profile *after, const char *by);
void rt_diff_release(rt_diff *d);
/* A row's change in time, after - before (a side it is missing from counts 0). */
double rt_diff_delta(const rt_diff_row *r);

/* What rt_diff_write prints: m NULL for no verdicts; top rows in text, the rest summed in one
 * (every row in CSV). */
typedef struct rt_diff_opts {
    const rt_machine *m;
    rt_mode mode;
    const char *by;
    size_t top;
    int csv;
} rt_diff_opts;
/* The table as `rooftime diff` prints it; ps are the two profiles d was built from (their time
 * kind and launch overhead for the verdicts). 0, or -1 when writing failed. */
int rt_diff_write(const rt_diff *d, const rt_profile *const ps[2], const rt_diff_opts *o, FILE *fp);

#endif
