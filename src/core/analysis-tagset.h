/* Tag sets as keys (analysis-tagset.c): configs and families are grouped by their tag sets,
 * hashed and compared with one tag (the family parameter) and the ignored ones left out. */
#ifndef ROOFTIME_CORE_ANALYSIS_TAGSET_H
#define ROOFTIME_CORE_ANALYSIS_TAGSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rooftime/core/analysis.h"

/* Whether s is one of the n strings of list. */
int rt_tagset_in_list(const char *const *list, size_t n, const char *s);
/* Whether tag k counts in a family's tag set of parameter param (not param, not ignored). */
int rt_tagset_family_tag(const char *k, const char *param, const rt_group_opts *o);
/* FNV-1a over keys and values in order; skip: the family parameter left out (NULL: none). */
uint64_t rt_tagset_hash(const rt_tags *t, const char *skip, const rt_group_opts *o);
bool rt_tagset_same(const rt_tags *a, const rt_tags *b, const char *skip, const rt_group_opts *o);

/* Open addressing over record numbers (configs or groups), keyed by their tag sets' hashes. */
typedef struct rt_tagset_table {
    size_t *slot; /* record + 1, 0 = empty */
    uint64_t *hash;
    size_t mask;
} rt_tagset_table;

/* Does record rec hold the tag set being looked up (ctx says which)? */
typedef bool (*rt_tagset_same_fn)(const void *ctx, size_t rec);

void rt_tagset_table_init(rt_tagset_table *tt, size_t n);
void rt_tagset_table_release(rt_tagset_table *tt);
/* The slot of the record with hash h that same() accepts, or the empty slot where it goes. */
size_t rt_tagset_table_find(const rt_tagset_table *tt, uint64_t h, rt_tagset_same_fn same,
                            const void *ctx);

#endif
