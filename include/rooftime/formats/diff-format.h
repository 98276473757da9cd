/* Two runs side by side, kernel by kernel (diff-format.c): the table of `rooftime diff`, its
 * text and CSV, and the rows `plot --diff` draws. */
#ifndef ROOFTIME_FORMATS_DIFF_FORMAT_H
#define ROOFTIME_FORMATS_DIFF_FORMAT_H

#include <stdbool.h>
#include <stdio.h>

#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/name-index.h"

/* Sources listed per row and side; more are counted. */
#define RT_DIFF_MAX_WHERE 16

/* One key's kernels before and after (summed over the kernels that share the key). */
typedef struct rt_diff_row {
    char *key;
    rt_kernel k[2];
    int seen[2];
    /* Where each side's kernels were called (their 'source' tags: shown, not matched), "; "
     * between them, the first RT_DIFF_MAX_WHERE; NULL when none. n_where counts them all. */
    char *where[2];
    size_t n_where[2];
} rt_diff_row;

typedef struct rt_diff {
    rt_diff_row *r; /* by the largest change in time first, then by key */
    size_t n, cap;
    rt_name_index ix;
    int any_where; /* some kernel has a source line: the table shows a source column */
} rt_diff;

/* True for the tags that say where or which launch a kernel is, not what work it does: the
 * source line, the caller, oneDNN's implementation beside an operator, the process, launch,
 * range, stream and graph ids and the launch call's time. A kernel's identity leaves them out. */
bool rt_diff_tag_locates(const char *key);
/*
 * The key a kernel is matched by, by `by`: "name" (or NULL: its identity, the name normalised
 * and the tags that describe the work, the locating tags left out: rt_diff_tag_locates), "op" (the
 * name up to its first blank) or a tag's value ("(none)" without it). Caller frees.
 */
char *rt_diff_key(const rt_kernel *k, const char *by);
/*
 * Match the kernels of before and after by rt_diff_key. A kernel called from two lines is one
 * row; a script edited so that every line moves matches as it was. Release with rt_diff_release.
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
