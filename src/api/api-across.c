/* The API's analysis across ranks: `analyze --across rank` folded one profile at a time. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api-internal.h"
#include "rooftime/api/api.h"
#include "rooftime/core/across.h"
#include "rooftime/core/comm.h"
#include "rooftime/formats/across-format.h"
#include "rooftime/formats/comm-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/render/chart-across.h"

/* The launcher's rank when the profile records one, else its place among the inputs (as
 * cmd-analyze-across.c). */
static long rank_of(const rt_profile *p, size_t i)
{
    return p->identity && p->identity->rank >= 0 ? p->identity->rank : (long)i;
}

rt_across *rt_api_across_new(const char *const *paths, size_t n, double straggler, size_t slowest)
{
    api_begin();
    rt_across_opts ao = RT_ACROSS_DEFAULTS;
    if (straggler != 0) {
        if (!(straggler > 0) || straggler > 100) {
            api_fail("straggler takes a fraction > 0 (0.2: 20%% above the median), not %g",
                     straggler);
            return NULL;
        }
        ao.straggler = straggler;
    }
    if (slowest != 0) {
        if (slowest > 1000) {
            api_fail("slowest takes a whole number from 1 to 1000, not %zu", slowest);
            return NULL;
        }
        ao.slowest = slowest;
    }
    if (n == 0) {
        api_fail("across: no profile given");
        return NULL;
    }
    rt_comm_patterns patterns = {0};
    rt_error err;
    if (rt_comm_patterns_load(NULL, &patterns, &err) != 0) {
        api_fail("communication kernel patterns: %s", err.msg);
        return NULL;
    }
    rt_across *a = rt_across_new(&ao);
    for (size_t i = 0; i < n; i++) {
        rt_profile *p = NULL;
        if (!paths[i] || rt_profile_load(paths[i], &p, &err) != 0) {
            api_fail("%s", paths[i] ? err.msg : "across: a profile path is missing");
            goto fail;
        }
        rt_comm_tag_profile(&patterns, p);
        int rc = rt_across_add(a, p, rank_of(p, i), paths[i], &err);
        rt_profile_free(p);
        if (rc != 0) {
            api_fail("%s", err.msg);
            goto fail;
        }
    }
    rt_comm_patterns_release(&patterns);
    rt_across_finish(a);
    return a;
fail:
    rt_comm_patterns_release(&patterns);
    rt_across_free(a);
    return NULL;
}

typedef struct across_job {
    const rt_across *a;
    int json;
    size_t top;
} across_job;

static int write_across(void *ctx, FILE *fp, rt_error *err)
{
    across_job *j = ctx;
    if (!j->json)
        return rt_across_write_text(j->a, j->top, fp);
    int rc = rt_across_write_json(j->a, fp);
    if (rc != 0)
        rt_error_set(err, "cannot write the analysis across ranks as JSON");
    return rc;
}

char *rt_api_across_text(const rt_across *a, const char *format, size_t top)
{
    api_begin();
    if (!a) {
        api_fail("no analysis across ranks");
        return NULL;
    }
    const char *f = format ? format : "text";
    if (strcmp(f, "text") != 0 && strcmp(f, "json") != 0) {
        api_fail("across: format text or json, not '%s'", f);
        return NULL;
    }
    across_job j = {a, strcmp(f, "json") == 0, top};
    return api_capture(write_across, &j);
}

int rt_api_across_chart(const rt_across *a, const rt_machine *m, const char *path)
{
    api_begin();
    rt_error err;
    if (!a || !path) {
        api_fail("no analysis across ranks or no path");
        return -1;
    }
    if (rt_chart_across_write(a, m, path, &err) != 0) {
        api_fail("%s", err.msg);
        return -1;
    }
    return 0;
}

void rt_api_across_free(rt_across *a)
{
    rt_across_free(a);
}
