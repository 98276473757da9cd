/* Small ordered maps from names to numbers (value-map.c): FLOPs per unit, bytes per level, a
 * derivation's factors. Setters keep names valid UTF-8. The maps are scanned while small and go
 * through a hash index once they grow (a profile's provenance.kernel_time_sum holds one entry per
 * kernel), so filling one of n entries costs O(n): change their keys through these functions only.
 */
#ifndef ROOFTIME_CORE_VALUE_MAP_H
#define ROOFTIME_CORE_VALUE_MAP_H

#include <stddef.h>

/* A small ordered map from names to numbers (FLOPs per unit, bytes per level). */
typedef struct rt_value {
    char *key;
    double value;
} rt_value;
typedef struct rt_values {
    rt_value *v;
    size_t n, cap; /* n > 0 with cap 0: borrowed (rt_values_borrow) */
    /* key -> position in v, built once the map grows past a few entries; owned, NULL while
     * small (a zeroed rt_values is an empty map). */
    struct rt_name_index *ix;
} rt_values;

/* vs (empty) borrows the n entries at v: the array and the names stay their owner's (a loaded
 * profile's arena, which outlives vs) and are read in place (its index, past a few entries, is
 * vs's own). The first change through a setter copies them into vs's own; rt_values_release
 * frees nothing of a borrowed map but the index. */
void rt_values_borrow(rt_values *vs, rt_value *v, size_t n);
void rt_values_set(rt_values *vs, const char *key, double value);
void rt_values_add(rt_values *vs, const char *key, double value); /* accumulate */
int rt_values_has(const rt_values *vs, const char *key);
double rt_values_get(const rt_values *vs, const char *key, double dflt);
double rt_values_sum(const rt_values *vs);
void rt_values_copy(rt_values *dst, const rt_values *src);
void rt_values_release(rt_values *vs);

#endif
