/* The API's diff of two runs: the table of `rooftime diff`, kernel by kernel (diff-format.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api-internal.h"
#include "rooftime/api/api.h"
#include "rooftime/core/model.h"
#include "rooftime/core/reference-ceiling.h"
#include "rooftime/formats/diff-format.h"

typedef struct diff_job {
    const rt_diff *d;
    const rt_profile *ps[2];
    rt_diff_opts o;
} diff_job;

static int write_diff(void *ctx, FILE *fp, rt_error *err)
{
    diff_job *j = ctx;
    if (rt_diff_write(j->d, j->ps, &j->o, fp) != 0) {
        rt_error_set(err, "cannot write the table");
        return -1;
    }
    return 0;
}

char *rt_api_diff(const rt_profile *before, const rt_profile *after, const rt_machine *m,
                  const char *mode, const char *tau, const char *reference, const char *by,
                  size_t top, const char *format)
{
    api_begin();
    rt_error err;
    rt_mode md = RT_MODE_SINGLE;
    const char *f = format ? format : "text";
    if (!before || !after) {
        api_fail("diff: expected two profiles, before and after");
        return NULL;
    }
    if (strcmp(f, "text") != 0 && strcmp(f, "csv") != 0) {
        api_fail("diff: format text or csv, not '%s'", f);
        return NULL;
    }
    if (mode && rt_mode_parse(mode, &md, &err) != 0) {
        api_fail("%s", err.msg);
        return NULL;
    }
    if (!m && (reference || tau)) {
        api_fail("diff: reference and tau need a machine");
        return NULL;
    }
    if (top > 1000000000) {
        api_fail("diff: top takes a whole number >= 1");
        return NULL;
    }
    rt_machine *mc = NULL;
    rt_profile *ps[2] = {NULL, NULL};
    char *out = NULL;
    rt_diff d = {0};
    /* copies: the reference and tau change the machine and the profiles */
    if (!(ps[0] = api_copy_profile(before)) || !(ps[1] = api_copy_profile(after)))
        goto done;
    if (m) {
        if (!(mc = api_copy_machine(m)))
            goto done;
        /* the reference chosen from both runs as `analyze` chooses it, or given */
        if (reference) {
            if (rt_reference_set(mc, reference, &err) != 0) {
                api_fail("%s", err.msg);
                goto done;
            }
        } else {
            rt_reference_choose(mc, ps, 2);
        }
        if (tau && api_apply_tau(mc, ps, 2, tau) != 0)
            goto done;
    }
    rt_diff_build(&d, ps[0], ps[1], by ? by : "name");
    diff_job j = {&d,
                  {ps[0], ps[1]},
                  {.m = mc,
                   .mode = md,
                   .by = by ? by : "name",
                   .top = top ? top : 30,
                   .csv = strcmp(f, "csv") == 0}};
    out = api_capture(write_diff, &j);
done:
    rt_diff_release(&d);
    rt_profile_free(ps[0]);
    rt_profile_free(ps[1]);
    rt_machine_free(mc);
    return out;
}
