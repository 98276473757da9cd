/* The "identity" member of profiles and machine files: which rank, host and device wrote them. */
#include <math.h>
#include <stdlib.h>

#include "identity-json.h"
#include "json-write.h"
#include "rooftime/util/rank-identity.h"
#include "rooftime/util/strings.h"

json_t *rt_identity_to_json(const rt_rank_identity *id)
{
    json_t *o = json_object();
    if (id->launcher)
        json_object_set_new(o, "launcher", json_string(id->launcher));
    const char *const keys[] = {"rank", "local_rank", "size"};
    const long vals[] = {id->rank, id->local_rank, id->size};
    for (int i = 0; i < 3; i++)
        if (vals[i] >= 0)
            json_object_set_new(o, keys[i], json_integer(vals[i]));
    if (id->host)
        json_object_set_new(o, "host", json_string(id->host));
    if (id->device)
        json_object_set_new(o, "device", json_string(id->device));
    return o;
}

/* An optional whole number in [min, RT_MAX_RANKS]. */
static int read_count(rt_jr *r, const json_t *o, const char *key, double min, long *out)
{
    double v = -1;
    if (rt_jr_number(r, o, "identity", key, false, min, &v) != 0)
        return -1;
    if (v < 0)
        return 0;
    if (v != floor(v) || v > (double)RT_MAX_RANKS) {
        rt_jr_fail(r, "identity", key, "expected a whole number from %g to %ld", min, RT_MAX_RANKS);
        return -1;
    }
    *out = (long)v;
    return 0;
}

int rt_identity_read(rt_jr *r, const json_t *obj, rt_rank_identity **out)
{
    const json_t *o;
    *out = NULL;
    if (rt_jr_member_object(r, obj, "", "identity", false, &o) != 0)
        return -1;
    if (!o)
        return 0;
    rt_rank_identity *id = rt_xmalloc(sizeof *id);
    rt_rank_identity_init(id);
    if (rt_jr_string(r, o, "identity", "launcher", false, &id->launcher) != 0 ||
        read_count(r, o, "rank", 0, &id->rank) != 0 ||
        read_count(r, o, "local_rank", 0, &id->local_rank) != 0 ||
        read_count(r, o, "size", 1, &id->size) != 0 ||
        rt_jr_string(r, o, "identity", "host", false, &id->host) != 0 ||
        rt_jr_string(r, o, "identity", "device", false, &id->device) != 0)
        goto fail;
    if (id->size > 0 && id->rank >= id->size) {
        rt_jr_fail(r, "identity", "rank", "%ld is not below the size %ld", id->rank, id->size);
        goto fail;
    }
    *out = id;
    return 0;
fail:
    rt_rank_identity_free(id);
    return -1;
}
