/* A job's ceilings (job.c): what every rank measured alone and with the rest of its node, per
 * figure (a compute unit's FLOP/s or a memory level's bytes/s), the node totals, their spread, and
 * the ranks and nodes more than a set fraction below the median. */
#ifndef ROOFTIME_CORE_JOB_H
#define ROOFTIME_CORE_JOB_H

#include <stddef.h>

#include "rooftime/core/measurement.h"

typedef struct rt_job_rank {
    long rank, node, local_rank;
    char *host;
    double *alone;    /* per figure: measured while the rest of its node waited; 0 unknown */
    double *together; /* per figure: measured with every rank of its node at once */
} rt_job_rank;

typedef struct rt_job_node {
    char *host;
    size_t n_ranks;
    double *together; /* per figure: the sum over its ranks measured at once (shared ceilings) */
    double *alone;    /* per figure: the sum of its ranks measured alone (no contention) */
} rt_job_node;

/* A figure more than `fraction` below the median of its peers. */
typedef struct rt_job_slow {
    int node; /* 0: a rank (alone figures), 1: a node (together totals) */
    long who; /* rank or node index */
    size_t figure;
    double value, median;
} rt_job_slow;

typedef struct rt_job {
    char **figures; /* "fp64", "DRAM" ... */
    int *is_level;  /* 1: bytes/s of a memory level, 0: FLOP/s of a unit */
    size_t n_figures;
    double fraction; /* slow: below (1 - fraction) x median */
    rt_job_rank *ranks;
    size_t n_ranks;
    rt_job_node *nodes;
    size_t n_nodes;
    /* Set by rt_job_summarize: per figure, over ranks (alone) and over nodes (together). */
    rt_spread *rank_spread, *node_spread;
    double *contention; /* per figure: median over ranks of together / alone */
    rt_job_slow *slow;
    size_t n_slow;
} rt_job;

rt_job *rt_job_new(const char *const *figures, const int *is_level, size_t n, double fraction);
void rt_job_free(rt_job *j);
/* Add a rank (values copied; node is an index, nodes grow to hold it). */
void rt_job_add_rank(rt_job *j, long rank, long node, long local_rank, const char *host,
                     const double *alone, const double *together);
/* Node totals, spreads, contention and the slow ranks and nodes. */
void rt_job_summarize(rt_job *j);

#endif
