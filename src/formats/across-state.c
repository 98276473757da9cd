/* An analysis across ranks, unfinished, as JSON: what one MPI rank sends to the one that merges. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json-write.h"
#include "rooftime/core/across.h"
#include "rooftime/formats/across-state.h"
#include "rooftime/util/strings.h"

static json_t *values_json(const rt_values *vs)
{
    json_t *o = json_object();
    for (size_t i = 0; i < vs->n; i++)
        json_object_set_new(o, vs->v[i].key, json_real(vs->v[i].value));
    return o;
}

static json_t *entry_json(const rt_name_index *ix, size_t i, const rt_across_entry *e, bool kernel)
{
    json_t *o = json_object();
    json_object_set_new(o, "key", json_stringn(ix->key[i], ix->len[i]));
    json_object_set_new(o, "name", json_string(e->name));
    json_t *t = json_object();
    for (size_t k = 0; k < e->tags.n; k++)
        json_object_set_new(t, e->tags.v[k].key, json_string(e->tags.v[k].value));
    json_object_set_new(o, "tags", t);
    if (kernel)
        json_object_set_new(o, "config", json_integer((json_int_t)e->config));
    json_object_set_new(o, "n_ranks", json_integer((json_int_t)e->n_ranks));
    json_object_set_new(o, "sum", json_real(e->sum));
    json_object_set_new(o, "min", json_real(e->min));
    json_object_set_new(o, "max", json_real(e->max));
    json_object_set_new(o, "min_rank", json_integer(e->min_rank));
    json_object_set_new(o, "max_rank", json_integer(e->max_rank));
    json_object_set_new(o, "invocations", json_real(e->invocations));
    json_object_set_new(o, "flops", values_json(&e->flops));
    json_object_set_new(o, "bytes", values_json(&e->bytes));
    json_t *slow = json_array();
    for (size_t s = 0; s < e->n_slow; s++)
        json_array_append_new(slow,
                              json_pack("[I,f]", (json_int_t)e->slow[s].rank, e->slow[s].time));
    json_object_set_new(o, "slow", slow);
    json_t *c = json_array();
    for (uint32_t k = 0; k < e->times.n_counts; k++)
        json_array_append_new(c, json_integer(e->times.counts[k]));
    json_object_set_new(o, "sketch",
                        json_pack("{s:i,s:I,s:I,s:o}", "lo", (int)e->times.lo, "zeros",
                                  (json_int_t)e->times.zeros, "n", (json_int_t)e->times.n, "counts",
                                  c));
    return o;
}

json_t *rt_across_state_to_json(const rt_across *a)
{
    json_t *j = json_object();
    json_object_set_new(j, "schema", json_string("rooftime.across-state/1"));
    json_object_set_new(j, "straggler", json_real(a->opts.straggler));
    json_object_set_new(j, "slowest", json_integer((json_int_t)a->opts.slowest));
    json_object_set_new(j, "accuracy", json_real(a->opts.accuracy));
    json_object_set_new(j, "profiles", json_integer((json_int_t)a->n_profiles));
    json_t *ranks = json_array();
    for (size_t r = 0; r < a->rank_cap; r++)
        if (!isnan(a->rank_total[r]))
            json_array_append_new(ranks, json_pack("[I,f]", (json_int_t)r, a->rank_total[r]));
    json_object_set_new(j, "ranks", ranks);
    json_t *cs = json_array(), *ks = json_array();
    for (size_t i = 0; i < a->n_configs; i++)
        json_array_append_new(cs, entry_json(&a->config_ix, i, &a->configs[i], false));
    for (size_t i = 0; i < a->n_kernels; i++)
        json_array_append_new(ks, entry_json(&a->kernel_ix, i, &a->kernels[i], true));
    json_object_set_new(j, "configs", cs);
    json_object_set_new(j, "kernels", ks);
    return j;
}

static int read_values(rt_jr *r, const json_t *o, const char *path, const char *key, rt_values *out)
{
    const json_t *m;
    if (rt_jr_member_object(r, o, path, key, true, &m) != 0)
        return -1;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)m, k, v)
    {
        double d = 0;
        if (rt_jr_number(r, m, key, k, true, 0, &d) != 0)
            return -1;
        rt_values_add(out, k, d);
    }
    return 0;
}

static int read_entry(rt_jr *r, rt_across *a, const json_t *o, size_t i, bool kernel)
{
    char path[64];
    snprintf(path, sizeof path, "%s[%zu]", kernel ? "kernels" : "configs", i);
    const json_t *key = json_object_get(o, "key"), *tags, *slow, *sk, *counts;
    char *name = NULL;
    if (rt_jr_object(r, o, path) != 0 || !json_is_string(key)) {
        rt_jr_fail(r, path, "key", "expected a string");
        return -1;
    }
    if (rt_jr_string(r, o, path, "name", true, &name) != 0 ||
        rt_jr_member_object(r, o, path, "tags", true, &tags) != 0) {
        free(name);
        return -1;
    }
    rt_tags t = {0};
    const char *tk;
    json_t *tv;
    json_object_foreach((json_t *)tags, tk, tv)
    {
        rt_tags_set(&t, tk, json_is_string(tv) ? json_string_value(tv) : "");
    }
    size_t index;
    rt_across_entry *e = rt_across_entry_at(a, !kernel, json_string_value(key),
                                            json_string_length(key), name, &t, &index);
    free(name);
    rt_tags_release(&t);
    if (index != i) {
        rt_jr_fail(r, path, "key", "appears twice");
        return -1;
    }
    double n_ranks = 0, config = 0, min_rank = -1, max_rank = -1, lo = 0, zeros = 0, n = 0;
    if ((kernel && rt_jr_number(r, o, path, "config", true, 0, &config) != 0) ||
        rt_jr_number(r, o, path, "n_ranks", true, 0, &n_ranks) != 0 ||
        rt_jr_number(r, o, path, "sum", true, 0, &e->sum) != 0 ||
        rt_jr_number(r, o, path, "min", true, 0, &e->min) != 0 ||
        rt_jr_number(r, o, path, "max", true, 0, &e->max) != 0 ||
        rt_jr_number(r, o, path, "min_rank", true, -1, &min_rank) != 0 ||
        rt_jr_number(r, o, path, "max_rank", true, -1, &max_rank) != 0 ||
        rt_jr_number(r, o, path, "invocations", true, 0, &e->invocations) != 0 ||
        read_values(r, o, path, "flops", &e->flops) != 0 ||
        read_values(r, o, path, "bytes", &e->bytes) != 0 ||
        rt_jr_array(r, o, path, "slow", true, &slow) != 0 ||
        rt_jr_member_object(r, o, path, "sketch", true, &sk) != 0 ||
        rt_jr_number(r, sk, path, "lo", true, -2e9, &lo) != 0 ||
        rt_jr_number(r, sk, path, "zeros", true, 0, &zeros) != 0 ||
        rt_jr_number(r, sk, path, "n", true, 0, &n) != 0 ||
        rt_jr_array(r, sk, path, "counts", true, &counts) != 0)
        return -1;
    if ((kernel && config >= (double)a->n_configs) || json_array_size(slow) > a->opts.slowest ||
        json_array_size(counts) > RT_SKETCH_MAX_BUCKETS || lo > 2e9) {
        rt_jr_fail(r, path, "sketch", "out of range");
        return -1;
    }
    e->config = (size_t)config;
    e->n_ranks = (size_t)n_ranks;
    e->min_rank = (long)min_rank;
    e->max_rank = (long)max_rank;
    e->slow = rt_xcalloc(a->opts.slowest, sizeof *e->slow);
    for (size_t s = 0; s < json_array_size(slow); s++) {
        const json_t *x = json_array_get(slow, s);
        if (!json_is_array(x) || !json_is_integer(json_array_get(x, 0)) ||
            !json_is_number(json_array_get(x, 1))) {
            rt_jr_fail(r, path, "slow", "expected [rank, time] pairs");
            return -1;
        }
        e->slow[e->n_slow++] = (rt_rank_time){(long)json_integer_value(json_array_get(x, 0)),
                                              json_number_value(json_array_get(x, 1))};
    }
    e->times.lo = (int32_t)lo;
    e->times.zeros = (uint64_t)zeros;
    e->times.n = (uint64_t)n;
    e->times.n_counts = (uint32_t)json_array_size(counts);
    e->times.counts = e->times.n_counts ? rt_xcalloc(e->times.n_counts, sizeof(uint32_t)) : NULL;
    for (uint32_t k = 0; k < e->times.n_counts; k++) {
        const json_t *c = json_array_get(counts, k);
        if (!json_is_integer(c) || json_integer_value(c) < 0 ||
            json_integer_value(c) > UINT32_MAX) {
            rt_jr_fail(r, path, "counts", "expected counts");
            return -1;
        }
        e->times.counts[k] = (uint32_t)json_integer_value(c);
    }
    return 0;
}

int rt_across_state_from_json(const json_t *j, const rt_json_src *src, rt_across **out,
                              rt_error *err)
{
    rt_jr r = {*src, err};
    *out = NULL;
    rt_across_opts o = RT_ACROSS_DEFAULTS;
    double slowest = 0, profiles = 0;
    const json_t *ranks, *cs, *ks;
    if (rt_jr_object(&r, j, "") != 0 ||
        rt_jr_number(&r, j, "", "straggler", true, 0, &o.straggler) != 0 ||
        rt_jr_number(&r, j, "", "slowest", true, 1, &slowest) != 0 ||
        rt_jr_number(&r, j, "", "accuracy", true, 0, &o.accuracy) != 0 ||
        rt_jr_number(&r, j, "", "profiles", true, 0, &profiles) != 0 ||
        rt_jr_array(&r, j, "", "ranks", true, &ranks) != 0 ||
        rt_jr_array(&r, j, "", "configs", true, &cs) != 0 ||
        rt_jr_array(&r, j, "", "kernels", true, &ks) != 0)
        return -1;
    if (slowest > 1000) {
        rt_jr_fail(&r, "", "slowest", "out of range");
        return -1;
    }
    o.slowest = (size_t)slowest;
    rt_across *a = rt_across_new(&o);
    for (size_t i = 0; i < json_array_size(ranks); i++) {
        const json_t *x = json_array_get(ranks, i);
        if (!json_is_array(x) || !json_is_integer(json_array_get(x, 0)) ||
            !json_is_number(json_array_get(x, 1)) ||
            rt_across_set_rank(a, (long)json_integer_value(json_array_get(x, 0)),
                               json_number_value(json_array_get(x, 1)), src->name, err) != 0) {
            if (json_is_array(x) && json_is_integer(json_array_get(x, 0)))
                rt_error_prefix(err, "field 'ranks[%zu]'", i);
            else
                rt_jr_fail(&r, "", "ranks", "expected [rank, seconds] pairs");
            goto fail;
        }
    }
    for (size_t i = 0; i < json_array_size(cs); i++)
        if (read_entry(&r, a, json_array_get(cs, i), i, false) != 0)
            goto fail;
    for (size_t i = 0; i < json_array_size(ks); i++)
        if (read_entry(&r, a, json_array_get(ks, i), i, true) != 0)
            goto fail;
    a->n_profiles = (size_t)profiles;
    *out = a;
    return 0;
fail:
    rt_across_free(a);
    return -1;
}
