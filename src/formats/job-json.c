/* The "job" member of a machine file written by `machine measure --mpi`. */
#include <jansson.h>

#include "job-json.h"
#include "json-write.h"
#include "rooftime/core/job.h"

static json_t *spread_json(rt_spread s)
{
    json_t *o = json_object();
    json_object_set_new(o, "median", rt_json_num(s.median));
    json_object_set_new(o, "min", rt_json_num(s.min));
    json_object_set_new(o, "max", rt_json_num(s.max));
    return o;
}

/* {"fp64": v, "DRAM": v, ...} for one rank or node; unknown (0) figures left out. */
static json_t *values_json(const rt_job *j, const double *v)
{
    json_t *o = json_object();
    for (size_t f = 0; f < j->n_figures; f++)
        if (v[f] > 0)
            json_object_set_new(o, j->figures[f], rt_json_num(v[f]));
    return o;
}

json_t *rt_job_to_json(const rt_job *j)
{
    json_t *o = json_object();
    json_object_set_new(o, "fraction", rt_json_num(j->fraction));
    json_object_set_new(o, "n_ranks", json_integer((json_int_t)j->n_ranks));
    json_object_set_new(o, "n_nodes", json_integer((json_int_t)j->n_nodes));
    json_t *figs = json_array();
    for (size_t f = 0; f < j->n_figures; f++) {
        json_t *x = json_object();
        json_object_set_new(x, "name", json_string(j->figures[f]));
        json_object_set_new(x, "unit", json_string(j->is_level[f] ? "bytes/s" : "FLOP/s"));
        if (j->rank_spread) {
            json_object_set_new(x, "rank_alone", spread_json(j->rank_spread[f]));
            json_object_set_new(x, "node_together", spread_json(j->node_spread[f]));
            json_object_set_new(x, "contention", rt_json_num(j->contention[f]));
        }
        json_array_append_new(figs, x);
    }
    json_object_set_new(o, "figures", figs);
    json_t *ranks = json_array();
    for (size_t i = 0; i < j->n_ranks; i++) {
        const rt_job_rank *r = &j->ranks[i];
        json_t *x = json_object();
        json_object_set_new(x, "rank", json_integer(r->rank));
        json_object_set_new(x, "node", json_integer(r->node));
        json_object_set_new(x, "local_rank", json_integer(r->local_rank));
        json_object_set_new(x, "host", json_string(r->host));
        json_object_set_new(x, "alone", values_json(j, r->alone));
        json_object_set_new(x, "together", values_json(j, r->together));
        json_array_append_new(ranks, x);
    }
    json_object_set_new(o, "ranks", ranks);
    json_t *nodes = json_array();
    for (size_t i = 0; i < j->n_nodes; i++) {
        const rt_job_node *n = &j->nodes[i];
        json_t *x = json_object();
        json_object_set_new(x, "node", json_integer((json_int_t)i));
        json_object_set_new(x, "host", json_string(n->host ? n->host : ""));
        json_object_set_new(x, "ranks", json_integer((json_int_t)n->n_ranks));
        json_object_set_new(x, "together", values_json(j, n->together));
        json_object_set_new(x, "alone_sum", values_json(j, n->alone));
        json_array_append_new(nodes, x);
    }
    json_object_set_new(o, "nodes", nodes);
    json_t *slow = json_array();
    for (size_t i = 0; i < j->n_slow; i++) {
        const rt_job_slow *s = &j->slow[i];
        json_t *x = json_object();
        json_object_set_new(x, s->node ? "node" : "rank", json_integer(s->who));
        json_object_set_new(x, "figure", json_string(j->figures[s->figure]));
        json_object_set_new(x, "value", rt_json_num(s->value));
        json_object_set_new(x, "median", rt_json_num(s->median));
        json_object_set_new(x, "below", rt_json_num(s->median > 0 ? 1 - s->value / s->median : 0));
        json_array_append_new(slow, x);
    }
    json_object_set_new(o, "slow", slow);
    return o;
}
