/* Nsight Compute's units (Kbyte, cycle/usecond, Ghz, us ...) and their factors to base units: the
 * table of data/ncu/units.json, loaded through the one data-file loader. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/import/ncu-units.h"
#include "rooftime/util/data-file.h"
#include "rooftime/util/strings.h"

/* The units of one member ("base" or "scaled") into t; a name in both members is refused. */
static int load_member(rt_jr *r, const json_t *root, const char *member, int scaled,
                       rt_ncu_units *t)
{
    const json_t *obj;
    if (rt_jr_member_object(r, root, "", member, true, &obj) != 0)
        return -1;
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)obj, name, v)
    {
        double scale = json_is_number(v) ? json_number_value(v) : NAN;
        if (!(scale > 0) || !isfinite(scale)) {
            rt_jr_fail(r, member, name, "the factor to the base unit must be a number > 0");
            return -1;
        }
        if (rt_ncu_units_find(t, name, strlen(name))) {
            rt_jr_fail(r, member, name, "unit '%.40s' is in both 'base' and 'scaled'", name);
            return -1;
        }
        t->u = rt_xrealloc(t->u, (t->n + 1) * sizeof *t->u);
        t->u[t->n++] = (rt_ncu_unit){.name = rt_strdup(name), .scale = scale, .scaled = scaled};
    }
    return 0;
}

int rt_ncu_units_load(const char *path, rt_ncu_units *t, rt_error *err)
{
    memset(t, 0, sizeof *t);
    rt_data_file f;
    if (rt_data_file_load(&f, path, "ncu/units.json", "rooftime.ncu-units/1", err) != 0)
        return -1;
    rt_jr r = {rt_data_file_src(&f), err};
    int rc =
        load_member(&r, f.root, "base", 0, t) == 0 && load_member(&r, f.root, "scaled", 1, t) == 0
            ? 0
            : -1;
    rt_data_file_release(&f);
    if (rc != 0)
        rt_ncu_units_release(t);
    return rc;
}

const rt_ncu_unit *rt_ncu_units_find(const rt_ncu_units *t, const char *name, size_t len)
{
    for (size_t i = 0; i < t->n; i++)
        if (strlen(t->u[i].name) == len && memcmp(t->u[i].name, name, len) == 0)
            return &t->u[i];
    return NULL;
}

void rt_ncu_units_release(rt_ncu_units *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->u[i].name);
    free(t->u);
    memset(t, 0, sizeof *t);
}
