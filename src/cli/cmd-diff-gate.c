/* `rooftime diff --gate BEFORE[,RUN...] AFTER[,RUN...]`: the regression gate for CI (the judging
 * is diff-gate.c's): the failing rows first, then diff's table, then the verdict; exit 1 when
 * AFTER is worse beyond noise or the gate refused, 0 otherwise; JUnit XML and Markdown beside. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-diff.h"
#include "cli-inputs.h"
#include "cli-output.h"
#include "commands.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/diff-format.h"
#include "rooftime/formats/diff-gate.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* Write one of the gate's files atomically (never over an input); 0 or the exit code. */
static int write_file(const char *path, char *const *inputs, size_t n, const rt_gate *g,
                      int (*write)(const rt_gate *, FILE *))
{
    if (!path)
        return 0;
    cli_output o;
    int rc = cli_output_open(&o, "diff", path, inputs, n);
    if (rc != 0)
        return rc;
    int bad = write(g, o.fp) != 0;
    rc = cli_output_close(&o, bad);
    if (bad && rc == 0)
        rc = RT_EXIT_FAIL;
    return rc;
}

int cli_diff_gate(const cli_diff_gate_opts *go, const cli_analysis_opts *in, const char *before,
                  const char *after)
{
    size_t n[2] = {0, 0};
    char **paths[2] = {rt_split_list(before, &n[0]), rt_split_list(after, &n[1])};
    rt_profile **runs[2] = {NULL, NULL};
    rt_machine *m = NULL;
    char **all = NULL;
    int rc = RT_EXIT_USAGE;
    rt_error err = {{0}};
    rt_gate g = {0};
    if (n[0] == 0 || n[1] == 0) {
        rc = cli_usage_error("diff", "--gate: expected BEFORE and AFTER, each a profile or a "
                                     "comma list of runs");
        goto out;
    }
    for (int s = 0; s < 2; s++)
        if ((rc = cli_inputs_distinct("diff", paths[s], n[s])) != 0)
            goto out;
    all = rt_xcalloc(n[0] + n[1], sizeof *all);
    memcpy(all, paths[0], n[0] * sizeof *all);
    memcpy(all + n[0], paths[1], n[1] * sizeof *all);
    if ((rc = cli_output_check("diff", go->junit, all, n[0] + n[1])) != 0 ||
        (rc = cli_output_check("diff", go->summary, all, n[0] + n[1])) != 0)
        goto out;
    rc = RT_EXIT_FAIL;
    rt_profile **ps = rt_xcalloc(n[0] + n[1], sizeof *ps);
    runs[0] = ps;
    runs[1] = ps + n[0];
    for (size_t i = 0; i < n[0] + n[1]; i++)
        if (rt_profile_load(all[i], &ps[i], &err) != 0) {
            cli_error("%s", err.msg);
            goto out;
        }
    if (in->machine && rt_machine_resolve(in->machine, &m, &err) != 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    /* the reference unit and level chosen from every run, as analyze chooses them, or given */
    if (m && (rc = cli_analysis_apply(in, "diff", m, ps, n[0] + n[1])) != 0)
        goto out;
    rc = RT_EXIT_FAIL;
    rt_gate_opts o = go->gate;
    o.m = m;
    o.mode = go->mode;
    o.by = go->by;
    rt_gate_judge(&g, (const rt_profile *const *)runs[0], n[0], (const rt_profile *const *)runs[1],
                  n[1], &o);
    int wr = write_file(go->junit, all, n[0] + n[1], &g, rt_gate_write_junit);
    if (wr == 0)
        wr = write_file(go->summary, all, n[0] + n[1], &g, rt_gate_write_markdown);
    if (wr != 0) {
        rc = wr;
        goto out;
    }
    if (rt_gate_write_report(&g, (const rt_profile *const *)runs[0],
                             (const rt_profile *const *)runs[1], go->top, stdout) != 0) {
        cli_error("cannot write the gate's report");
        goto out;
    }
    if (g.refused)
        cli_error("diff --gate refused: %s", g.refused);
    rc = rt_gate_status(&g) ? RT_EXIT_FAIL : RT_EXIT_OK;
out:
    rt_gate_release(&g);
    for (size_t i = 0; runs[0] && i < n[0] + n[1]; i++)
        rt_profile_free(runs[0][i]);
    free(runs[0]);
    free(all);
    rt_free_list(paths[0], n[0]);
    rt_free_list(paths[1], n[1]);
    rt_machine_free(m);
    return rc;
}
