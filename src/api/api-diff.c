/* The API's diff of two runs: the table of `rooftime diff`, kernel by kernel (diff-format.c), and
 * its regression gate (diff-gate.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api-internal.h"
#include "rooftime/api/api.h"
#include "rooftime/core/model.h"
#include "rooftime/core/reference-ceiling.h"
#include "rooftime/formats/diff-format.h"
#include "rooftime/formats/diff-gate.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/strings.h"

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
        if (rt_reference_tau_apply(mc, ps, 2, reference, tau, "tau", &err) != 0) {
            api_fail("%s", err.msg);
            goto done;
        }
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

rt_profile *rt_api_mean_profile(const rt_profile *const *runs, size_t n)
{
    api_begin();
    if (!runs || n == 0) {
        api_fail("mean of runs: expected at least one profile");
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!runs[i]) {
            api_fail("mean of runs: run %zu is not a profile", i + 1);
            return NULL;
        }
    return rt_gate_mean_profile(runs, n);
}

typedef struct gate_job {
    const rt_gate *g;
    const rt_profile *const *runs[2];
    size_t top;
    int what; /* 0 the report, 1 CSV, 2 JUnit, 3 Markdown */
} gate_job;

static int write_gate(void *ctx, FILE *fp, rt_error *err)
{
    gate_job *j = ctx;
    int rc = j->what == 0   ? rt_gate_write_report(j->g, j->runs[0], j->runs[1], j->top, fp)
             : j->what == 1 ? rt_gate_write_csv(j->g, -1, fp)
             : j->what == 2 ? rt_gate_write_junit(j->g, fp)
                            : rt_gate_write_markdown(j->g, fp);
    if (rc != 0)
        rt_error_set(err, "cannot write the gate's report");
    return rc;
}

/* The gate's JUnit (what 2) or Markdown (3) into path, atomically; -1 with the error set. */
static int gate_file(gate_job *j, int what, const char *path)
{
    if (!path)
        return 0;
    j->what = what;
    char *text = api_capture(write_gate, j);
    if (!text)
        return -1;
    rt_error err;
    int rc = rt_write_file_atomic(path, text, strlen(text), &err);
    free(text);
    if (rc != 0)
        api_fail("%s", err.msg);
    return rc;
}

/* The gate's options with the defaults for negative values; -1 with the error set. */
static int gate_opts(const rt_api_gate_opts *in, rt_gate_opts *o)
{
    rt_api_gate_opts d = {-1, -1, -1, 0, 0, 0, NULL, NULL};
    if (!in)
        in = &d;
    *o = (rt_gate_opts){
        .threshold = in->threshold < 0 ? RT_GATE_DEFAULT_THRESHOLD : in->threshold,
        .min_share = in->min_share < 0 ? RT_GATE_DEFAULT_MIN_SHARE : in->min_share,
        .launches = in->launches < 0 ? RT_GATE_DEFAULT_LAUNCHES : in->launches,
        .strict = in->strict != 0,
        .other_machine = in->other_machine != 0,
        .suspect_machine = in->suspect_machine != 0,
    };
    if (!(o->threshold > 0) || o->threshold > 10 || !(o->min_share <= 1) ||
        !(o->launches <= 1e15)) {
        api_fail("gate: threshold takes a fraction above 0 (0.05), min_share one from 0 to 1, "
                 "launches a number >= 0");
        return -1;
    }
    return 0;
}

/* Copies of the runs with the machine's reference and tau applied as `diff` applies them. */
static int gate_inputs(const rt_profile *const *runs, size_t n, rt_profile **out)
{
    for (size_t i = 0; i < n; i++)
        if (!runs[i] || !(out[i] = api_copy_profile(runs[i]))) {
            if (!runs[i])
                api_fail("gate: run %zu is not a profile", i + 1);
            return -1;
        }
    return 0;
}

char *rt_api_gate(const rt_profile *const *before, size_t nb, const rt_profile *const *after,
                  size_t na, const rt_machine *m, const char *mode, const char *tau,
                  const char *reference, const char *by, size_t top, const rt_api_gate_opts *o,
                  const char *format, int *status)
{
    api_begin();
    rt_error err;
    rt_gate_opts go;
    const char *f = format ? format : "text";
    if (!before || !after || nb == 0 || na == 0) {
        api_fail("gate: expected runs before and after, at least one each");
        return NULL;
    }
    if (strcmp(f, "text") != 0 && strcmp(f, "csv") != 0) {
        api_fail("gate: format text or csv, not '%s'", f);
        return NULL;
    }
    if (gate_opts(o, &go) != 0)
        return NULL;
    if (mode && rt_mode_parse(mode, &go.mode, &err) != 0) {
        api_fail("%s", err.msg);
        return NULL;
    }
    if (!m && (reference || tau)) {
        api_fail("gate: reference and tau need a machine");
        return NULL;
    }
    rt_machine *mc = NULL;
    rt_profile **ps = rt_xcalloc(nb + na, sizeof *ps);
    char *out = NULL;
    rt_gate g = {0};
    if (gate_inputs(before, nb, ps) != 0 || gate_inputs(after, na, ps + nb) != 0)
        goto done;
    if (m) {
        if (!(mc = api_copy_machine(m)))
            goto done;
        if (rt_reference_tau_apply(mc, ps, nb + na, reference, tau, "tau", &err) != 0) {
            api_fail("%s", err.msg);
            goto done;
        }
    }
    go.m = mc;
    go.by = by ? by : "name";
    rt_gate_judge(&g, (const rt_profile *const *)ps, nb, (const rt_profile *const *)ps + nb, na,
                  &go);
    gate_job j = {
        &g, {(const rt_profile *const *)ps, (const rt_profile *const *)ps + nb}, top ? top : 30, 0};
    if (gate_file(&j, 2, o ? o->junit : NULL) != 0 || gate_file(&j, 3, o ? o->summary : NULL) != 0)
        goto done;
    j.what = strcmp(f, "csv") == 0;
    out = api_capture(write_gate, &j);
    if (out && status)
        *status = g.refused ? 2 : g.n_fail > 0;
done:
    rt_gate_release(&g);
    for (size_t i = 0; i < nb + na; i++)
        rt_profile_free(ps[i]);
    free(ps);
    rt_machine_free(mc);
    return out;
}
