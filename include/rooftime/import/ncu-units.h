/* Units of Nsight Compute metrics: the table of data/ncu/units.json (ncu-units.c). */
#ifndef ROOFTIME_IMPORT_NCU_UNI_H
#define ROOFTIME_IMPORT_NCU_UNI_H

#include <stddef.h>

#include "rooftime/util/error.h"

/* One unit ncu writes: its factor to the base unit (byte, cycle, second, cycle/second, 1), and
 * whether ncu writes it only when it scales a value for display (two decimals: about three
 * significant digits). */
typedef struct rt_ncu_unit {
    char *name;
    double scale;
    int scaled;
} rt_ncu_unit;

typedef struct rt_ncu_units {
    rt_ncu_unit *u;
    size_t n;
} rt_ncu_units;

/* Load the table from path (NULL: <datadir>/ncu/units.json): 0, or -1 with err naming the file
 * and the field. */
int rt_ncu_units_load(const char *path, rt_ncu_units *t, rt_error *err);
/* The unit named name[0..len), or NULL when the table has none. */
const rt_ncu_unit *rt_ncu_units_find(const rt_ncu_units *t, const char *name, size_t len);
void rt_ncu_units_release(rt_ncu_units *t);

#endif
