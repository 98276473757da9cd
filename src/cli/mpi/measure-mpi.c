/* `mpirun -np N rooftime machine measure --mpi -o job.json`: every rank measured alone on its node
 * (one local rank at a time, all nodes at once), then every rank of every node at once; rank 0
 * gathers the figures and writes one machine file whose "job" member holds them, their spread and
 * the ranks and nodes more than a set fraction below the median. Compiled only with ROOFTIME_MPI.
 */
#include <jansson.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli-mpi.h"
#include "cli-output.h"
#include "commands.h"
#include "rooftime/core/job.h"
#include "rooftime/core/machine.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/probe/measure-machine.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

#define HOST_MAX 256

/* The figure list of rank 0's machine, "u:fp64\nl:DRAM\n...", broadcast to every rank. */
static char *figure_list(const rt_machine *m, int rank)
{
    char *s = NULL;
    int len = 0;
    if (rank == 0) {
        size_t cap = 1;
        for (size_t i = 0; i < m->n_units; i++)
            cap += strlen(m->units[i].name) + 3;
        for (size_t i = 0; i < m->n_levels; i++)
            cap += strlen(m->levels[i].name) + 3;
        s = rt_xcalloc(cap, 1);
        for (size_t i = 0; i < m->n_units; i++)
            strcat(strcat(strcat(s, "u:"), m->units[i].name), "\n");
        for (size_t i = 0; i < m->n_levels; i++)
            strcat(strcat(strcat(s, "l:"), m->levels[i].name), "\n");
        len = (int)strlen(s) + 1;
    }
    MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank != 0)
        s = rt_xcalloc((size_t)len + 1, 1);
    MPI_Bcast(s, len, MPI_CHAR, 0, MPI_COMM_WORLD);
    return s;
}

/* Split "u:fp64\nl:DRAM\n" into names and kinds (pointers into s). */
static size_t parse_figures(char *s, char ***names, int **is_level)
{
    size_t n = 0;
    for (char *c = s; *c; c++)
        n += *c == '\n';
    *names = rt_xcalloc(n + 1, sizeof **names);
    *is_level = rt_xcalloc(n + 1, sizeof **is_level);
    size_t i = 0;
    for (char *line = strtok(s, "\n"); line && i < n; line = strtok(NULL, "\n"), i++) {
        (*is_level)[i] = line[0] == 'l';
        (*names)[i] = line + 2;
    }
    return i;
}

/* This rank's value of each figure in m (0 when m lacks it). */
static void values_of(const rt_machine *m, char **names, const int *is_level, size_t n, double *v)
{
    for (size_t f = 0; f < n; f++) {
        const rt_unit *u = m && !is_level[f] ? rt_machine_unit(m, names[f]) : NULL;
        const rt_level *l = m && is_level[f] ? rt_machine_level(m, names[f]) : NULL;
        v[f] = u ? u->flops : l ? l->bytes_per_s : 0;
    }
}

/* A barrier that sleeps while it waits: a waiting rank must not take the CPU from the rank being
 * measured (Open MPI's MPI_Barrier polls). */
static void quiet_barrier(void)
{
    MPI_Request req;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    while (MPI_Test(&req, &done, MPI_STATUS_IGNORE), !done)
        nanosleep(&(struct timespec){0, 2000000}, NULL);
}

/* Measure with every rank that runs it; 0 or -1 (the error printed by the rank that failed). */
static int measure(const rt_measure_opts *mo, rt_machine **out, int print_skipped)
{
    rt_error err;
    rt_warnings skipped = {0};
    int rc = rt_machine_measure(mo, out, &skipped, &err);
    for (size_t i = 0; print_skipped && i < skipped.n; i++)
        fprintf(stderr, "rooftime: skipped: %s\n", skipped.msg[i]);
    rt_warnings_release(&skipped);
    if (rc != 0)
        cli_error("measurement failed: %s", err.msg);
    return rc;
}

static void print_summary(const rt_job *j, const char *output)
{
    printf("wrote %s: %zu ranks on %zu nodes\n", output ? output : "standard output", j->n_ranks,
           j->n_nodes);
    for (size_t f = 0; f < j->n_figures; f++) {
        const char *u = j->is_level[f] ? "GB/s" : "GFLOP/s";
        printf("  %-9s rank alone %10.4g %s [%.4g .. %.4g]   node together %10.4g %s   "
               "contention %.2f\n",
               j->figures[f], j->rank_spread[f].median / 1e9, u, j->rank_spread[f].min / 1e9,
               j->rank_spread[f].max / 1e9, j->node_spread[f].median / 1e9, u, j->contention[f]);
    }
    for (size_t i = 0; i < j->n_slow; i++) {
        const rt_job_slow *s = &j->slow[i];
        printf("  slow: %s %ld: %s %.4g, %.1f%% below the median %.4g\n", s->node ? "node" : "rank",
               s->who, j->figures[s->figure], s->value / 1e9, (1 - s->value / s->median) * 100,
               s->median / 1e9);
    }
    if (j->n_slow == 0)
        printf("  no rank or node more than %.4g%% below the median\n", j->fraction * 100);
}

int cli_machine_measure_mpi(const rt_measure_opts *opts, const char *output, double fraction)
{
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited)
        MPI_Init(NULL, NULL);
    int rank, size, local, local_size, max_local;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_size(node, &local_size);
    MPI_Allreduce(&local_size, &max_local, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    /* Nodes numbered by their first rank: a node's index counts the leaders before it. */
    int leader = rank, is_leader = local == 0, node_index = 0;
    MPI_Bcast(&leader, 1, MPI_INT, 0, node);
    int *leaders = rt_xcalloc((size_t)size, sizeof *leaders);
    MPI_Allgather(&is_leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < leader; r++)
        node_index += leaders[r];
    free(leaders);
    char host[HOST_MAX] = "";
    int hl = 0;
    MPI_Get_processor_name(host, &hl);

    /* Rank 0 opens the output before any measuring; everyone learns whether it could. */
    cli_output out = {0};
    int rc = 0;
    if (rank == 0)
        rc = cli_output_open(&out, "machine", output, NULL, 0);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != 0) {
        MPI_Comm_free(&node);
        MPI_Finalize();
        return rc;
    }
    rt_measure_opts mo = *opts;
    mo.progress = NULL;
    rt_machine *alone = NULL, *together = NULL;
    int bad = 0, any_bad = 0;
    /* Alone: one local rank of every node at a time, the others waiting. */
    for (int l = 0; l < max_local; l++) {
        quiet_barrier();
        if (local == l)
            bad |= measure(&mo, &alone, rank == 0) != 0;
    }
    /* Together: every rank at once, so each node's ranks share its cores, caches and memory. */
    quiet_barrier();
    mo.no_pin = 1; /* pinned, every rank of a node would pin to its first CPUs */
    if (!bad)
        bad |= measure(&mo, &together, 0) != 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    char *list = NULL;
    char **names = NULL;
    int *is_level = NULL;
    double *mine = NULL, *all = NULL;
    char *hosts = NULL;
    int *where = NULL, me[2] = {node_index, local};
    if (any_bad) {
        rc = RT_EXIT_FAIL;
        goto out;
    }
    list = figure_list(alone, rank);
    size_t nf = parse_figures(list, &names, &is_level);
    mine = rt_xcalloc(2 * nf + 1, sizeof *mine);
    values_of(alone, names, is_level, nf, mine);
    values_of(together, names, is_level, nf, mine + nf);
    if (rank == 0) {
        all = rt_xcalloc(2 * nf * (size_t)size + 1, sizeof *all);
        hosts = rt_xcalloc((size_t)size * HOST_MAX, 1);
        where = rt_xcalloc(2 * (size_t)size, sizeof *where);
    }
    MPI_Gather(mine, (int)(2 * nf), MPI_DOUBLE, all, (int)(2 * nf), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(host, HOST_MAX, MPI_CHAR, hosts, HOST_MAX, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Gather(me, 2, MPI_INT, where, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        rt_job *j = rt_job_new((const char *const *)names, is_level, nf, fraction);
        for (int r = 0; r < size; r++) {
            hosts[(size_t)r * HOST_MAX + HOST_MAX - 1] = '\0';
            rt_job_add_rank(j, r, where[2 * r], where[2 * r + 1], hosts + (size_t)r * HOST_MAX,
                            all + 2 * nf * (size_t)r, all + 2 * nf * (size_t)r + nf);
        }
        rt_job_summarize(j);
        const rt_rank_identity *id;
        if (cli_identity(&id) == 0)
            alone->identity = rt_rank_identity_dup(id);
        char *method = rt_asprintf("%s; the ceilings are rank 0's, measured alone on its node; "
                                   "\"job\" holds every rank's and node's (machine measure --mpi, "
                                   "%d ranks)",
                                   alone->method ? alone->method : "measured", size);
        rt_machine_set_str(&alone->method, method);
        free(method);
        alone->job = j;
        json_t *js = rt_machine_to_json(alone);
        int werr = json_dumpf(js, out.fp, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0 ||
                   fputc('\n', out.fp) == EOF;
        json_decref(js);
        rc = cli_output_close(&out, werr);
        if (rc == RT_EXIT_OK && output)
            print_summary(j, output);
        out.path = NULL; /* closed */
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
out:
    if (rank == 0 && out.path)
        cli_output_close(&out, 1);
    free(list);
    free(names);
    free(is_level);
    free(mine);
    free(all);
    free(hosts);
    free(where);
    rt_machine_free(alone);
    rt_machine_free(together);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return rc;
}
