/* `rooftime profile --torch -- python3 train.py`: profile an unmodified PyTorch script from the
 * outside (data/torch/runner/sitecustomize.py), import its trace with the cost model, record the
 * command's wall time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-output.h"
#include "cli-inputs.h"
#include "cli-profile.h"
#include "commands.h"
#include "rooftime/core/coverage.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/onednn.h"
#include "rooftime/import/torch.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "rooftime/util/spawn.h"
#include "rooftime/util/strings.h"

/* "FIRST:LAST" with 0 <= FIRST < LAST. */
static int parse_steps(const char *s, int *first, int *last)
{
    char *e;
    long a = strtol(s, &e, 10);
    if (e == s || *e != ':' || a < 0 || a > 1000000)
        return -1;
    const char *b = e + 1;
    long z = strtol(b, &e, 10);
    if (e == b || *e || z <= a || z > 1000000)
        return -1;
    *first = (int)a;
    *last = (int)z;
    return 0;
}

int cli_profile_torch(const char *output, const rt_tags *tags, const char *steps,
                      const char *conv_name, const char *keep_trace, const char *onednn_out,
                      int argc, char **argv)
{
    rt_conv_flops conv = RT_CONV_TAPS;
    int first = 0, last = 0;
    rt_error cerr;
    if (conv_name && rt_conv_flops_parse(conv_name, &conv, &cerr) != 0)
        return cli_usage_error("profile", "--conv-flops: %s", cerr.msg);
    if (steps && parse_steps(steps, &first, &last) != 0)
        return cli_usage_error("profile",
                               "--steps: expected FIRST:LAST with 0 <= FIRST < LAST, "
                               "got '%s'",
                               steps);
    int rc = cli_output_check("profile", keep_trace, NULL, 0);
    if (rc == 0)
        rc = cli_output_check("profile", onednn_out, NULL, 0);
    if (rc != 0)
        return rc;
    rt_onednn_reader *dn = NULL;
    rt_profile *dp = NULL;
    rt_error err = {{0}};
    rt_torch_ops *ops = NULL;
    rt_profile *p = NULL;
    rt_warnings warnings = {0};
    if (rt_torch_ops_load(NULL, &ops, &err) != 0) {
        cli_error("%s", err.msg);
        return RT_EXIT_FAIL;
    }
    rc = RT_EXIT_FAIL;
    char *trace = rt_asprintf("%s.trace.tmp.XXXXXX", output);
    int tfd = mkstemp(trace);
    if (tfd < 0) {
        cli_error("cannot write '%s': %s", trace, strerror(errno));
        free(trace);
        rt_torch_ops_free(ops);
        return RT_EXIT_FAIL;
    }
    close(tfd);
    const char *pp = getenv("PYTHONPATH");
    char *env[8];
    int ne = 0;
    env[ne++] = pp && *pp ? rt_asprintf("PYTHONPATH=%s/torch/runner:%s", rt_datadir(), pp)
                          : rt_asprintf("PYTHONPATH=%s/torch/runner", rt_datadir());
    env[ne++] = rt_asprintf("ROOFTIME_TORCH_TRACE=%s", trace);
    env[ne++] = rt_asprintf("ROOFTIME_TORCH_OPS=%s", rt_torch_ops_path(ops));
    if (steps)
        env[ne++] = rt_asprintf("ROOFTIME_TORCH_STEPS=%d:%d", first, last);
    if (onednn_out) {
        env[ne++] = rt_strdup("ONEDNN_VERBOSE=1");
        env[ne++] = rt_strdup("DNNL_VERBOSE=1");
    }
    env[ne] = NULL;
    rt_spawn_opts so = {
        .env = (const char *const *)env, .capture_stdout = onednn_out != NULL, .close_fd = -1};
    rt_child child;
    char *command = rt_spawn_command_text(argc, argv);
    double t0 = rt_now();
    if (rt_spawn(argv, &so, &child, &err) != 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    if (onednn_out) {
        dn = rt_onednn_reader_new("the command's output");
        cli_profile_route(child.out_fd, dn, NULL);
    }
    int status = rt_spawn_wait(&child);
    double wall = rt_now() - t0;
    if (child.signal)
        fprintf(stderr, "rooftime: profile: '%s' was killed by signal %d (%s)\n", command,
                child.signal, strsignal(child.signal));
    else if (status >= 0)
        fprintf(stderr, "rooftime: profile: '%s' exited with code %d\n", command, status);
    /* the scratch trace's name is gone by the time a message is read: the file it becomes, or
     * the command that wrote it */
    rt_torch_options to = {
        .ops = ops, .conv = conv, .by_source = 1, .origin = keep_trace ? keep_trace : command};
    if (rt_import_torch_opts(trace, &to, &p, &warnings, &err) != 0) {
        cli_print_warnings(&warnings, 20, NULL);
        cli_error("nothing to profile: '%s' left no readable PyTorch trace (does it run "
                  "torch under /usr/bin/python3 or another python with torch?): %s",
                  command, err.msg);
        goto out;
    }
    cli_print_warnings(&warnings, 20, NULL);
    char buf[512];
    rt_profile_note_run(p, command, wall, buf, sizeof buf);
    p->machine = rt_cpu_describe(); /* the machine it ran on: this one */
    if (onednn_out) {
        /* the oneDNN reader's own warnings: the trace's are printed already */
        rt_warnings_release(&warnings);
        if (rt_onednn_reader_finish(dn, &dp, &warnings, &err) != 0) {
            cli_print_warnings(&warnings, 20, NULL);
            cli_error("--onednn-output: '%s' printed no oneDNN verbose execution records: %s",
                      command, err.msg);
            goto out;
        }
        free(dp->command);
        dp->command = rt_strdup_utf8(command);
        dp->machine = rt_cpu_describe();
        cli_print_warnings(&warnings, 20, NULL);
        rt_torch_join_onednn(p, dp);
    }
    if (cli_save_profile(p, tags, output) != 0)
        goto out;
    if (dp && cli_save_profile(dp, tags, onednn_out) != 0)
        goto out;
    if (keep_trace && rename(trace, keep_trace) != 0) {
        cli_error("cannot write '%s': %s", keep_trace, strerror(errno));
        goto out;
    }
    fprintf(stderr, "rooftime: profile: %s: %zu kernels; %s\n", output, p->n_kernels, buf);
    fprintf(stderr, "rooftime: profile: %s; %s\n",
            rt_tags_get(&p->provenance.notes, "torch_coverage"),
            rt_tags_get(&p->provenance.notes, "torch_source_coverage"));
    if (status != 0)
        cli_error("the command failed; the profile holds what it ran before");
    rc = status != 0 ? RT_EXIT_FAIL : RT_EXIT_OK;
out:
    unlink(trace);
    free(trace);
    free(command);
    for (int i = 0; i < ne; i++)
        free(env[i]);
    rt_profile_free(p);
    rt_profile_free(dp);
    rt_onednn_reader_free(dn);
    rt_warnings_release(&warnings);
    rt_torch_ops_free(ops);
    return rc;
}
