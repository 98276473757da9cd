/* Who a process is in a parallel job: rank, local rank and size as the launcher set them, the host
 * and the device (rank-identity.c). */
#ifndef ROOFTIME_UTIL_RANK_IDENTITY_H
#define ROOFTIME_UTIL_RANK_IDENTITY_H

#include <stdbool.h>

#include "rooftime/util/error.h"

/* The largest rank, local rank or job size accepted from a launcher or a file. */
#define RT_MAX_RANKS 100000000L

typedef struct rt_rank_identity {
    char *launcher;  /* "openmpi", "pmi", "slurm", "torchrun"; NULL when no launcher was found */
    long rank;       /* -1 when unknown */
    long local_rank; /* rank within the node; -1 when unknown */
    long size;       /* ranks in the job; -1 when unknown */
    char *host;      /* NULL when unknown */
    char *device;    /* the device the launcher gave the process ("cuda:0", ...); NULL when none */
} rt_rank_identity;

/* Nothing known: numbers -1, strings NULL. */
void rt_rank_identity_init(rt_rank_identity *id);
void rt_rank_identity_release(rt_rank_identity *id);
/* A heap copy of src (NULL stays NULL). */
rt_rank_identity *rt_rank_identity_dup(const rt_rank_identity *src);
void rt_rank_identity_free(rt_rank_identity *id);
/* The identity a file gets when this process (process, may be NULL) writes it: process's; where
 * the file already names its own (own, freed here: a PyTorch trace's distributedInfo), its rank,
 * size and device, with this process's host and launcher only when it is that rank. */
rt_rank_identity *rt_rank_identity_stamp(rt_rank_identity *own, const rt_rank_identity *process);
bool rt_rank_identity_equal(const rt_rank_identity *a, const rt_rank_identity *b);

/*
 * Read this process's identity from its environment: the first launcher whose rank variable is set
 * (Open MPI OMPI_COMM_WORLD_RANK/_LOCAL_RANK/_SIZE, PMI PMI_RANK/PMI_SIZE (MPICH, Intel MPI),
 * Slurm SLURM_PROCID/SLURM_LOCALID/SLURM_NTASKS, torchrun RANK/LOCAL_RANK/WORLD_SIZE), the host
 * name, and the device from CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES or
 * ZE_AFFINITY_MASK. -1 naming the variable when one holds something other than a whole number in
 * range (or a rank not below the size).
 */
int rt_rank_identity_read(rt_rank_identity *id, rt_error *err);

#endif
