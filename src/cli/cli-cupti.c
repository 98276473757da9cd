/* The CUPTI collector from the command's side: finding librooftime-cupti.so, its directory, and
 * the paths of an imported collector directory once moved (cli-cupti.h); `import cupti
 * --reevaluate` loads it through rt_cupti_reevaluate. */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-cupti.h"
#include "commands.h"
#include "rooftime/import/cupti.h"
#include "rooftime/util/strings.h"

char *cli_cupti_library(void)
{
    const char *env = getenv("ROOFTIME_CUPTI_LIB");
    if (env && *env)
        return access(env, R_OK) == 0 ? realpath(env, NULL) : NULL;
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return NULL;
    exe[len] = '\0';
    const char *dir = dirname(exe);
    const char *const where[] = {"%s/librooftime-cupti.so", "%s/../lib/librooftime-cupti.so"};
    for (size_t i = 0; i < 2; i++) {
        char *p = rt_asprintf(where[i], dir);
        if (access(p, R_OK) == 0) {
            char *r = realpath(p, NULL);
            free(p);
            return r;
        }
        free(p);
    }
    return NULL;
}

/* s with each from at a path boundary (followed by '/' or the end) replaced by to; NULL when none.
 */
static char *replace_path(const char *s, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to), hits = 0;
    for (const char *p = strstr(s, from); p; p = strstr(p + fl, from))
        if (p[fl] == '/' || p[fl] == '\0' || p[fl] == ':' || p[fl] == ' ')
            hits++;
    if (!hits || fl == 0)
        return NULL;
    char *out = rt_xmalloc(strlen(s) + hits * (tl > fl ? tl - fl : 0) + 1), *o = out;
    for (const char *p = s;;) {
        const char *q = strstr(p, from);
        while (q && !(q[fl] == '/' || q[fl] == '\0' || q[fl] == ':' || q[fl] == ' '))
            q = strstr(q + 1, from);
        if (!q) {
            strcpy(o, p);
            break;
        }
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, tl);
        o += tl;
        p = q + fl;
    }
    return out;
}

void cli_cupti_relocate(rt_provenance *pv, const char *from, const char *to)
{
    for (size_t i = 0; i < pv->n_inputs; i++) {
        char *r = replace_path(pv->inputs[i], from, to);
        if (r) {
            free(pv->inputs[i]);
            pv->inputs[i] = r;
        }
    }
    for (size_t i = 0; i < pv->notes.n; i++) {
        char *r = replace_path(pv->notes.v[i].value, from, to);
        if (r) {
            rt_tags_set(&pv->notes, pv->notes.v[i].key, r);
            free(r);
        }
    }
}
