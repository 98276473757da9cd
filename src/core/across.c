/* Analysis across ranks: each rank's profile folded into per-kernel and per-config accumulators
 * (exact min, max, sum and slowest ranks; a quantile sketch for the median and quartiles). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/across.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

rt_across *rt_across_new(const rt_across_opts *opts)
{
    rt_across *a = rt_xcalloc(1, sizeof *a);
    a->opts = opts ? *opts : RT_ACROSS_DEFAULTS;
    if (a->opts.slowest == 0)
        a->opts.slowest = 1;
    return a;
}

static void entry_release(rt_across_entry *e)
{
    free(e->name);
    rt_tags_release(&e->tags);
    rt_sketch_release(&e->times);
    free(e->slow);
    rt_values_release(&e->flops);
    rt_values_release(&e->bytes);
}

void rt_across_free(rt_across *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n_kernels; i++)
        entry_release(&a->kernels[i]);
    for (size_t i = 0; i < a->n_configs; i++)
        entry_release(&a->configs[i]);
    free(a->kernels);
    free(a->configs);
    rt_name_index_release(&a->kernel_ix);
    rt_name_index_release(&a->config_ix);
    free(a->touched);
    free(a->rank_total);
    free(a->stragglers);
    free(a);
}

/* Append n bytes of s to a growing buffer at *at. */
static void append(char **buf, size_t *cap, size_t *at, const char *s, size_t n)
{
    if (*at + n + 1 > *cap) {
        *cap = 2 * (*at + n + 1);
        *buf = rt_xrealloc(*buf, *cap);
    }
    memcpy(*buf + *at, s, n);
    *at += n;
    (*buf)[*at] = '\0';
}

/* "key=value" pairs joined by sep, appended at `at` (but the tag `skip`); returns the new length.
 */
static size_t tags_text(char **buf, size_t *cap, size_t at, const rt_tags *t, char sep,
                        const char *skip)
{
    for (size_t i = 0; i < t->n; i++) {
        if (skip && strcmp(t->v[i].key, skip) == 0)
            continue;
        if (at)
            append(buf, cap, &at, &sep, 1);
        append(buf, cap, &at, t->v[i].key, strlen(t->v[i].key));
        append(buf, cap, &at, "=", 1);
        append(buf, cap, &at, t->v[i].value, strlen(t->v[i].value));
    }
    return at;
}

rt_across_entry *rt_across_entry_at(rt_across *a, bool config, const char *key, size_t len,
                                    const char *name, const rt_tags *tags, size_t *index)
{
    rt_name_index *ix = config ? &a->config_ix : &a->kernel_ix;
    rt_across_entry **v = config ? &a->configs : &a->kernels;
    size_t *n = config ? &a->n_configs : &a->n_kernels;
    size_t *cap = config ? &a->cap_configs : &a->cap_kernels;
    size_t id = rt_name_index_intern(ix, key, len);
    if (id == *n) {
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 64;
            *v = rt_xrealloc(*v, *cap * sizeof **v);
        }
        rt_across_entry *e = &(*v)[(*n)++];
        memset(e, 0, sizeof *e);
        e->name = rt_strdup(name);
        rt_tags_copy(&e->tags, tags);
        rt_sketch_init(&e->times, a->opts.accuracy);
        e->min_rank = e->max_rank = -1;
        e->last_profile = (size_t)-1;
    }
    *index = id;
    return &(*v)[id];
}

/* Count t seconds of this profile in e (one rank's time is summed before it is folded). */
static void touch(rt_across *a, rt_across_entry *e, size_t code, double t)
{
    if (e->last_profile != a->n_profiles) {
        e->last_profile = a->n_profiles;
        e->pending = 0;
        if (a->n_touched == a->cap_touched) {
            a->cap_touched = a->cap_touched ? 2 * a->cap_touched : 256;
            a->touched = rt_xrealloc(a->touched, a->cap_touched * sizeof *a->touched);
        }
        a->touched[a->n_touched++] = code;
    }
    e->pending += t;
}

/* Keep (rank, t) among the slowest `keep` ranks of e, slowest first (ties: lower rank first). */
static void insert_slow(rt_across_entry *e, size_t keep, long rank, double t)
{
    if (!e->slow)
        e->slow = rt_xcalloc(keep, sizeof *e->slow);
    size_t at = e->n_slow;
    while (at > 0 &&
           (e->slow[at - 1].time < t || (e->slow[at - 1].time == t && e->slow[at - 1].rank > rank)))
        at--;
    if (at >= keep)
        return;
    size_t last = e->n_slow < keep ? e->n_slow : keep - 1;
    memmove(&e->slow[at + 1], &e->slow[at], (last - at) * sizeof *e->slow);
    e->slow[at] = (rt_rank_time){rank, t};
    if (e->n_slow < keep)
        e->n_slow++;
}

static void extremes(rt_across_entry *e, bool first, long min_rank, double min, long max_rank,
                     double max)
{
    if (first || min < e->min || (min == e->min && min_rank < e->min_rank)) {
        e->min = min;
        e->min_rank = min_rank;
    }
    if (first || max > e->max || (max == e->max && max_rank < e->max_rank)) {
        e->max = max;
        e->max_rank = max_rank;
    }
}

/* One rank's time into an entry: exact extremes and slowest ranks, the sketch for the rest. */
static void fold(rt_across_entry *e, size_t keep, long rank, double t)
{
    extremes(e, e->n_ranks == 0, rank, t, rank, t);
    e->n_ranks++;
    e->sum += t;
    rt_sketch_add(&e->times, t);
    insert_slow(e, keep, rank, t);
}

static int claim_rank(rt_across *a, long rank, double total, const char *origin, rt_error *err)
{
    if (rank < 0 || rank >= RT_MAX_RANKS) {
        rt_error_set(err, "'%s': rank %ld is out of range (0 to %ld)", origin, rank,
                     RT_MAX_RANKS - 1);
        return -1;
    }
    if ((size_t)rank >= a->rank_cap) {
        size_t cap = a->rank_cap ? a->rank_cap : 64;
        while (cap <= (size_t)rank)
            cap *= 2;
        a->rank_total = rt_xrealloc(a->rank_total, cap * sizeof *a->rank_total);
        for (size_t i = a->rank_cap; i < cap; i++)
            a->rank_total[i] = NAN;
        a->rank_cap = cap;
    }
    if (!isnan(a->rank_total[rank])) {
        rt_error_set(err, "'%s': rank %ld was already read (each rank once)", origin, rank);
        return -1;
    }
    a->rank_total[rank] = total;
    return 0;
}

int rt_across_set_rank(rt_across *a, long rank, double total, const char *origin, rt_error *err)
{
    if (!(total >= 0) || !isfinite(total)) {
        rt_error_set(err, "'%s': rank %ld: time %g is not a number >= 0", origin, rank, total);
        return -1;
    }
    return claim_rank(a, rank, total, origin, err);
}

int rt_across_add(rt_across *a, const rt_profile *p, long rank, const char *origin, rt_error *err)
{
    double total = 0;
    for (size_t i = 0; i < p->n_kernels; i++)
        total += p->kernels[i].time;
    if (claim_rank(a, rank, total, origin, err) != 0)
        return -1;
    char *key = NULL;
    size_t cap = 0;
    a->n_touched = 0;
    for (size_t i = 0; i < p->n_kernels; i++) {
        const rt_kernel *k = &p->kernels[i];
        /* The config: profile tags then kernel tags; the kernel: its name and its own tags. The
         * profile's rank tag names the rank, not a config: every rank would be a config of its own.
         */
        size_t len = tags_text(&key, &cap, 0, &p->tags, ' ', RT_ACROSS_RANK_TAG);
        len = tags_text(&key, &cap, len, &k->tags, ' ', NULL);
        rt_tags merged = {0};
        for (size_t t = 0; t < p->tags.n; t++)
            if (strcmp(p->tags.v[t].key, RT_ACROSS_RANK_TAG) != 0)
                rt_tags_set(&merged, p->tags.v[t].key, p->tags.v[t].value);
        for (size_t t = 0; t < k->tags.n; t++)
            rt_tags_set(&merged, k->tags.v[t].key, k->tags.v[t].value);
        size_t ci;
        rt_across_entry *c = rt_across_entry_at(a, true, len ? key : "", len,
                                                len ? key : "(untagged)", &merged, &ci);
        rt_tags_release(&merged);
        touch(a, c, ~ci, k->time);
        len = 0;
        append(&key, &cap, &len, k->name, strlen(k->name) + 1); /* the NUL parts name and tags */
        len = tags_text(&key, &cap, len, &k->tags, '\x1f', NULL);
        size_t ki;
        rt_across_entry *e = rt_across_entry_at(a, false, key, len, k->name, &k->tags, &ki);
        e->config = ci;
        touch(a, e, ki, k->time);
        e->invocations += k->invocations;
        for (size_t j = 0; j < k->flops.n; j++)
            rt_values_add(&e->flops, k->flops.v[j].key, k->flops.v[j].value);
        for (size_t j = 0; j < k->bytes.n; j++)
            rt_values_add(&e->bytes, k->bytes.v[j].key, k->bytes.v[j].value);
        c->invocations += k->invocations;
        for (size_t j = 0; j < k->flops.n; j++)
            rt_values_add(&c->flops, k->flops.v[j].key, k->flops.v[j].value);
        for (size_t j = 0; j < k->bytes.n; j++)
            rt_values_add(&c->bytes, k->bytes.v[j].key, k->bytes.v[j].value);
    }
    free(key);
    for (size_t i = 0; i < a->n_touched; i++) {
        size_t code = a->touched[i];
        bool config = code > a->n_kernels; /* ~c is far above any kernel index */
        rt_across_entry *e = config ? &a->configs[~code] : &a->kernels[code];
        fold(e, a->opts.slowest, rank, e->pending);
    }
    a->n_profiles++;
    return 0;
}

/* b's figures into e (disjoint ranks). */
static void merge_entry(rt_across_entry *e, const rt_across_entry *b, size_t keep)
{
    if (b->n_ranks == 0)
        return;
    extremes(e, e->n_ranks == 0, b->min_rank, b->min, b->max_rank, b->max);
    e->n_ranks += b->n_ranks;
    e->sum += b->sum;
    e->invocations += b->invocations;
    rt_sketch_merge(&e->times, &b->times);
    for (size_t i = 0; i < b->n_slow; i++)
        insert_slow(e, keep, b->slow[i].rank, b->slow[i].time);
    for (size_t j = 0; j < b->flops.n; j++)
        rt_values_add(&e->flops, b->flops.v[j].key, b->flops.v[j].value);
    for (size_t j = 0; j < b->bytes.n; j++)
        rt_values_add(&e->bytes, b->bytes.v[j].key, b->bytes.v[j].value);
}

int rt_across_merge(rt_across *a, const rt_across *b, rt_error *err)
{
    for (size_t r = 0; r < b->rank_cap && r < a->rank_cap; r++)
        if (!isnan(b->rank_total[r]) && !isnan(a->rank_total[r])) {
            rt_error_set(err, "rank %zu is in both sets (each rank once)", r);
            return -1;
        }
    for (size_t r = 0; r < b->rank_cap; r++)
        if (!isnan(b->rank_total[r]))
            claim_rank(a, (long)r, b->rank_total[r], "the merged set", err);
    size_t *cmap = rt_xmalloc((b->n_configs + 1) * sizeof *cmap);
    for (size_t i = 0; i < b->n_configs; i++) {
        const rt_across_entry *x = &b->configs[i];
        rt_across_entry *e = rt_across_entry_at(a, true, b->config_ix.key[i], b->config_ix.len[i],
                                                x->name, &x->tags, &cmap[i]);
        merge_entry(e, x, a->opts.slowest);
    }
    for (size_t i = 0; i < b->n_kernels; i++) {
        const rt_across_entry *x = &b->kernels[i];
        size_t ki;
        rt_across_entry *e = rt_across_entry_at(a, false, b->kernel_ix.key[i], b->kernel_ix.len[i],
                                                x->name, &x->tags, &ki);
        e->config = cmap[x->config];
        merge_entry(e, x, a->opts.slowest);
    }
    free(cmap);
    a->n_profiles += b->n_profiles;
    return 0;
}

static void finish_entry(rt_across_entry *e, double straggler)
{
    e->median = rt_sketch_quantile(&e->times, 0.5);
    e->q1 = rt_sketch_quantile(&e->times, 0.25);
    e->q3 = rt_sketch_quantile(&e->times, 0.75);
    /* The extremes are exact: keep the sketch's answers inside them. */
    e->median = fmin(fmax(e->median, e->min), e->max);
    e->q1 = fmin(fmax(e->q1, e->min), e->median);
    e->q3 = fmin(fmax(e->q3, e->median), e->max);
    e->n_above = (size_t)rt_sketch_count_above(&e->times, e->median * (1 + straggler));
}

static void add_straggler(rt_across *a, size_t *cap, rt_straggler s)
{
    if (a->n_stragglers == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        a->stragglers = rt_xrealloc(a->stragglers, *cap * sizeof *a->stragglers);
    }
    a->stragglers[a->n_stragglers++] = s;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static int cmp_straggler(const void *x, const void *y)
{
    const rt_straggler *a = x, *b = y;
    double ea = a->time - a->median, eb = b->time - b->median;
    if (ea != eb)
        return ea > eb ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind > b->kind ? -1 : 1; /* the whole rank first, then configs, then kernels */
    if (a->entry != b->entry)
        return a->entry < b->entry ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

void rt_across_finish(rt_across *a)
{
    size_t cap = 0;
    a->n_stragglers = 0;
    double f = 1 + a->opts.straggler;
    for (int kind = 0; kind < 2; kind++) {
        rt_across_entry *v = kind ? a->configs : a->kernels;
        size_t n = kind ? a->n_configs : a->n_kernels;
        for (size_t i = 0; i < n; i++) {
            finish_entry(&v[i], a->opts.straggler);
            for (size_t s = 0; s < v[i].n_slow; s++)
                if (v[i].slow[s].time > v[i].median * f && v[i].n_ranks > 1)
                    add_straggler(
                        a, &cap,
                        (rt_straggler){kind, i, v[i].slow[s].rank, v[i].slow[s].time, v[i].median});
        }
    }
    /* Whole ranks: their totals are held exactly (one number per rank). */
    size_t n = 0;
    double *t = rt_xmalloc((a->rank_cap + 1) * sizeof *t);
    for (size_t r = 0; r < a->rank_cap; r++)
        if (!isnan(a->rank_total[r]))
            t[n++] = a->rank_total[r];
    qsort(t, n, sizeof *t, cmp_double);
    a->total_median = n ? (n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2) : 0;
    a->total_min = n ? t[0] : 0;
    a->total_max = n ? t[n - 1] : 0;
    free(t);
    a->total_min_rank = a->total_max_rank = -1;
    for (size_t r = 0; r < a->rank_cap; r++) {
        double x = a->rank_total[r];
        if (isnan(x))
            continue;
        if (a->total_min_rank < 0 && x == a->total_min)
            a->total_min_rank = (long)r;
        if (a->total_max_rank < 0 && x == a->total_max)
            a->total_max_rank = (long)r;
        if (n > 1 && x > a->total_median * f)
            add_straggler(a, &cap, (rt_straggler){2, 0, (long)r, x, a->total_median});
    }
    if (a->n_stragglers)
        qsort(a->stragglers, a->n_stragglers, sizeof *a->stragglers, cmp_straggler);
}

static size_t entry_bytes(const rt_across_entry *e, size_t keep)
{
    size_t b = sizeof *e + strlen(e->name) + 1 + rt_sketch_bytes(&e->times) +
               (e->slow ? keep * sizeof *e->slow : 0) +
               (e->flops.cap + e->bytes.cap) * sizeof(rt_value) + e->tags.cap * sizeof(rt_tag);
    for (size_t i = 0; i < e->flops.n; i++)
        b += strlen(e->flops.v[i].key) + 1;
    for (size_t i = 0; i < e->bytes.n; i++)
        b += strlen(e->bytes.v[i].key) + 1;
    for (size_t i = 0; i < e->tags.n; i++)
        b += strlen(e->tags.v[i].key) + strlen(e->tags.v[i].value) + 2;
    return b;
}

size_t rt_across_bytes(const rt_across *a)
{
    size_t b =
        sizeof *a + a->rank_cap * sizeof *a->rank_total + a->cap_touched * sizeof *a->touched +
        (a->cap_kernels + a->cap_configs - a->n_kernels - a->n_configs) * sizeof(rt_across_entry);
    for (size_t i = 0; i < a->n_kernels; i++)
        b += entry_bytes(&a->kernels[i], a->opts.slowest) + a->kernel_ix.len[i] + 1;
    for (size_t i = 0; i < a->n_configs; i++)
        b += entry_bytes(&a->configs[i], a->opts.slowest) + a->config_ix.len[i] + 1;
    b += (a->kernel_ix.cap + a->config_ix.cap) * (sizeof(char *) + 3 * sizeof(size_t)) +
         (a->kernel_ix.nslot + a->config_ix.nslot) * sizeof(size_t);
    return b;
}

static const rt_across_entry *sort_v;
static int cmp_median(const void *x, const void *y)
{
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    double a = sort_v[i].median, b = sort_v[j].median;
    if (a != b)
        return a > b ? -1 : 1;
    return (i > j) - (i < j);
}

size_t *rt_across_by_median(const rt_across *a, bool configs)
{
    size_t n = configs ? a->n_configs : a->n_kernels;
    size_t *ix = rt_xmalloc((n + 1) * sizeof *ix);
    for (size_t i = 0; i < n; i++)
        ix[i] = i;
    sort_v = configs ? a->configs : a->kernels;
    qsort(ix, n, sizeof *ix, cmp_median);
    sort_v = NULL;
    return ix;
}
