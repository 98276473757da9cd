/* `mpirun -np N rooftime analyze --across rank --mpi FILES...|DIR`: each rank folds every N-th
 * file, then the partial folds are merged up a binary tree (rank r + s into rank r), so no rank
 * holds more than its own fold and one received; rank 0 finishes and writes. Compiled only with
 * ROOFTIME_MPI. */
#include <jansson.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "cli-across.h"
#include "cli-mpi.h"
#include "commands.h"
#include "rooftime/core/across.h"
#include "rooftime/formats/across-state.h"
#include "rooftime/util/error.h"

/* Send a's state to rank `to` (length first). */
static void send_state(const rt_across *a, int to)
{
    json_t *j = rt_across_state_to_json(a);
    char *text = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(j);
    uint64_t len = text ? strlen(text) : 0;
    MPI_Send(&len, 1, MPI_UINT64_T, to, 1, MPI_COMM_WORLD);
    /* In pieces of at most 1 GiB: MPI counts are ints. */
    for (uint64_t at = 0; at < len; at += 1u << 30) {
        uint64_t n = len - at < (1u << 30) ? len - at : (1u << 30);
        MPI_Send(text + at, (int)n, MPI_CHAR, to, 2, MPI_COMM_WORLD);
    }
    free(text);
}

/* Receive a state from rank `from` and merge it into a; -1 after printing the error. */
static int merge_from(rt_across *a, int from)
{
    uint64_t len = 0;
    MPI_Recv(&len, 1, MPI_UINT64_T, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    char *text = malloc(len + 1);
    if (!text) {
        cli_error("out of memory for the fold of rank %d", from);
        return -1;
    }
    for (uint64_t at = 0; at < len; at += 1u << 30) {
        uint64_t n = len - at < (1u << 30) ? len - at : (1u << 30);
        MPI_Recv(text + at, (int)n, MPI_CHAR, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    text[len] = '\0';
    json_error_t je;
    json_t *j = json_loadb(text, len, JSON_ALLOW_NUL, &je);
    free(text);
    rt_across *b = NULL;
    rt_error err;
    char origin[64];
    snprintf(origin, sizeof origin, "the fold of MPI rank %d", from);
    int rc = -1;
    if (!j)
        rt_error_set(&err, "%s: %s", origin, je.text);
    else if (rt_across_state_from_json(j, RT_JSON_NAMED(origin), &b, &err) == 0 &&
             rt_across_merge(a, b, &err) == 0)
        rc = 0;
    if (rc != 0)
        cli_error("%s", err.msg);
    json_decref(j);
    rt_across_free(b);
    return rc;
}

int cli_across_mpi(char *const *paths, size_t n, const rt_across_opts *ao, const cli_across_opts *o)
{
    int inited = 0, rank, size;
    MPI_Initialized(&inited);
    if (!inited)
        MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rt_across *a = rt_across_new(ao);
    int bad = cli_across_fold(paths, n, (size_t)rank, (size_t)size, a) != 0, any_bad = 0;
    /* Every rank learns whether one failed (it printed why) before the reduction starts. */
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int rc = RT_EXIT_FAIL;
    if (!any_bad) {
        bad = 0;
        for (int step = 1; step < size; step *= 2) {
            if (rank % (2 * step) == step) {
                send_state(a, rank - step);
                break;
            }
            if (rank % (2 * step) == 0 && rank + step < size)
                bad |= merge_from(a, rank + step) != 0;
        }
        MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (rank == 0 && !any_bad) {
            rt_across_finish(a);
            rc = cli_across_write(a, o, paths, n);
            fprintf(stderr, "rooftime: analyze: %zu profiles folded by %d MPI ranks\n",
                    a->n_profiles, size);
        }
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (any_bad)
            rc = RT_EXIT_FAIL;
    }
    rt_across_free(a);
    MPI_Finalize();
    return rc;
}
