/* The regression gate of `diff --gate` (diff-gate.c judges, diff-gate-line.c and diff-gate-write.c
 * write): is AFTER worse than BEFORE beyond noise? Each side is one run or several runs of one
 * workload. */
#ifndef ROOFTIME_FORMATS_DIFF_GATE_H
#define ROOFTIME_FORMATS_DIFF_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"

/* The defaults (docs/ci-gate.md). */
#define RT_GATE_DEFAULT_THRESHOLD 0.05 /* slower by more than 5% beyond noise fails */
#define RT_GATE_DEFAULT_MIN_SHARE 0.01 /* kernels and configs judged alone from 1% of the time */
#define RT_GATE_DEFAULT_LAUNCHES 0.5   /* more launches per step than this more fails */

typedef struct rt_gate_opts {
    double threshold; /* a fraction */
    double min_share; /* a fraction of the larger side's time */
    double launches;  /* launches per step (per run where the profiles record no steps) */
    bool strict; /* a change past the threshold whose noise is unknown fails: a spread unknown, or
                  * beyond the spread within a run with one run on a side */
    bool other_machine, suspect_machine; /* judge anyway */
    const rt_machine *m;                 /* NULL: no verdicts, no efficiency check */
    rt_mode mode;
    const char *by; /* how kernels match (rt_diff_key); NULL: by name */
} rt_gate_opts;

typedef enum rt_gate_state {
    RT_GATE_FAIL = 0, /* worse beyond noise */
    RT_GATE_UNJUDGED, /* past the threshold, but its noise is unknown (rt_gate_row.one_run) */
    RT_GATE_PASS,
} rt_gate_state;

typedef enum rt_gate_check {
    RT_GATE_TIME = 0,   /* seconds per run */
    RT_GATE_EFFICIENCY, /* its roof's time over its time, on the one machine */
    RT_GATE_LAUNCHES,   /* launches per step */
} rt_gate_check;

typedef enum rt_gate_subject {
    RT_GATE_KERNEL = 0,
    RT_GATE_CONFIG, /* the kernels of one set of work tags */
    RT_GATE_TOTAL,
} rt_gate_subject;

/* One thing the gate judged. */
typedef struct rt_gate_row {
    rt_gate_check check;
    rt_gate_subject subject;
    rt_gate_state state;
    char *name;           /* the kernel's key, the config's tags, "total" */
    char *where;          /* where the kernel was called (AFTER's first source line), or NULL */
    double before, after; /* the means over each side's runs */
    double ratio;         /* after / before */
    double margin; /* time: after's band's low end over before's high end; efficiency: before's
                    * low end over after's high end; launches: the change per step */
    bool one_run;  /* beyond the spread within a run, with one run on a side: the noise between
                    * runs unmeasured, so unjudged (failed under --strict) */
    char *detail;  /* launches: the kernels whose launches rose most; else NULL */
    char *line;    /* the row in one line, as `diff --gate` prints it */
} rt_gate_row;

typedef struct rt_gate {
    rt_gate_opts o;
    size_t runs[2];
    bool per_step;     /* launches counted per step: every run records its steps (notes.steps) */
    char *refused;     /* why the gate did not judge (different or suspect machines); NULL */
    rt_gate_row *rows; /* failing first, then unjudged, then passing; each in order of margin */
    size_t n, cap;
    size_t n_fail, n_unjudged;
    char **notes; /* what the reader should know beside the rows */
    size_t n_notes;
} rt_gate;

/*
 * Judge after[0..na) against before[0..nb) (each at least one run). 0; a refusal is a result
 * (g->refused), not an error. Release with rt_gate_release.
 */
int rt_gate_judge(rt_gate *g, const rt_profile *const *before, size_t nb,
                  const rt_profile *const *after, size_t na, const rt_gate_opts *o);
void rt_gate_release(rt_gate *g);
/* 1 when the gate fails or refused (the command's exit status), else 0. */
int rt_gate_status(const rt_gate *g);

/* The mean of several runs as one profile, for the table: each kernel's time, invocations, FLOPs
 * and bytes over the runs divided by their number (a spread only for one run). Caller frees. */
rt_profile *rt_gate_mean_profile(const rt_profile *const *runs, size_t n);

/* What `diff --gate` prints before its table: the failing rows, one line each, the unjudged
 * ones, the notes; rt_gate_write_verdict: the closing line. */
int rt_gate_write_rows(const rt_gate *g, FILE *fp);
int rt_gate_write_verdict(const rt_gate *g, FILE *fp);
/* All that `diff --gate` prints: the rows (rt_gate_write_rows), a blank line, diff's table of the
 * two sides (the runs, or each side's mean: rt_gate_mean_profile) unless the gate refused, and
 * the verdict (rt_gate_write_verdict). */
int rt_gate_write_report(const rt_gate *g, const rt_profile *const *before,
                         const rt_profile *const *after, size_t top, FILE *fp);
/* JUnit XML: one test case per row (failure, skipped for unjudged), an error for a refusal. */
int rt_gate_write_junit(const rt_gate *g, FILE *fp);
/* A Markdown summary for a CI system's page: the verdict, the failing and unjudged rows as a
 * table, the notes. */
int rt_gate_write_markdown(const rt_gate *g, FILE *fp);
/* CSV of the rows in state `only` (or every row when only < 0): state, check, subject, name,
 * source, before, after, ratio, margin, line. */
int rt_gate_write_csv(const rt_gate *g, int only, FILE *fp);

#endif
