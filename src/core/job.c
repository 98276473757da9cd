/* A job's ceilings: per-rank and per-node figures, their spread, and who is slow. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/job.h"
#include "rooftime/util/strings.h"

rt_job *rt_job_new(const char *const *figures, const int *is_level, size_t n, double fraction)
{
    rt_job *j = rt_xcalloc(1, sizeof *j);
    j->figures = rt_xcalloc(n + 1, sizeof *j->figures);
    j->is_level = rt_xcalloc(n + 1, sizeof *j->is_level);
    for (size_t i = 0; i < n; i++) {
        j->figures[i] = rt_strdup(figures[i]);
        j->is_level[i] = is_level[i];
    }
    j->n_figures = n;
    j->fraction = fraction;
    return j;
}

void rt_job_free(rt_job *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->n_ranks; i++) {
        free(j->ranks[i].host);
        free(j->ranks[i].alone);
        free(j->ranks[i].together);
    }
    for (size_t i = 0; i < j->n_nodes; i++) {
        free(j->nodes[i].host);
        free(j->nodes[i].together);
        free(j->nodes[i].alone);
    }
    for (size_t i = 0; i < j->n_figures; i++)
        free(j->figures[i]);
    free(j->figures);
    free(j->is_level);
    free(j->ranks);
    free(j->nodes);
    free(j->rank_spread);
    free(j->node_spread);
    free(j->contention);
    free(j->slow);
    free(j);
}

static double *copy(const double *v, size_t n)
{
    double *c = rt_xcalloc(n + 1, sizeof *c);
    if (v)
        memcpy(c, v, n * sizeof *c);
    return c;
}

void rt_job_add_rank(rt_job *j, long rank, long node, long local_rank, const char *host,
                     const double *alone, const double *together)
{
    j->ranks = rt_xrealloc(j->ranks, (j->n_ranks + 1) * sizeof *j->ranks);
    rt_job_rank *r = &j->ranks[j->n_ranks++];
    r->rank = rank;
    r->node = node < 0 ? 0 : node;
    r->local_rank = local_rank;
    r->host = rt_strdup(host ? host : "");
    r->alone = copy(alone, j->n_figures);
    r->together = copy(together, j->n_figures);
    while ((size_t)r->node >= j->n_nodes) {
        j->nodes = rt_xrealloc(j->nodes, (j->n_nodes + 1) * sizeof *j->nodes);
        rt_job_node *x = &j->nodes[j->n_nodes++];
        memset(x, 0, sizeof *x);
        x->together = copy(NULL, j->n_figures);
        x->alone = copy(NULL, j->n_figures);
    }
    rt_job_node *x = &j->nodes[r->node];
    if (!x->host)
        x->host = rt_strdup(r->host);
    x->n_ranks++;
    for (size_t f = 0; f < j->n_figures; f++) {
        x->together[f] += r->together[f];
        x->alone[f] += r->alone[f];
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median, min and max of the known (> 0) values. */
static rt_spread spread(double *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] > 0)
            v[k++] = v[i];
    rt_spread s = {0, 0, 0};
    if (k == 0)
        return s;
    qsort(v, k, sizeof *v, cmp_double);
    s.min = v[0];
    s.max = v[k - 1];
    s.median = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
    return s;
}

static void add_slow(rt_job *j, rt_job_slow s)
{
    j->slow = rt_xrealloc(j->slow, (j->n_slow + 1) * sizeof *j->slow);
    j->slow[j->n_slow++] = s;
}

void rt_job_summarize(rt_job *j)
{
    size_t nf = j->n_figures, n = j->n_ranks > j->n_nodes ? j->n_ranks : j->n_nodes;
    free(j->rank_spread);
    free(j->node_spread);
    free(j->contention);
    j->rank_spread = rt_xcalloc(nf + 1, sizeof *j->rank_spread);
    j->node_spread = rt_xcalloc(nf + 1, sizeof *j->node_spread);
    j->contention = rt_xcalloc(nf + 1, sizeof *j->contention);
    j->n_slow = 0;
    double *v = rt_xcalloc(n + 1, sizeof *v);
    for (size_t f = 0; f < nf; f++) {
        for (size_t i = 0; i < j->n_ranks; i++)
            v[i] = j->ranks[i].alone[f];
        j->rank_spread[f] = spread(v, j->n_ranks);
        for (size_t i = 0; i < j->n_nodes; i++)
            v[i] = j->nodes[i].together[f];
        j->node_spread[f] = spread(v, j->n_nodes);
        for (size_t i = 0; i < j->n_ranks; i++)
            v[i] = j->ranks[i].alone[f] > 0 && j->ranks[i].together[f] > 0
                       ? j->ranks[i].together[f] / j->ranks[i].alone[f]
                       : 0;
        j->contention[f] = spread(v, j->n_ranks).median;
        double floor_r = j->rank_spread[f].median * (1 - j->fraction);
        for (size_t i = 0; i < j->n_ranks && j->n_ranks > 1; i++)
            if (j->ranks[i].alone[f] > 0 && j->ranks[i].alone[f] < floor_r)
                add_slow(j, (rt_job_slow){0, j->ranks[i].rank, f, j->ranks[i].alone[f],
                                          j->rank_spread[f].median});
        double floor_n = j->node_spread[f].median * (1 - j->fraction);
        for (size_t i = 0; i < j->n_nodes && j->n_nodes > 1; i++)
            if (j->nodes[i].together[f] > 0 && j->nodes[i].together[f] < floor_n)
                add_slow(j, (rt_job_slow){1, (long)i, f, j->nodes[i].together[f],
                                          j->node_spread[f].median});
    }
    free(v);
}
