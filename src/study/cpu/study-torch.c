/* PyTorch in the study: runs scripts/torch-client.py over the sweep points and imports its traces.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rooftime-config.h"
#include "study-torch-units.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/torch.h"
#include "rooftime/study/study-run.h"
#include "rooftime/study/study-scripts.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-torch.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "rooftime/util/spawn.h"
#include "rooftime/util/strings.h"

/* Run argv with stdout to /dev/null and stderr to errfile (NULL: /dev/null); its exit code,
 * 128 + signal, 127 when it could not start. */
static int run_quiet(char *const argv[], const char *errfile)
{
    rt_spawn_opts so = {
        .stdout_path = "/dev/null", .stderr_path = errfile ? errfile : "/dev/null", .close_fd = -1};
    rt_child c;
    if (rt_spawn(argv, &so, &c, NULL) != 0)
        return 127;
    return rt_spawn_wait(&c);
}

int rt_torch_study_probe(const char *python, rt_error *err)
{
    char *argv[] = {(char *)python, "-c", "import torch", NULL};
    int st = run_quiet(argv, NULL);
    if (st == 0)
        return 0;
    if (st == 127 || st < 0)
        rt_error_set(err, "cannot run '%s' (set ROOFTIME_PYTHON to a python3 that has torch)",
                     python);
    else
        rt_error_set(err,
                     "'%s' cannot import torch (Debian python3-torch; or set ROOFTIME_PYTHON to a "
                     "python3 that has it)",
                     python);
    return -1;
}

int rt_torch_study_probe_sdpa(const char *python, rt_error *err)
{
    char *argv[] = {(char *)python, "-c",
                    "import torch.nn.functional as F; F.scaled_dot_product_attention", NULL};
    if (run_quiet(argv, NULL) == 0)
        return 0;
    rt_error_set(err,
                 "the torch of '%s' has no scaled_dot_product_attention (torch 2.0 and later; "
                 "set ROOFTIME_PYTHON to a python3 with one)",
                 python);
    return -1;
}

int rt_torch_study_available(const char *python)
{
    rt_error err;
    return rt_torch_study_probe(python, &err) == 0;
}

const char *rt_torch_study_python(void)
{
    return rt_spawn_python();
}

char *rt_torch_study_script(rt_error *err)
{
    return rt_study_script("scripts/torch-client.py", err);
}

int rt_study_sdpa_check(const rt_study_opts *o, rt_error *err)
{
    const char *python = o->python ? o->python : rt_torch_study_python();
    if (rt_study_torch_check(o, err) != 0)
        return -1;
    return rt_torch_study_probe_sdpa(python, err);
}

int rt_study_torch_check(const rt_study_opts *o, rt_error *err)
{
    const char *python = o->python ? o->python : rt_torch_study_python();
    if (rt_torch_study_probe(python, err) != 0)
        return -1;
    char *script = rt_torch_study_script(err);
    int rc = script ? 0 : -1;
    free(script);
    return rc;
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

/* "batch=16,channels=64,...": the client's --point for pt; caller frees. */
static char *point_spec(const rt_study_point *pt)
{
    if (pt->op == RT_OP_CONV2D) {
        const rt_conv_shape *s = &pt->conv;
        return rt_asprintf("batch=%ld,channels=%ld,input=%ld,filters=%ld,kernel=%ld,stride=%ld,"
                           "padding=%ld",
                           s->n, s->c, s->h, s->k, s->r, s->stride, s->pad);
    }
    if (pt->op == RT_OP_ATTENTION)
        return rt_asprintf("batch=%ld,heads=%ld,seq=%ld,head_dim=%ld,causal=%ld", pt->attn.batch,
                           pt->attn.heads, pt->attn.seq, pt->attn.head_dim, pt->attn.causal);
    if (pt->op == RT_OP_MLP)
        return rt_asprintf("tokens=%ld,hidden=%ld,ffn=%ld,gated=%ld", pt->mlp.tokens,
                           pt->mlp.hidden, pt->mlp.ffn, pt->mlp.gated);
    if (pt->op == RT_OP_DECODE)
        return rt_asprintf("batch=%ld,cache=%ld,hidden=%ld,heads=%ld,ffn=%ld", pt->dec.batch,
                           pt->dec.cache, pt->dec.hidden, pt->dec.heads, pt->dec.ffn);
    const rt_lstm_shape *s = &pt->lstm;
    return rt_asprintf("batch=%ld,seq=%ld,features=%ld,hidden=%ld", s->batch, s->seq, s->features,
                       s->hidden);
}

/* Add the kernels of point i's trace to prof under the point's tags, each operator that ran a
 * oneDNN primitive on that primitive's unit and tagged onednn with its implementation (the
 * point's oneDNN verbose output in dnnlog joined to the trace: rt_torch_units_join). */
static int import_point(const char *trace, const char *dnnlog, const char *spec,
                        rt_torch_units *units, const rt_tags *base, const rt_study_point *pt,
                        const rt_torch_ops *ops, rt_profile *prof, rt_error *err)
{
    rt_warnings w = {0};
    rt_profile *p = NULL;
    /* as `profile --torch` imports its runner's traces: FLOPs and bytes from the cost model,
     * convolutions by the taps inside the input as the study's own implementations count them */
    rt_torch_options to = {.within = "rooftime:measured", .ops = ops, .conv = RT_CONV_TAPS};
    int rc = rt_import_torch_opts(trace, &to, &p, &w, err);
    rt_warnings_release(&w);
    if (rc != 0)
        return -1;
    if (rt_torch_units_join(units, dnnlog, spec, p, err) != 0) {
        rt_profile_free(p);
        return -1;
    }
    rt_tags tags = {0};
    rt_tags_copy(&tags, base);
    size_t np = 0;
    const char *const *params = rt_study_params(pt->op, &np);
    for (size_t j = 0; j < np; j++) {
        char v[32];
        snprintf(v, sizeof v, "%ld", rt_study_point_param(pt, params[j]));
        rt_tags_set(&tags, params[j], v);
    }
    rt_torch_study_causal_credit(p, pt);
    for (size_t j = 0; j < p->n_kernels; j++) {
        const rt_kernel *k = &p->kernels[j];
        const char *impl = rt_tags_get(&k->tags, "onednn");
        rt_tags kt = {0};
        if (impl) {
            rt_tags_copy(&kt, &tags);
            rt_tags_set(&kt, "onednn", impl);
        }
        rt_kernel_accumulate(rt_profile_find_or_add(prof, k->name, impl ? &kt : &tags), k);
        rt_tags_release(&kt);
    }
    rt_tags_release(&tags);
    /* which torch the client ran, on how many threads: the sweep's profile says it too */
    static const char *const facts[] = {"torch_version", "torch_profiler", "torch_threads"};
    for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++) {
        const char *v = rt_tags_get(&p->provenance.notes, facts[i]);
        if (v)
            rt_tags_set(&prof->provenance.notes, facts[i], v);
    }
    if (p->threads > 0) /* what ran its operators, as torch recorded it */
        prof->threads = p->threads;
    rt_profile_free(p);
    return 0;
}

/* What the client cannot run: a precision, a pass or a shape it has no code for; 0, or -1 with
 * err set. */
static int check_options(const rt_torch_study_opts *o, rt_error *err)
{
    if (o->precision != RT_PREC_FP32 && o->precision != RT_PREC_BF16) {
        rt_error_set(err, "pytorch: precision %s is not run (fp32 and bf16 on the CPU)",
                     rt_precision_name(o->precision));
        return -1;
    }
    bool split = o->pass == RT_PASS_BWD_DATA || o->pass == RT_PASS_BWD_WEIGHTS;
    if (o->pass != RT_PASS_FWD && o->pass != RT_PASS_BWD && !(split && o->op == RT_OP_CONV2D)) {
        rt_error_set(err,
                     "pytorch: pass %s is not separable (torch runs one backward; conv2d's "
                     "splits by output_mask)",
                     rt_pass_name(o->pass));
        return -1;
    }
    for (size_t i = 0; i < o->n_points; i++) {
        const rt_conv_shape *s = &o->points[i].conv;
        if (o->points[i].op != o->op) {
            rt_error_set(err, "pytorch: point %zu is not a %s point", i, rt_study_op_name(o->op));
            return -1;
        }
        if (o->op == RT_OP_CONV2D && (s->h != s->w || s->r != s->s)) {
            rt_error_set(err,
                         "pytorch: the client runs square inputs and kernels only (point %zu "
                         "is %ldx%ld, kernel %ldx%ld)",
                         i, s->h, s->w, s->r, s->s);
            return -1;
        }
    }
    return 0;
}

/* A new profile for the sweep, its provenance saying how the client measured it. */
static rt_profile *sweep_profile(const char *python, const char *script, int warmup, int iters)
{
    rt_profile *prof = rt_profile_new();
    prof->tool = rt_strdup("pytorch-profiler");
    prof->time_kind = RT_TIME_WALL;
    prof->bytes_kind = RT_BYTES_ESTIMATED; /* the cost model's compulsory traffic, at DRAM */
    prof->overhead = rt_strdup(RT_OVERHEAD_FRAMEWORK);
    prof->version = rt_strdup("chrome-trace");
    prof->command = rt_asprintf("%s %s", python, script);
    prof->method = rt_asprintf(
        "scripts/torch-client.py over the sweep points in one process, %d warm-up and %d "
        "measured iterations per point recorded by the PyTorch profiler (record_shapes, "
        "with_flops) and written by the profile --torch runner (types, concrete arguments); "
        "operators by self time inside the measured ranges, each point's trace read before the "
        "next point's measured iterations; FLOPs and bytes from their "
        "shapes by the cost model (data/torch/ops.json), as `rooftime profile --torch` gives "
        "them; each operator that ran a oneDNN primitive on the primitive's unit, from one more "
        "pass per point, untimed, with oneDNN verbose output on",
        warmup, iters);
    return prof;
}

/* The client's command line: python script --op .. --precision .. --pass .. --warmup W --iters N
 * --trace-dir DIR --onednn-dir DIR --progress-fd FD --go-fd GO --threads T --runner R --ops O
 * --point SPEC ...
 * The numbers live here: the progress and go fds' (nums[2], nums[4]) are written once the pipe
 * and the socket exist. */
typedef struct client_cmd {
    char **argv;
    size_t n, first_spec; /* argv[first_spec + 2 i + 1] is point i's spec */
    char nums[5][32];
    char *runner;
} client_cmd;

static void client_cmd_build(client_cmd *c, const char *python, const char *script,
                             const rt_torch_study_opts *o, int warmup, int iters, const char *dir,
                             const rt_torch_ops *ops)
{
    size_t na = 0;
    c->runner = rt_asprintf("%s/torch/runner/sitecustomize.py", rt_datadir());
    snprintf(c->nums[0], sizeof c->nums[0], "%d", warmup);
    snprintf(c->nums[1], sizeof c->nums[1], "%d", iters);
    snprintf(c->nums[3], sizeof c->nums[3], "%d", o->threads > 0 ? o->threads : 0);
    bool attn = o->op == RT_OP_ATTENTION || o->op == RT_OP_DECODE;
    const char *fixed[] = {python,          script,
                           "--op",          rt_study_op_name(o->op),
                           "--precision",   rt_precision_name(o->precision),
                           "--pass",        rt_pass_name(o->pass),
                           "--warmup",      c->nums[0],
                           "--iters",       c->nums[1],
                           "--trace-dir",   dir,
                           "--onednn-dir",  dir,
                           "--progress-fd", c->nums[2],
                           "--go-fd",       c->nums[4],
                           "--threads",     c->nums[3],
                           "--runner",      c->runner,
                           "--ops",         rt_torch_ops_path(ops)};
    size_t n_fixed = sizeof fixed / sizeof fixed[0];
    c->argv = rt_xcalloc(n_fixed + 2 + 2 * o->n_points + 1, sizeof *c->argv);
    for (size_t i = 0; i < n_fixed; i++)
        c->argv[na++] = (char *)fixed[i];
    if (attn) { /* the math or scaled_dot_product_attention, where the client takes it */
        c->argv[na++] = "--attention";
        c->argv[na++] = (char *)(o->attention ? o->attention : "math");
    }
    c->first_spec = na;
    for (size_t i = 0; i < o->n_points; i++) {
        c->argv[na++] = "--point";
        c->argv[na++] = point_spec(&o->points[i]);
    }
    c->argv[na] = NULL;
    c->n = na;
}

static void client_cmd_free(client_cmd *c)
{
    for (size_t i = c->first_spec + 1; i < c->n; i += 2)
        free(c->argv[i]);
    free(c->argv);
    free(c->runner);
}

/* The client writes "<i>" once point i's trace is complete: import it while the next point sets
 * up and warms up, then write "<i>" on go, which the client waits for before that point's
 * measured iterations (on 2 cores the import would otherwise take one from them). *done counts
 * the points imported; 0, or -1 with err set when a report or an import failed. */
static int import_reported(FILE *rd, int go, const char *dir, rt_torch_units *units,
                           const rt_tags *base, const rt_torch_study_opts *o,
                           const rt_torch_ops *ops, rt_profile *prof, const client_cmd *c,
                           size_t *done, rt_error *err)
{
    char line[64];
    while (*done < o->n_points && fgets(line, sizeof line, rd)) {
        char *end;
        long i = strtol(line, &end, 10);
        if (end == line || i != (long)*done) {
            rt_error_set(err, "pytorch: the client reported point '%.*s' where %zu was due",
                         (int)strcspn(line, "\n"), line, *done);
            return -1;
        }
        char *trace = rt_asprintf("%s/trace-%zu.json", dir, *done);
        char *dnnlog = rt_asprintf("%s/onednn-%zu.log", dir, *done);
        const char *spec = c->argv[c->first_spec + 2 * *done + 1];
        int irc = import_point(trace, dnnlog, spec, units, base, &o->points[*done], ops, prof, err);
        remove(trace);
        remove(dnnlog);
        free(trace);
        free(dnnlog);
        if (irc != 0) {
            rt_error_prefix(err, "pytorch: point %zu (%s)", *done,
                            c->argv[c->first_spec + 2 * *done + 1]);
            return -1;
        }
        if (*done + 1 < o->n_points) {
            char ack[32];
            int n = snprintf(ack, sizeof ack, "%zu\n", *done);
            /* a client that is gone shows as its exit status; no SIGPIPE for it here */
            (void)!send(go, ack, (size_t)n, MSG_NOSIGNAL);
        }
        (*done)++;
        if (o->progress && *done < o->n_points)
            o->progress(o->progress_ud, *done);
    }
    return 0;
}

/* Whatever the client left behind in dir: the traces and oneDNN outputs from point done on, a
 * partial one, its stderr; then dir itself. */
static void remove_leftovers(const char *dir, const char *errf, size_t done, size_t n_points)
{
    for (size_t i = done; i <= n_points; i++) {
        char *t = rt_asprintf("%s/trace-%zu.json", dir, i);
        remove(t);
        char *tt = rt_asprintf("%s.tmp", t);
        remove(tt);
        char *d = rt_asprintf("%s/onednn-%zu.log", dir, i);
        remove(d);
        free(t);
        free(tt);
        free(d);
    }
    remove(errf);
    rmdir(dir);
}

int rt_torch_study_run(const char *python, const char *script, const rt_torch_study_opts *o,
                       rt_profile **out, rt_error *err)
{
    *out = NULL;
    if (check_options(o, err) != 0)
        return -1;
    int warmup = o->warmup >= 0 ? o->warmup : 5, iters = o->iters >= 1 ? o->iters : 20;
    rt_torch_ops *ops = NULL;
    if (rt_torch_ops_load(NULL, &ops, err) != 0) {
        rt_error_prefix(err, "pytorch");
        return -1;
    }
    const char *tmp = o->tmpdir ? o->tmpdir : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char *dir = rt_asprintf("%s/rooftime-torch-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        rt_error_set(err, "cannot create a directory under '%s': %s", tmp, strerror(errno));
        free(dir);
        rt_torch_ops_free(ops);
        return -1;
    }
    char *errf = rt_asprintf("%s/stderr.txt", dir);
    rt_profile *prof = o->into ? o->into : sweep_profile(python, script, warmup, iters);
    rt_tags base = {0};
    rt_tags_set(&base, "implementation", o->implementation ? o->implementation : "pytorch");
    rt_tags_set(&base, "precision", rt_precision_name(o->precision));
    rt_tags_set(&base, "operation", rt_study_op_name(o->op));
    rt_tags_set(&base, "pass", rt_pass_name(o->pass));
    if (rt_study_op_phase(o->op))
        rt_tags_set(&base, "phase", rt_study_op_phase(o->op));
    rt_tags_copy(&prof->tags, &base);
    client_cmd cmd = {0};
    client_cmd_build(&cmd, python, script, o, warmup, iters, dir, ops);
    rt_torch_units *units = rt_torch_units_new();

    int fds[2] = {-1, -1}, go[2] = {-1, -1};
    int rc = -1;
    size_t done = 0;
    rt_child child = {.pid = -1, .out_fd = -1};
    FILE *rd = NULL;
    if (pipe(fds) != 0) {
        rt_error_set(err, "pytorch: cannot create a pipe: %s", strerror(errno));
        goto out;
    }
    /* go[0] is ours, go[1] the client's (inherited: its close-on-exec flag cleared) */
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) != 0 ||
        fcntl(go[1], F_SETFD, 0) != 0) {
        rt_error_set(err, "pytorch: cannot create a socket pair: %s", strerror(errno));
        goto out;
    }
    snprintf(cmd.nums[2], sizeof cmd.nums[2], "%d", fds[1]);
    snprintf(cmd.nums[4], sizeof cmd.nums[4], "%d", go[1]);
    if (o->progress && o->n_points)
        o->progress(o->progress_ud, 0);
    rt_spawn_opts so = {.stdout_path = "/dev/null", .stderr_path = errf, .close_fd = fds[0]};
    if (rt_spawn(cmd.argv, &so, &child, err) != 0) {
        rt_error_prefix(err, "pytorch");
        goto out;
    }
    close(fds[1]);
    fds[1] = -1;
    close(go[1]);
    go[1] = -1;
    rd = fdopen(fds[0], "r");
    if (!rd) {
        rt_error_set(err, "pytorch: cannot read the client's progress: %s", strerror(errno));
        goto out;
    }
    fds[0] = -1;
    bool import_failed =
        import_reported(rd, go[0], dir, units, &base, o, ops, prof, &cmd, &done, err) != 0;
    if (import_failed)
        kill(child.pid, SIGTERM); /* our child: nothing more of it is wanted */
    fclose(rd);
    rd = NULL;
    int st = rt_spawn_wait(&child);
    if (import_failed)
        goto out;
    if (st != 0 || done < o->n_points) {
        char why[1024];
        last_line(errf, why, sizeof why);
        if (done < o->n_points)
            rt_error_set(err, "pytorch: '%s %s' %s at point %zu (%s)%s%s", python, script,
                         st == 127   ? "could not start"
                         : st == 0   ? "stopped early"
                         : st >= 128 ? "was killed"
                                     : "failed",
                         done, cmd.argv[cmd.first_spec + 2 * done + 1], why[0] ? ": " : "", why);
        else
            rt_error_set(err, "pytorch: '%s %s' failed after its last point%s%s", python, script,
                         why[0] ? ": " : "", why);
        goto out;
    }
    rt_torch_units_note(units, prof);
    *out = prof;
    prof = NULL;
    rc = 0;
out:
    if (rd)
        fclose(rd);
    for (int k = 0; k < 2; k++) {
        if (fds[k] >= 0)
            close(fds[k]);
        if (go[k] >= 0)
            close(go[k]);
    }
    if (child.pid > 0) {
        kill(child.pid, SIGTERM);
        rt_spawn_wait(&child);
    }
    if (prof && prof != o->into)
        rt_profile_free(prof);
    client_cmd_free(&cmd);
    rt_torch_units_free(units);
    rt_torch_ops_free(ops);
    rt_tags_release(&base);
    remove_leftovers(dir, errf, done, o->n_points);
    free(errf);
    free(dir);
    return rc;
}
