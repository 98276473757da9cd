/* How a point looks: what a point is (a kernel or a config, and its tags), series, marker and fill
 * keys from the tags, and the style they give. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "chart-internal.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/strings.h"

bool rt_chart_draws_items(const rt_chart *ch)
{
    return ch->view->places_kernels || ch->spec->points == RT_POINTS_KERNELS;
}

const char *rt_chart_item_tag(const rt_analysis *a, size_t i, const char *key)
{
    return key ? rt_tags_get(&a->items[i].tags, key) : NULL;
}

/* A config's value of a tag: its grouping tags, else what its first member carries. */
const char *rt_chart_cfg_tag(const rt_analysis *a, size_t c, const char *key)
{
    if (!key)
        return NULL;
    const rt_config *cf = &a->configs[c];
    const char *v = rt_tags_get(&cf->tags, key);
    if (!v && cf->n_items > 0)
        v = rt_tags_get(&a->items[cf->items[0]].tags, key);
    return v;
}

/* Numbers in numeric order ("16" before "128"), other strings alphabetically. */
static int value_cmp(const char *x, const char *y)
{
    double a, b;
    bool na = rt_parse_double(x, &a), nb = rt_parse_double(y, &b);
    if (na && nb && a != b)
        return a < b ? -1 : 1;
    if (na != nb)
        return na ? -1 : 1;
    return strcmp(x, y);
}

static int value_qsort(const void *a, const void *b)
{
    return value_cmp(*(char *const *)a, *(char *const *)b);
}

static void key_add(rt_key *k, const char *v, size_t *cap)
{
    if (!v || rt_name_index_get(&k->ix, v, strlen(v)) != (size_t)-1)
        return;
    if (k->n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        k->values = rt_xrealloc(k->values, *cap * sizeof *k->values);
    }
    rt_name_index_put(&k->ix, v, strlen(v), k->n);
    k->values[k->n++] = rt_strdup(v);
}

void rt_key_release(rt_key *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->values[i]);
    free(k->values);
    free(k->drawn);
    free(k->place);
    rt_name_index_release(&k->ix);
    memset(k, 0, sizeof *k);
}

int rt_key_index(const rt_key *k, const char *value)
{
    if (!k->tag || !value)
        return -1;
    size_t i = rt_name_index_get(&k->ix, value, strlen(value));
    return i == (size_t)-1 ? -1 : (int)i;
}

/* rt_tags_get with a hint: where the key sat in the tags looked at before (most tag sets of one
 * analysis list their keys in the same order, so this is one comparison, not a scan). */
static const char *tag_at(const rt_tags *t, const char *key, size_t *at)
{
    if (*at < t->n && strcmp(t->v[*at].key, key) == 0)
        return t->v[*at].value;
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->v[i].key, key) == 0) {
            *at = i;
            return t->v[i].value;
        }
    return NULL;
}

/* rt_chart_item_tag and rt_chart_cfg_tag of every item or config, in order. */
static void all_tags(const rt_analysis *a, bool items, const char *tag, const char **val)
{
    size_t at = 0, at_first = 0;
    if (items) {
        for (size_t i = 0; i < a->n_items; i++)
            val[i] = tag_at(&a->items[i].tags, tag, &at);
        return;
    }
    for (size_t c = 0; c < a->n_configs; c++) {
        const rt_config *cf = &a->configs[c];
        val[c] = tag_at(&cf->tags, tag, &at);
        if (!val[c] && cf->n_items > 0)
            val[c] = tag_at(&a->items[cf->items[0]].tags, tag, &at_first);
    }
}

void rt_key_build(rt_chart *ch, rt_key *k, const char *tag)
{
    k->tag = tag;
    if (!tag)
        return;
    size_t cap = 0;
    /* Each config's (or item's) value, looked up once in order, for rt_chart_style and
     * rt_chart_drawn (points come in time order: a lookup each would wander the heap). */
    bool items = rt_chart_draws_items(ch);
    size_t n = items ? ch->a->n_items : ch->a->n_configs;
    const char **val = rt_xmalloc((n + 1) * sizeof *val);
    all_tags(ch->a, items, tag, val);
    const char *last = NULL; /* neighbours often share a value: looked up once */
    for (size_t i = 0; i < n; i++) {
        if (!(items ? ch->sel_item[i] : ch->sel_cfg[i]) || !val[i])
            continue;
        if (!(last && strcmp(val[i], last) == 0))
            key_add(k, val[i], &cap);
        last = val[i];
    }
    if (k->n > 1) {
        qsort(k->values, k->n, sizeof *k->values, value_qsort);
        for (size_t i = 0; i < k->n; i++) /* the places after sorting */
            rt_name_index_put(&k->ix, k->values[i], strlen(k->values[i]), i);
    }
    k->drawn = rt_xcalloc(k->n + 1, sizeof *k->drawn);
    k->items = items;
    k->place = rt_xmalloc((n + 1) * sizeof *k->place);
    for (size_t i = 0; i < n; i++)
        k->place[i] = i && val[i] && val[i - 1] && strcmp(val[i], val[i - 1]) == 0
                          ? k->place[i - 1]
                          : rt_key_index(k, val[i]);
    free(val);
}

int rt_key_place(const rt_chart *ch, const rt_key *k, size_t idx, bool is_item)
{
    if (k->place && k->items == is_item)
        return k->place[idx];
    return rt_key_index(k, is_item ? rt_chart_item_tag(ch->a, idx, k->tag)
                                   : rt_chart_cfg_tag(ch->a, idx, k->tag));
}

static void key_drawn(const rt_chart *ch, rt_key *k, size_t idx, bool is_item)
{
    int i = rt_key_place(ch, k, idx, is_item);
    if (i >= 0)
        k->drawn[i] = true;
}

void rt_chart_drawn(rt_chart *ch, size_t idx, bool is_item, bool open)
{
    key_drawn(ch, &ch->series, idx, is_item);
    key_drawn(ch, &ch->marker, idx, is_item);
    key_drawn(ch, &ch->fill, idx, is_item);
    ch->n_drawn[open]++;
}

static const rt_marker_shape shape_order[] = {
    RT_MARKER_CIRCLE,        RT_MARKER_SQUARE,   RT_MARKER_TRIANGLE, RT_MARKER_DIAMOND,
    RT_MARKER_TRIANGLE_DOWN, RT_MARKER_PENTAGON, RT_MARKER_HEXAGON,  RT_MARKER_STAR,
    RT_MARKER_PLUS,          RT_MARKER_CROSS};
#define N_SHAPES (sizeof shape_order / sizeof shape_order[0])

rt_marker_shape rt_chart_shape(size_t i)
{
    return shape_order[i % N_SHAPES];
}

bool rt_chart_fill_is_shape(const rt_chart *ch)
{
    return ch->view->closed_open && ch->fill.tag && ch->fill.n > 1;
}

void rt_chart_style(const rt_chart *ch, size_t idx, bool is_item, rt_marker_style *m)
{
    int s = rt_key_place(ch, &ch->series, idx, is_item);
    int mk = rt_key_place(ch, &ch->marker, idx, is_item);
    int f = rt_key_place(ch, &ch->fill, idx, is_item);
    memset(m, 0, sizeof *m);
    m->size = 9;
    m->width = 1.4;
    m->color = rt_palette_color(s < 0 ? 0 : (size_t)s);
    m->filled = f <= 0;
    size_t shape = mk < 0 ? 0 : (size_t)mk;
    if (rt_chart_fill_is_shape(ch)) {
        /* Fill means closed/open here, so precision (or whatever fill_by is) takes the shape. */
        shape = f < 0 ? 0 : (size_t)f;
        m->filled = true;
    }
    m->shape = shape_order[shape % N_SHAPES];
}
