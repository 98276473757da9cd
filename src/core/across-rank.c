/* Which rank a profile is, for the analysis across ranks: its identity's rank, else its `rank` tag,
 * else the one number in its file name (run.617.json), never its place among the inputs. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/across.h"
#include "rooftime/core/tag-map.h"
#include "rooftime/util/error.h"
#include "rooftime/util/rank-identity.h"

/* s as a rank (decimal digits, 0 to RT_MAX_RANKS - 1); -1 when it is none. */
static long parse_rank(const char *s, size_t n)
{
    if (n == 0 || n > 12)
        return -1;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = 10 * v + (s[i] - '0');
    }
    return v < RT_MAX_RANKS ? v : -1;
}

/* The one run of digits in the file name without its directory and ".json"; -1 when there is
 * none, -2 when there are several (run.3.of.8.json says nothing sure), -3 when out of range. */
static long rank_from_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0)
        len -= 5;
    long rank = -1;
    for (size_t i = 0; i < len;) {
        if (!isdigit((unsigned char)base[i])) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < len && isdigit((unsigned char)base[j]))
            j++;
        if (rank != -1)
            return -2;
        rank = parse_rank(base + i, j - i);
        if (rank < 0)
            return -3;
        i = j;
    }
    return rank;
}

int rt_across_rank_of(const rt_profile *p, const char *path, long *rank, rt_error *err)
{
    long id = p->identity && p->identity->rank >= 0 ? p->identity->rank : -1;
    const char *tag = rt_tags_get(&p->tags, RT_ACROSS_RANK_TAG);
    if (tag) {
        long t = parse_rank(tag, strlen(tag));
        if (t < 0) {
            rt_error_set(err, "'%s': tags.%s: '%.40s' is not a rank (a whole number from 0 to %ld)",
                         path, RT_ACROSS_RANK_TAG, tag, RT_MAX_RANKS - 1);
            return -1;
        }
        if (id >= 0 && t != id) {
            rt_error_set(err, "'%s': tags.%s is %ld but identity.rank is %ld", path,
                         RT_ACROSS_RANK_TAG, t, id);
            return -1;
        }
        id = t;
    }
    if (id < 0) {
        id = rank_from_name(path);
        if (id < 0) {
            rt_error_set(err,
                         "'%s': which rank is it? It has no identity.rank and no '%s' tag, and "
                         "its file name %s (write it as 'run.%%r.json' or tag it)",
                         path, RT_ACROSS_RANK_TAG,
                         id == -1   ? "holds no number"
                         : id == -2 ? "holds more than one number"
                                    : "holds a number out of range");
            return -1;
        }
    }
    *rank = id;
    return 0;
}
