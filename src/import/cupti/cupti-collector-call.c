/* `import cupti --reevaluate` (rooftime/import/cupti.h): kept raw counter images evaluated again
 * through the entry point librooftime-cupti.so exports, loaded with dlopen (the import wing cannot
 * link the collector); the command and the API both call it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/import/cupti-dir.h"
#include "rooftime/import/cupti.h"
#include "rooftime/util/strings.h"

static void add_warning(void *ctx, const char *msg)
{
    rt_warnings_add(ctx, "%s", msg);
}

long rt_cupti_reevaluate(const char *lib, const char *dir, char **scratch, rt_warnings *w,
                         rt_error *err)
{
    *scratch = NULL;
    /* Left loaded: libcupti, a dependency, is not made to be unloaded. */
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        rt_error_set(err,
                     "--reevaluate: cannot load %s: %s (it needs CUPTI's libcupti.so of the CUDA "
                     "toolkit it was built with)",
                     lib, dlerror());
        return -1;
    }
    rt_cupti_reevaluate_fn fn = (rt_cupti_reevaluate_fn)dlsym(h, RT_CUPTI_REEVALUATE_SYMBOL);
    if (!fn) {
        rt_error_set(err, "--reevaluate: %s has no %s (a collector older than this rooftime?)", lib,
                     RT_CUPTI_REEVALUATE_SYMBOL);
        return -1;
    }
    const char *tmp = getenv("TMPDIR");
    char *s = rt_asprintf("%s/rooftime-reevaluate-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(s)) {
        rt_error_set(err, "--reevaluate: cannot create a directory '%s': %s", s, strerror(errno));
        free(s);
        return -1;
    }
    char msg[4096] = "";
    long n = fn(dir, s, add_warning, w, msg, sizeof msg);
    if (n < 0) {
        rt_error_set(err, "%s", msg);
        rt_cupti_remove_dir(s);
        free(s);
        return -1;
    }
    *scratch = s;
    return n;
}
