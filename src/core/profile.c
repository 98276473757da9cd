/* Profiles, kernels and their small maps of values and tags. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/profile.h"
#include "rooftime/util/arena.h"
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"

void rt_kernel_init(rt_kernel *k, const char *name)
{
    memset(k, 0, sizeof *k);
    k->name = rt_strdup_utf8(name ? name : "");
}

static void drop_samples(rt_kernel *k)
{
    if (k->samples) {
        rt_time_samples_release(k->samples);
        free(k->samples);
        k->samples = NULL;
    }
}

void rt_kernel_release(rt_kernel *k)
{
    free(k->name);
    rt_values_release(&k->flops);
    rt_values_release(&k->bytes);
    rt_tags_release(&k->tags);
    drop_samples(k);
    free(k->overhead);
    memset(k, 0, sizeof *k);
}

void rt_kernel_set_overhead(rt_kernel *k, const char *name, int threads)
{
    free(k->overhead);
    k->overhead = name ? rt_strdup_utf8(name) : NULL;
    k->overhead_threads = name ? threads : 0;
}

static bool overhead_same(const rt_kernel *a, const rt_kernel *b)
{
    return a->overhead_threads == b->overhead_threads &&
           (a->overhead == b->overhead ||
            (a->overhead && b->overhead && strcmp(a->overhead, b->overhead) == 0));
}

static bool kernel_empty(const rt_kernel *k)
{
    return k->invocations == 0 && k->time == 0 && !k->samples && k->spread.n == 0;
}

void rt_kernel_add_samples(rt_kernel *k, const rt_time_samples *acc)
{
    if (!k->samples)
        k->samples = rt_xcalloc(1, sizeof *k->samples);
    rt_time_samples_merge(k->samples, acc);
}

void rt_kernel_add_sample(rt_kernel *k, double seconds)
{
    if (!k->samples)
        k->samples = rt_xcalloc(1, sizeof *k->samples);
    rt_time_samples_add(k->samples, seconds);
}

/* Spreads combine exactly only through samples: see profile.h. */
static void accumulate_spread(rt_kernel *a, const rt_kernel *b)
{
    if (kernel_empty(b))
        return;
    if (kernel_empty(a)) {
        a->spread = b->spread;
        if (b->samples)
            rt_kernel_add_samples(a, b->samples);
        return;
    }
    if (a->samples && b->samples && a->spread.n == 0 && b->spread.n == 0) {
        rt_time_samples_merge(a->samples, b->samples);
        return;
    }
    drop_samples(a);
    memset(&a->spread, 0, sizeof a->spread);
}

void rt_kernel_accumulate(rt_kernel *a, const rt_kernel *b)
{
    if (kernel_empty(a) && !a->overhead)
        rt_kernel_set_overhead(a, b->overhead, b->overhead_threads);
    else if (!overhead_same(a, b))
        rt_kernel_set_overhead(a, RT_OVERHEAD_NONE, 0);
    /* the larger working set of the two; one side without one: its bytes per invocation */
    a->working_set = kernel_empty(a) && a->working_set == 0 ? b->working_set
                     : a->working_set > 0 && b->working_set > 0
                         ? fmax(a->working_set, b->working_set)
                         : 0;
    accumulate_spread(a, b);
    a->invocations += b->invocations;
    a->time += b->time;
    for (size_t i = 0; i < b->flops.n; i++)
        rt_values_add(&a->flops, b->flops.v[i].key, b->flops.v[i].value);
    for (size_t i = 0; i < b->bytes.n; i++)
        rt_values_add(&a->bytes, b->bytes.v[i].key, b->bytes.v[i].value);
}

const char *rt_time_kind_name(rt_time_kind t)
{
    return t == RT_TIME_DEVICE ? "device" : t == RT_TIME_WALL ? "wall" : "unknown";
}

int rt_time_kind_parse(const char *s, rt_time_kind *out, rt_error *err)
{
    if (s && strcmp(s, "device") == 0) {
        *out = RT_TIME_DEVICE;
    } else if (s && strcmp(s, "wall") == 0) {
        *out = RT_TIME_WALL;
    } else {
        rt_error_set(err, "unknown time kind '%s' (device or wall)", s ? s : "");
        return -1;
    }
    return 0;
}

const char *rt_bytes_kind_name(rt_bytes_kind b)
{
    return b == RT_BYTES_ESTIMATED ? "estimated" : "measured";
}

int rt_bytes_kind_parse(const char *s, rt_bytes_kind *out, rt_error *err)
{
    if (s && strcmp(s, "measured") == 0) {
        *out = RT_BYTES_MEASURED;
    } else if (s && strcmp(s, "estimated") == 0) {
        *out = RT_BYTES_ESTIMATED;
    } else {
        rt_error_set(err, "unknown kind of bytes '%s' (measured or estimated)", s ? s : "");
        return -1;
    }
    return 0;
}

const char *rt_kernel_uncounted(const rt_kernel *k)
{
    return k->tags.n ? rt_tags_get(&k->tags, RT_TAG_UNCOUNTED) : NULL;
}

bool rt_kernel_counts_lower_bound(const rt_kernel *k)
{
    const char *v = k->tags.n ? rt_tags_get(&k->tags, RT_TAG_COUNTS) : NULL;
    return v && strcmp(v, RT_COUNTS_LOWER_BOUND) == 0;
}

rt_profile *rt_profile_new(void)
{
    return rt_xcalloc(1, sizeof(rt_profile));
}

void rt_profile_set_overhead(rt_profile *p, const char *name)
{
    free(p->overhead);
    p->overhead = name ? rt_strdup(name) : NULL;
    for (size_t i = 0; i < p->n_kernels; i++)
        rt_kernel_set_overhead(&p->kernels[i], NULL, 0);
}

void rt_profile_free(rt_profile *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_kernels; i++)
        rt_kernel_release(&p->kernels[i]);
    free(p->kernels);
    free(p->tool);
    free(p->version);
    free(p->command);
    free(p->machine);
    free(p->method);
    free(p->overhead);
    rt_tags_release(&p->tags);
    rt_rank_identity_free(p->identity);
    rt_provenance_release(&p->provenance);
    free(p->unknown_json);
    if (p->kernel_ix) {
        rt_name_index_release(p->kernel_ix);
        free(p->kernel_ix);
    }
    rt_arena_free(p->arena); /* after the kernels: their borrowed maps point into it */
    free(p);
}

rt_kernel *rt_profile_add_kernel(rt_profile *p, const char *name)
{
    if (p->n_kernels == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 16;
        p->kernels = rt_xrealloc(p->kernels, p->cap * sizeof *p->kernels);
    }
    rt_kernel *k = &p->kernels[p->n_kernels++];
    rt_kernel_init(k, name);
    return k;
}

void rt_profile_finish_spreads(rt_profile *p)
{
    for (size_t i = 0; i < p->n_kernels; i++) {
        rt_kernel *k = &p->kernels[i];
        if (!k->samples)
            continue;
        rt_time_samples_result(k->samples, &k->spread);
        drop_samples(k);
    }
}

static int by_tag_key(const void *a, const void *b)
{
    return strcmp((*(const rt_tag *const *)a)->key, (*(const rt_tag *const *)b)->key);
}

/* The index key of a kernel: its name, then its tags sorted by key, each string ending in a NUL
 * (tag keys are unique, so equal tag sets give equal keys); *buf grows as needed. */
static size_t kernel_key(char **buf, size_t *cap, const char *name, const rt_tags *tags)
{
    const rt_tag *one[8], **t = tags->n <= 8 ? one : rt_xmalloc(tags->n * sizeof *t);
    size_t len = strlen(name) + 1;
    for (size_t i = 0; i < tags->n; i++) {
        t[i] = &tags->v[i];
        len += strlen(t[i]->key) + strlen(t[i]->value) + 2;
    }
    if (tags->n > 1)
        qsort(t, tags->n, sizeof *t, by_tag_key);
    if (len > *cap) {
        *cap = 2 * len;
        *buf = rt_xrealloc(*buf, *cap);
    }
    char *e = *buf;
    size_t k = strlen(name) + 1;
    memcpy(e, name, k);
    e += k;
    for (size_t i = 0; i < tags->n; i++) {
        k = strlen(t[i]->key) + 1;
        memcpy(e, t[i]->key, k);
        e += k;
        k = strlen(t[i]->value) + 1;
        memcpy(e, t[i]->value, k);
        e += k;
    }
    if (t != one)
        free(t);
    return len;
}

rt_kernel *rt_profile_find_or_add(rt_profile *p, const char *name, const rt_tags *tags)
{
    static const rt_tags none = {0};
    if (!tags)
        tags = &none;
    if (!p->kernel_ix || p->n_indexed > p->n_kernels) {
        if (p->kernel_ix)
            rt_name_index_release(p->kernel_ix);
        else
            p->kernel_ix = rt_xcalloc(1, sizeof *p->kernel_ix);
        p->n_indexed = 0;
    }
    char *buf = NULL;
    size_t cap = 0, len;
    for (; p->n_indexed < p->n_kernels; p->n_indexed++) {
        const rt_kernel *k = &p->kernels[p->n_indexed];
        len = kernel_key(&buf, &cap, k->name, &k->tags);
        rt_name_index_put(p->kernel_ix, buf, len, p->n_indexed);
    }
    len = kernel_key(&buf, &cap, name, tags);
    size_t at = rt_name_index_get(p->kernel_ix, buf, len);
    if (at != (size_t)-1) {
        free(buf);
        return &p->kernels[at];
    }
    rt_kernel *k = rt_profile_add_kernel(p, name);
    rt_tags_copy(&k->tags, tags);
    /* its key: the name and tags as stored (invalid UTF-8 replaced) */
    len = kernel_key(&buf, &cap, k->name, &k->tags);
    rt_name_index_put(p->kernel_ix, buf, len, p->n_kernels - 1);
    p->n_indexed = p->n_kernels;
    free(buf);
    return k;
}

static int check_number(const rt_kernel *k, size_t i, const char *field, const char *key, double v,
                        rt_error *err)
{
    if (isfinite(v) && v >= 0)
        return 0;
    if (isinf(v) && v > 0) { /* every input value is finite: a sum of them overflowed */
        rt_error_set(err,
                     "kernel %zu '%.80s': %s%s%s: the sum of its launches or calls overflows "
                     "(a profile holds finite numbers)",
                     i, k->name, field, key ? "." : "", key ? key : "");
        return -1;
    }
    rt_error_set(err, "kernel %zu '%.80s': %s%s%s is %g (a profile holds finite numbers >= 0)", i,
                 k->name, field, key ? "." : "", key ? key : "", v);
    return -1;
}

int rt_profile_check(const rt_profile *p, rt_error *err)
{
    const char *const source[] = {p->tool,    p->version, p->command,
                                  p->machine, p->method,  p->overhead};
    static const char *const field[] = {"tool",    "version", "command",
                                        "machine", "method",  "overhead"};
    for (size_t i = 0; i < 6; i++)
        if (source[i] && !rt_utf8_valid(source[i])) {
            rt_error_set(err, "source.%s is not valid UTF-8", field[i]);
            return -1;
        }
    if (p->threads < 0 || p->threads > RT_MAX_THREADS) {
        rt_error_set(err, "source.threads is %d (a count from 1 to %d)", p->threads,
                     RT_MAX_THREADS);
        return -1;
    }
    rt_profile_sums sums = {0};
    for (size_t i = 0; i < p->n_kernels; i++) {
        const rt_kernel *k = &p->kernels[i];
        if (strlen(k->name) > RT_MAX_NAME || k->tags.n > RT_MAX_TAGS) {
            rt_error_set(err, "kernel %zu '%.80s': %s over the limit (%zu bytes, %d tags)", i,
                         k->name, k->tags.n > RT_MAX_TAGS ? "tags" : "name", RT_MAX_NAME,
                         RT_MAX_TAGS);
            return -1;
        }
        if (check_number(k, i, "time", NULL, k->time, err) != 0 ||
            check_number(k, i, "invocations", NULL, k->invocations, err) != 0 ||
            check_number(k, i, "working_set", NULL, k->working_set, err) != 0)
            return -1;
        for (size_t j = 0; j < k->flops.n; j++)
            if (check_number(k, i, "flops", k->flops.v[j].key, k->flops.v[j].value, err) != 0)
                return -1;
        for (size_t j = 0; j < k->bytes.n; j++)
            if (check_number(k, i, "bytes", k->bytes.v[j].key, k->bytes.v[j].value, err) != 0)
                return -1;
        if ((k->overhead && (!*k->overhead || !rt_utf8_valid(k->overhead))) ||
            k->overhead_threads < 0 || k->overhead_threads > RT_OVERHEAD_MAX_THREADS ||
            (!k->overhead && k->overhead_threads)) {
            rt_error_set(err,
                         "kernel %zu '%.80s': overhead: a name of the machine's overheads or "
                         "'%s', and threads from 0 to %d with a name",
                         i, k->name, RT_OVERHEAD_NONE, RT_OVERHEAD_MAX_THREADS);
            return -1;
        }
        const char *field, *why;
        if (rt_time_spread_check(&k->spread, &field, &why) != 0) {
            rt_error_set(err, "kernel %zu '%.80s': time_spread.%s %s", i, k->name, field, why);
            return -1;
        }
        char sum_field[160];
        rt_error sum_why;
        if (rt_profile_sums_add(&sums, k, sum_field, sizeof sum_field, &sum_why) != 0) {
            rt_error_set(err, "kernel %zu '%.80s': %s: %s", i, k->name, sum_field, sum_why.msg);
            return -1;
        }
    }
    return 0;
}

void rt_provenance_add_input(rt_provenance *pv, const char *path)
{
    pv->inputs = rt_xrealloc(pv->inputs, (pv->n_inputs + 1) * sizeof *pv->inputs);
    pv->inputs[pv->n_inputs++] = rt_strdup_utf8(path);
}

void rt_provenance_release(rt_provenance *pv)
{
    for (size_t i = 0; i < pv->n_inputs; i++)
        free(pv->inputs[i]);
    free(pv->inputs);
    rt_tags_release(&pv->formulas);
    rt_tags_release(&pv->notes);
    rt_values_release(&pv->kernel_time_sum);
    memset(pv, 0, sizeof *pv);
}

static bool str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool values_equal(const rt_values *a, const rt_values *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i].key, b->v[i].key) != 0 || a->v[i].value != b->v[i].value)
            return false;
    return true;
}

static bool spread_equal(const rt_time_spread *a, const rt_time_spread *b)
{
    return a->n == b->n && a->median == b->median && a->q1 == b->q1 && a->q3 == b->q3;
}

static bool tags_equal(const rt_tags *a, const rt_tags *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i].key, b->v[i].key) != 0 || strcmp(a->v[i].value, b->v[i].value) != 0)
            return false;
    return true;
}

static bool provenance_equal(const rt_provenance *a, const rt_provenance *b)
{
    if (a->n_inputs != b->n_inputs || a->launches != b->launches ||
        !tags_equal(&a->formulas, &b->formulas) || !tags_equal(&a->notes, &b->notes) ||
        !values_equal(&a->kernel_time_sum, &b->kernel_time_sum))
        return false;
    for (size_t i = 0; i < a->n_inputs; i++)
        if (strcmp(a->inputs[i], b->inputs[i]) != 0)
            return false;
    return true;
}

bool rt_profile_equal(const rt_profile *a, const rt_profile *b, rt_error *why)
{
    const char *what = NULL;
    if (!str_eq(a->tool, b->tool))
        what = "tool";
    else if (!str_eq(a->version, b->version))
        what = "version";
    else if (!str_eq(a->command, b->command))
        what = "command";
    else if (!str_eq(a->machine, b->machine))
        what = "machine";
    else if (!str_eq(a->method, b->method))
        what = "method";
    else if (a->time_kind != b->time_kind)
        what = "time kind";
    else if (!str_eq(a->overhead, b->overhead))
        what = "overhead";
    else if (a->bytes_kind != b->bytes_kind)
        what = "kind of bytes";
    else if (a->threads != b->threads)
        what = "threads";
    else if (!tags_equal(&a->tags, &b->tags))
        what = "tags";
    else if (!rt_rank_identity_equal(a->identity, b->identity))
        what = "identity";
    else if (a->n_kernels != b->n_kernels)
        what = "number of kernels";
    else if (!provenance_equal(&a->provenance, &b->provenance))
        what = "provenance";
    else if (!str_eq(a->unknown_json, b->unknown_json))
        what = "unknown members";
    if (what) {
        rt_error_set(why, "profiles differ in %s", what);
        return false;
    }
    for (size_t i = 0; i < a->n_kernels; i++) {
        const rt_kernel *x = &a->kernels[i], *y = &b->kernels[i];
        what = strcmp(x->name, y->name) != 0           ? "name"
               : x->invocations != y->invocations      ? "invocations"
               : x->time != y->time                    ? "time"
               : !spread_equal(&x->spread, &y->spread) ? "time spread"
               : !values_equal(&x->flops, &y->flops)   ? "flops"
               : !values_equal(&x->bytes, &y->bytes)   ? "bytes"
               : !tags_equal(&x->tags, &y->tags)       ? "tags"
               : !overhead_same(x, y)                  ? "overhead"
                                                       : NULL;
        if (what) {
            rt_error_set(why, "kernel %zu '%.80s': %s differ", i, x->name, what);
            return false;
        }
    }
    return true;
}
