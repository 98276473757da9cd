/* The CUPTI collector from the command's side: finding librooftime-cupti.so, its directory, and
 * `import cupti --reevaluate` through the entry point it exports (cli-cupti.h). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-cupti.h"
#include "commands.h"
#include "rooftime/import/cupti-dir.h"
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

static void add_warning(void *ctx, const char *msg)
{
    rt_warnings_add(ctx, "%s", msg);
}

int cli_cupti_reevaluate(const char *dir, char **scratch, rt_warnings *w)
{
    *scratch = NULL;
    char *lib = cli_cupti_library();
    if (!lib) {
        cli_error("--reevaluate: " CLI_CUPTI_NOT_FOUND);
        return -1;
    }
    int rc = -1;
    /* Left loaded: libcupti, a dependency, is not made to be unloaded. */
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        cli_error("--reevaluate: cannot load %s: %s (it needs CUPTI's libcupti.so of the CUDA "
                  "toolkit it was built with)",
                  lib, dlerror());
        goto out;
    }
    rt_cupti_reevaluate_fn fn = (rt_cupti_reevaluate_fn)dlsym(h, RT_CUPTI_REEVALUATE_SYMBOL);
    if (!fn) {
        cli_error("--reevaluate: %s has no %s (a collector older than this rooftime?)", lib,
                  RT_CUPTI_REEVALUATE_SYMBOL);
        goto out;
    }
    const char *tmp = getenv("TMPDIR");
    char *s = rt_asprintf("%s/rooftime-reevaluate-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(s)) {
        cli_error("--reevaluate: cannot create a directory '%s': %s", s, strerror(errno));
        free(s);
        goto out;
    }
    char err[4096] = "";
    long n = fn(dir, s, add_warning, w, err, sizeof err);
    if (n < 0) {
        cli_error("%s", err);
        rt_cupti_remove_dir(s);
        free(s);
        goto out;
    }
    fprintf(stderr,
            "rooftime: import: %ld counter ranges evaluated again from the raw images in %s (%s)\n",
            n, dir, lib);
    *scratch = s;
    rc = 0;
out:
    free(lib);
    return rc;
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
