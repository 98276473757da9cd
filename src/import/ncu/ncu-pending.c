/* Nsight Compute import: the launches in flight between files, an open-addressing table over
 * indices into a pool, with backward-shift deletion. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ncu-internal.h"
#include "rooftime/util/strings.h"

static void pend_grow(ncu_import *im)
{
    size_t ns = im->ntable ? 2 * im->ntable : 64;
    int64_t *t = rt_xmalloc(ns * sizeof *t);
    for (size_t i = 0; i < ns; i++)
        t[i] = -1;
    for (size_t i = 0; i < im->ntable; i++) {
        int64_t e = im->table[i];
        if (e < 0)
            continue;
        size_t j = (im->pool[e].key * 0x9E3779B97F4A7C15ull >> 20) & (ns - 1);
        while (t[j] >= 0)
            j = (j + 1) & (ns - 1);
        t[j] = e;
    }
    free(im->table);
    im->table = t;
    im->ntable = ns;
}

static size_t pend_home(const ncu_import *im, uint64_t key)
{
    return (key * 0x9E3779B97F4A7C15ull >> 20) & (im->ntable - 1);
}

/* The pending launch with this key, creating it when create is set; NULL if absent. */
pending *rt_ncu_pend_get(ncu_import *im, uint64_t key, int create)
{
    if (create && 2 * (im->nlive + 1) > im->ntable)
        pend_grow(im);
    if (im->ntable == 0)
        return NULL;
    size_t j = pend_home(im, key);
    while (im->table[j] >= 0) {
        if (im->pool[im->table[j]].key == key)
            return &im->pool[im->table[j]];
        j = (j + 1) & (im->ntable - 1);
    }
    if (!create)
        return NULL;
    size_t e;
    if (im->nfree) {
        e = im->free_list[--im->nfree];
    } else {
        if (im->npool == im->cappool) {
            im->cappool = im->cappool ? 2 * im->cappool : 16;
            im->pool = rt_xrealloc(im->pool, im->cappool * sizeof *im->pool);
            im->free_list = rt_xrealloc(im->free_list, im->cappool * sizeof *im->free_list);
        }
        e = im->npool++;
    }
    memset(&im->pool[e], 0, sizeof im->pool[e]);
    im->pool[e].key = key;
    im->table[j] = (int64_t)e;
    im->nlive++;
    return &im->pool[e];
}

void rt_ncu_pend_remove(ncu_import *im, uint64_t key)
{
    size_t j = pend_home(im, key);
    while (im->pool[im->table[j]].key != key)
        j = (j + 1) & (im->ntable - 1);
    im->free_list[im->nfree++] = (size_t)im->table[j];
    im->table[j] = -1;
    im->nlive--;
    /* Backward-shift deletion keeps probe chains whole without tombstones. */
    size_t i = j;
    for (;;) {
        i = (i + 1) & (im->ntable - 1);
        if (im->table[i] < 0)
            break;
        size_t h = pend_home(im, im->pool[im->table[i]].key);
        if ((i > j && (h <= j || h > i)) || (i < j && (h <= j && h > i))) {
            im->table[j] = im->table[i];
            im->table[i] = -1;
            j = i;
        }
    }
}
