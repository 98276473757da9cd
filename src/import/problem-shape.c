/* Problem shapes such as "mb16_ic64oc64_ih56oh56kh3sh1dh0ph1": letters name the number that
 * follows. oneDNN's verbose lines carry them, and the PyTorch importer reads them to join a oneDNN
 * profile by shape. */
#include <ctype.h>
#include <string.h>

#include "problem-shape.h"

int rt_shape_parse(const char *s, rt_shape *sh)
{
    sh->n = 0;
    const char *p = s;
    while (*p) {
        if (*p == '_' || *p == ' ') {
            p++;
            continue;
        }
        if (*p == 'n' && p[1] == '"') { /* a primitive's name: n"text" */
            const char *q = strchr(p + 2, '"');
            if (!q)
                return -1;
            p = q + 1;
            continue;
        }
        const char *k0 = p;
        while (isalpha((unsigned char)*p))
            p++;
        size_t kl = (size_t)(p - k0);
        if (kl == 0 || kl >= sizeof sh->kv[0].k || !isdigit((unsigned char)*p))
            return -1;
        double v = 0;
        while (isdigit((unsigned char)*p))
            v = v * 10 + (*p++ - '0');
        if (sh->n == (int)(sizeof sh->kv / sizeof sh->kv[0]))
            return -1;
        memcpy(sh->kv[sh->n].k, k0, kl);
        sh->kv[sh->n].k[kl] = '\0';
        sh->kv[sh->n].v = v;
        sh->n++;
    }
    return sh->n > 0 ? 0 : -1;
}

int rt_shape_has(const rt_shape *sh, const char *k)
{
    for (int i = 0; i < sh->n; i++)
        if (strcmp(sh->kv[i].k, k) == 0)
            return 1;
    return 0;
}

double rt_shape_get(const rt_shape *sh, const char *k, double dflt)
{
    for (int i = 0; i < sh->n; i++)
        if (strcmp(sh->kv[i].k, k) == 0)
            return sh->kv[i].v;
    return dflt;
}
