/* PyTorch in the study: runs scripts/torch-client.py per sweep point and imports its traces. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rooftime/import-frameworks.h"
#include "rooftime/util.h"
#include "study-torch.h"

/* Run argv with stdout to /dev/null and stderr to errfile (NULL: /dev/null); the exit status, or
 * -1 when it could not start. No shell. */
static int run_quiet(char *const argv[], const char *errfile)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int dn = open("/dev/null", O_WRONLY);
        int ef = errfile ? open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600) : dn;
        if (dn >= 0)
            dup2(dn, STDOUT_FILENO);
        if (ef >= 0)
            dup2(ef, STDERR_FILENO);
        execvp(argv[0], argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int rt_torch_study_available(const char *python)
{
    char *argv[] = {(char *)python, "-c", "import torch", NULL};
    return run_quiet(argv, NULL) == 0;
}

/* The last non-empty line of a file (the client's error), or "". */
static void last_line(const char *path, char *out, size_t n)
{
    out[0] = '\0';
    FILE *fp = fopen(path, "r");
    if (!fp)
        return;
    char line[1024];
    while (fgets(line, sizeof line, fp))
        if (line[0] != '\n') {
            line[strcspn(line, "\n")] = '\0';
            snprintf(out, n, "%s", line);
        }
    fclose(fp);
}

int rt_torch_study_run(const char *python, const char *script, const rt_torch_study_opts *o,
                       rt_profile **out, rt_error *err)
{
    *out = NULL;
    if (o->precision != RT_PREC_FP32 && o->precision != RT_PREC_BF16) {
        rt_error_set(err, "pytorch: precision %s is not run (fp32 and bf16 on the CPU)",
                     rt_precision_name(o->precision));
        return -1;
    }
    if (o->pass != RT_PASS_FWD && o->pass != RT_PASS_BWD) {
        rt_error_set(err, "pytorch: pass %s is not separable (torch runs one backward)",
                     rt_pass_name(o->pass));
        return -1;
    }
    const char *tmp = o->tmpdir ? o->tmpdir : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char *dir = rt_asprintf("%s/rooftime-torch-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        rt_error_set(err, "cannot create a directory under '%s': %s", tmp, strerror(errno));
        free(dir);
        return -1;
    }
    char *trace = rt_asprintf("%s/trace.json", dir), *errf = rt_asprintf("%s/stderr.txt", dir);
    rt_profile *prof = o->into;
    if (!prof) {
        prof = rt_profile_new();
        prof->tool = rt_strdup("pytorch-profiler");
        prof->version = rt_strdup("chrome-trace");
        prof->command = rt_asprintf("%s %s", python, script);
        prof->method = rt_asprintf(
            "scripts/torch-client.py per sweep point, %d warm-up and %d measured iterations "
            "recorded by the PyTorch profiler (record_shapes, with_flops); operators by self time "
            "inside the measured ranges; FLOPs as torch records them; no bytes",
            o->warmup > 0 ? o->warmup : 5, o->iters > 0 ? o->iters : 20);
    }
    rt_tags base = {0};
    rt_tags_set(&base, "implementation", "pytorch");
    rt_tags_set(&base, "precision", rt_precision_name(o->precision));
    rt_tags_set(&base, "operation", rt_study_op_name(o->op));
    rt_tags_set(&base, "pass", rt_pass_name(o->pass));
    rt_tags_copy(&prof->tags, &base);
    size_t np = 0;
    const char *const *params = rt_study_params(o->op, &np);
    int rc = -1;
    for (size_t i = 0; i < o->n_points; i++) {
        const rt_study_point *pt = &o->points[i];
        char a[16][32];
        int k = 0;
        char *argv[48];
        int na = 0;
        argv[na++] = (char *)python;
        argv[na++] = (char *)script;
        argv[na++] = "--op";
        argv[na++] = (char *)rt_study_op_name(o->op);
        argv[na++] = "--precision";
        argv[na++] = (char *)rt_precision_name(o->precision);
        argv[na++] = "--pass";
        argv[na++] = o->pass == RT_PASS_FWD ? "forward" : "backward";
#define ARG(flag, value)                                                                           \
    do {                                                                                           \
        snprintf(a[k], sizeof a[k], "%ld", (long)(value));                                         \
        argv[na++] = flag;                                                                         \
        argv[na++] = a[k++];                                                                       \
    } while (0)
        if (o->op == RT_OP_CONV2D) {
            const rt_conv_shape *s = &pt->conv;
            if (s->h != s->w || s->r != s->s) {
                rt_error_set(err, "pytorch: the client runs square inputs and kernels only");
                goto out;
            }
            ARG("--batch", s->n);
            ARG("--channels", s->c);
            ARG("--input", s->h);
            ARG("--filters", s->k);
            ARG("--kernel", s->r);
            ARG("--stride", s->stride);
            ARG("--padding", s->pad);
        } else {
            const rt_lstm_shape *s = &pt->lstm;
            ARG("--batch", s->batch);
            ARG("--seq", s->seq);
            ARG("--features", s->features);
            ARG("--hidden", s->hidden);
        }
        ARG("--warmup", o->warmup > 0 ? o->warmup : 5);
        ARG("--iters", o->iters > 0 ? o->iters : 20);
#undef ARG
        argv[na++] = "--trace";
        argv[na++] = trace;
        argv[na] = NULL;
        remove(trace);
        int st = run_quiet(argv, errf);
        if (st != 0) {
            char why[1024];
            last_line(errf, why, sizeof why);
            rt_error_set(err, "pytorch: '%s %s' %s%s%s", python, script,
                         st < 0 ? "could not start" : "failed", why[0] ? ": " : "", why);
            goto out;
        }
        rt_warnings w = {0};
        rt_profile *p = NULL;
        if (rt_import_torch(trace, "rooftime:measured", &p, &w, err) != 0) {
            rt_warnings_release(&w);
            goto out;
        }
        rt_warnings_release(&w);
        rt_tags tags = {0};
        rt_tags_copy(&tags, &base);
        for (size_t j = 0; j < np; j++) {
            char v[32];
            snprintf(v, sizeof v, "%ld", rt_study_point_param(pt, params[j]));
            rt_tags_set(&tags, params[j], v);
        }
        for (size_t j = 0; j < p->n_kernels; j++)
            rt_kernel_accumulate(rt_profile_find_or_add(prof, p->kernels[j].name, &tags),
                                 &p->kernels[j]);
        rt_tags_release(&tags);
        rt_profile_free(p);
    }
    *out = prof;
    prof = NULL;
    rc = 0;
out:
    if (prof && prof != o->into)
        rt_profile_free(prof);
    rt_tags_release(&base);
    remove(trace);
    remove(errf);
    rmdir(dir);
    free(trace);
    free(errf);
    free(dir);
    return rc;
}
