/* Text and JSON of an analysis across ranks. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-write.h"
#include "rooftime/core/across.h"
#include "rooftime/formats/across-format.h"
#include "rooftime/util/format.h"

static const char *const kind_name[] = {"kernel", "config", "rank"};

/* What a straggler is slow on, for people. */
static void straggler_what(const rt_across *a, const rt_straggler *s, char *buf, size_t n)
{
    if (s->kind == 2)
        snprintf(buf, n, "the whole run");
    else
        snprintf(buf, n, "%s '%.200s'", kind_name[s->kind],
                 s->kind ? a->configs[s->entry].name : a->kernels[s->entry].name);
}

static void write_entries(const rt_across *a, bool configs, size_t top, FILE *fp)
{
    size_t n = configs ? a->n_configs : a->n_kernels;
    const rt_across_entry *v = configs ? a->configs : a->kernels;
    size_t *ix = rt_across_by_median(a, configs);
    size_t shown = top && top < n ? top : n;
    fprintf(fp, "\n%s by median time (%zu of %zu):\n", configs ? "configs" : "kernels", shown, n);
    fprintf(fp, "  %6s %10s %10s %10s %10s %10s %6s  %-22s %s\n", "ranks", "median", "q1", "q3",
            "min", "max", "above", "slowest ranks", configs ? "config" : "kernel");
    for (size_t i = 0; i < shown; i++) {
        const rt_across_entry *e = &v[ix[i]];
        char med[32], q1[32], q3[32], mn[32], mx[32], slow[64] = "";
        rt_fmt_seconds(med, sizeof med, e->median);
        rt_fmt_seconds(q1, sizeof q1, e->q1);
        rt_fmt_seconds(q3, sizeof q3, e->q3);
        rt_fmt_seconds(mn, sizeof mn, e->min);
        rt_fmt_seconds(mx, sizeof mx, e->max);
        for (size_t s = 0; s < e->n_slow && strlen(slow) < 40; s++)
            snprintf(slow + strlen(slow), sizeof slow - strlen(slow), "%s%ld", s ? "," : "",
                     e->slow[s].rank);
        fprintf(fp, "  %6zu %*s %*s %*s %*s %*s %6zu  %-22s %.120s\n", e->n_ranks,
                rt_fmt_field(med, 10), med, rt_fmt_field(q1, 10), q1, rt_fmt_field(q3, 10), q3,
                rt_fmt_field(mn, 10), mn, rt_fmt_field(mx, 10), mx, e->n_above, slow, e->name);
    }
    free(ix);
}

int rt_across_write_text(const rt_across *a, size_t top, FILE *fp)
{
    char med[32], mn[32], mx[32];
    rt_fmt_seconds(med, sizeof med, a->total_median);
    rt_fmt_seconds(mn, sizeof mn, a->total_min);
    rt_fmt_seconds(mx, sizeof mx, a->total_max);
    fprintf(fp,
            "across %zu ranks: %zu kernels, %zu configs; a straggler is more than %.4g%% above "
            "the median (medians and quartiles within %.4g%%)\n",
            a->n_profiles, a->n_kernels, a->n_configs, a->opts.straggler * 100,
            a->opts.accuracy * 100);
    fprintf(fp, "time per rank: median %s, min %s (rank %ld), max %s (rank %ld)\n", med, mn,
            a->total_min_rank, mx, a->total_max_rank);
    size_t shown = top && top < a->n_stragglers ? top : a->n_stragglers;
    if (a->n_stragglers == 0) {
        fprintf(fp, "\nno stragglers\n");
    } else {
        fprintf(fp, "\nstragglers, largest excess first (%zu of %zu):\n", shown, a->n_stragglers);
        fprintf(fp, "  %8s %10s %10s %8s  %s\n", "rank", "time", "median", "excess", "on");
        for (size_t i = 0; i < shown; i++) {
            const rt_straggler *s = &a->stragglers[i];
            char t[32], m[32], what[256];
            rt_fmt_seconds(t, sizeof t, s->time);
            rt_fmt_seconds(m, sizeof m, s->median);
            straggler_what(a, s, what, sizeof what);
            fprintf(fp, "  %8ld %*s %*s %+7.1f%%  %s\n", s->rank, rt_fmt_field(t, 10), t,
                    rt_fmt_field(m, 10), m, s->median > 0 ? (s->time / s->median - 1) * 100 : 0,
                    what);
        }
    }
    write_entries(a, true, top, fp);
    write_entries(a, false, top, fp);
    return ferror(fp) ? -1 : 0;
}

static json_t *values_json(const rt_values *vs, double div)
{
    json_t *o = json_object();
    for (size_t i = 0; i < vs->n; i++)
        json_object_set_new(o, vs->v[i].key, rt_json_num(vs->v[i].value / div));
    return o;
}

static json_t *entry_json(const rt_across_entry *e, const rt_across *a, bool config)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(e->name));
    if (e->tags.n) {
        json_t *t = json_object();
        for (size_t i = 0; i < e->tags.n; i++)
            json_object_set_new(t, e->tags.v[i].key, json_string(e->tags.v[i].value));
        json_object_set_new(o, "tags", t);
    }
    if (!config)
        json_object_set_new(o, "config", json_string(a->configs[e->config].name));
    json_object_set_new(o, "ranks", json_integer((json_int_t)e->n_ranks));
    json_object_set_new(o, "median", json_real(e->median));
    json_object_set_new(o, "q1", json_real(e->q1));
    json_object_set_new(o, "q3", json_real(e->q3));
    json_object_set_new(o, "min", json_real(e->min));
    json_object_set_new(o, "min_rank", json_integer(e->min_rank));
    json_object_set_new(o, "max", json_real(e->max));
    json_object_set_new(o, "max_rank", json_integer(e->max_rank));
    json_object_set_new(o, "mean", json_real(e->n_ranks ? e->sum / (double)e->n_ranks : 0));
    json_object_set_new(o, "above", json_integer((json_int_t)e->n_above));
    json_t *slow = json_array();
    for (size_t s = 0; s < e->n_slow; s++) {
        json_t *x = json_object();
        json_object_set_new(x, "rank", json_integer(e->slow[s].rank));
        json_object_set_new(x, "time", json_real(e->slow[s].time));
        json_array_append_new(slow, x);
    }
    json_object_set_new(o, "slowest", slow);
    double n = e->n_ranks ? (double)e->n_ranks : 1;
    json_object_set_new(o, "invocations_per_rank", rt_json_num(e->invocations / n));
    json_object_set_new(o, "flops_per_rank", values_json(&e->flops, n));
    json_object_set_new(o, "bytes_per_rank", values_json(&e->bytes, n));
    return o;
}

/* The configs or the kernels by median. */
typedef struct entries_ctx {
    const rt_across *a;
    bool configs;
    size_t *order;
} entries_ctx;

/* Entry i of a list (rt_json_make_fn). */
static json_t *entry_element(void *ctx, size_t i)
{
    const entries_ctx *e = ctx;
    const rt_across *a = e->a;
    return entry_json(e->configs ? &a->configs[e->order[i]] : &a->kernels[e->order[i]], a,
                      e->configs);
}

/* The head: schema, ranks, options, time per rank, stragglers. */
static json_t *head_json(const rt_across *a)
{
    json_t *j = json_object();
    json_object_set_new(j, "schema", json_string("rooftime.across/1"));
    json_object_set_new(j, "ranks", json_integer((json_int_t)a->n_profiles));
    json_object_set_new(j, "straggler_fraction", json_real(a->opts.straggler));
    json_object_set_new(j, "accuracy", json_real(a->opts.accuracy));
    json_t *t = json_object();
    json_object_set_new(t, "median", json_real(a->total_median));
    json_object_set_new(t, "min", json_real(a->total_min));
    json_object_set_new(t, "min_rank", json_integer(a->total_min_rank));
    json_object_set_new(t, "max", json_real(a->total_max));
    json_object_set_new(t, "max_rank", json_integer(a->total_max_rank));
    json_object_set_new(j, "time_per_rank", t);
    json_t *st = json_array();
    for (size_t i = 0; i < a->n_stragglers; i++) {
        const rt_straggler *s = &a->stragglers[i];
        json_t *o = json_object();
        json_object_set_new(o, "rank", json_integer(s->rank));
        json_object_set_new(o, "on", json_string(kind_name[s->kind]));
        if (s->kind < 2)
            json_object_set_new(
                o, "name",
                json_string(s->kind ? a->configs[s->entry].name : a->kernels[s->entry].name));
        json_object_set_new(o, "time", json_real(s->time));
        json_object_set_new(o, "median", json_real(s->median));
        json_array_append_new(st, o);
    }
    json_object_set_new(j, "stragglers", st);
    return j;
}

int rt_across_write_json(const rt_across *a, FILE *fp)
{
    rt_json_stream s;
    rt_json_stream_begin(&s, fp, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_t *head = head_json(a);
    rt_json_stream_members(&s, head);
    json_decref(head);
    for (int c = 1; c >= 0; c--) {
        entries_ctx e = {a, c, rt_across_by_median(a, c)};
        rt_json_stream_list(&s, c ? "configs" : "kernels", c ? a->n_configs : a->n_kernels,
                            entry_element, &e);
        free(e.order);
    }
    return rt_json_stream_end(&s);
}
