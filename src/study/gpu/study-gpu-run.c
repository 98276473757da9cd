/* The GPU study's run: each client under the CUPTI collector, a trace run (times) and a counter
 * run (FLOPs and bytes of sampled iterations), as `profile --gpu` runs a command; the collector's
 * directories imported, the marks' tags kept, warm-up dropped, trace and counters joined. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rooftime/core/profile.h"
#include "rooftime/import/cupti-dir.h"
#include "rooftime/import/cupti.h"
#include "rooftime/study/study-gpu-profiles.h"
#include "rooftime/study/study-gpu-run.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/error.h"
#include "rooftime/util/spawn.h"
#include "rooftime/util/strings.h"

static const char *const modes[2] = {"trace", "counters"};

/* The last non-empty line of a file (the client's one line on exit 3), into buf. */
static void last_line(const char *path, char *buf, size_t n)
{
    FILE *fp = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while (fp && (len = getline(&line, &cap, fp)) >= 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (len > 0)
            snprintf(buf, n, "%s", line);
    }
    free(line);
    if (fp)
        fclose(fp);
}

/* One progress line of the client (when not empty), also its last line so far (why). */
static void emit(const rt_study_gpu_runner *g, size_t idx, const char *mode, char *line,
                 size_t *len, char *why, size_t whyn)
{
    if (!*len)
        return;
    line[*len] = '\0';
    *len = 0;
    snprintf(why, whyn, "%s", line);
    if (g->progress)
        g->progress(g->progress_ud, idx, mode, line);
}

/* The client's stdout as progress lines until it closes; past g->client_timeout seconds (0: no
 * limit) the client is killed. true when it was. */
static bool follow(const rt_study_gpu_runner *g, size_t idx, const char *mode,
                   const rt_child *child, char *why, size_t whyn)
{
    char line[512], buf[4096];
    size_t len = 0;
    double start = rt_now();
    bool late = false;
    for (;;) {
        struct pollfd pf = {.fd = child->out_fd, .events = POLLIN};
        int pr = poll(&pf, 1, 1000);
        if (!late && g->client_timeout > 0 && rt_now() - start > g->client_timeout) {
            kill(child->pid, SIGKILL); /* its stdout closes, and the loop ends */
            late = true;
        }
        if (pr == 0 || (pr < 0 && errno == EINTR))
            continue;
        ssize_t n = pr < 0 ? -1 : read(child->out_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            emit(g, idx, mode, line, &len, why, whyn);
            return late;
        }
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == '\n')
                emit(g, idx, mode, line, &len, why, whyn);
            else if (buf[i] != '\r' && len < sizeof line - 1)
                line[len++] = buf[i];
        }
    }
}

/* One run of plan p's client with the collector in mode, into coll; its stdout shown as progress
 * lines, its stderr into log. The client's exit code (-1 when it could not start, 128 + signal),
 * its last line into why. */
static int run_client(const rt_study_gpu_runner *g, const rt_study_gpu_plan *p, size_t idx,
                      const char *mode, const char *plan, const char *coll, const char *log,
                      char *why, size_t whyn)
{
    char *e[6] = {rt_asprintf("CUDA_INJECTION64_PATH=%s", g->lib),
                  rt_asprintf("ROOFTIME_CUPTI_LIB=%s", g->lib),
                  rt_asprintf("ROOFTIME_CUPTI_DIR=%s", coll),
                  rt_asprintf("ROOFTIME_CUPTI_MODE=%s", mode),
                  rt_asprintf("ROOFTIME_CUPTI_METRICS=%s",
                              strcmp(mode, "counters") == 0 && g->metrics ? g->metrics : ""),
                  NULL};
    const char *env[] = {e[0], e[1], e[2], e[3], e[4], "ROOFTIME_CUPTI_KEEP_IMAGES=0", NULL};
    char *argv[] = {(char *)g->python, g->scripts[p->framework], "--plan", (char *)plan, NULL};
    rt_spawn_opts so = {.env = env, .capture_stdout = true, .stderr_path = log, .close_fd = -1};
    rt_child child;
    rt_error err;
    int rc = -1;
    why[0] = '\0';
    if (rt_spawn(argv, &so, &child, &err) != 0) {
        snprintf(why, whyn, "%s", err.msg);
    } else {
        bool late = follow(g, idx, mode, &child, why, whyn);
        rc = rt_spawn_wait(&child);
        char errline[512] = "";
        last_line(log, errline, sizeof errline);
        if (errline[0])
            snprintf(why, whyn, "%s", errline);
        if (late) {
            snprintf(why, whyn, "stopped after %.0f s (--client-timeout)", g->client_timeout);
            rc = 124;
        }
    }
    for (int i = 0; i < 5; i++)
        free(e[i]);
    return rc;
}

/* Import one collector directory; NULL with err when it cannot be read. */
static rt_profile *import_dir(const char *coll, rt_study_gpu_result *r, rt_error *err)
{
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_cupti_options io = {0};
    if (rt_import_cupti(coll, &io, &p, &w, err) != 0)
        p = NULL;
    size_t cl = strlen(coll);
    for (size_t i = 0, shown = 0; i < w.n && shown < 5; i++) {
        /* a counter run imported alone has no trace by design: its times are not used */
        if (strncmp(w.msg[i], coll, cl) == 0 && strstr(w.msg[i] + cl, ": no trace: times are "))
            continue;
        rt_warnings_add(&r->notes, "import: %s", w.msg[i]);
        shown++;
    }
    rt_warnings_release(&w);
    return p;
}

/* Write the plan file of p for mode into path; -1 with err. */
static int write_plan(const rt_study_gpu_runner *g, const rt_study_gpu_plan *p, bool counters,
                      const char *path, rt_error *err)
{
    char *json = rt_study_gpu_plan_json(p, g->so, counters, -1);
    int rc = rt_write_file_atomic(path, json, strlen(json), err);
    free(json);
    return rc;
}

/* The counter runs of the eager pytorch LSTM clients, per precision: the graphs variant's counters
 * are read from them. */
typedef struct eager_runs {
    rt_profile *lstm[RT_GPU_PREC_COUNT];
} eager_runs;

/* Make way for a client's collector directory: a previous run's is removed (only when it holds
 * nothing but what the collector writes; its files would mix with the new ones). -1 with err. */
static int clear_collect_dir(const char *coll, rt_error *err)
{
    struct stat st;
    bool old = lstat(coll, &st) == 0;
    if (old && !(S_ISDIR(st.st_mode) && rt_cupti_is_collector_dir(coll))) {
        rt_error_set(err,
                     "'%s' exists and is not a directory the collector wrote (remove it, or "
                     "write the study elsewhere)",
                     coll);
        return -1;
    }
    if (old && (rt_cupti_remove_dir(coll), lstat(coll, &st) == 0)) {
        rt_error_set(err, "cannot remove the previous run's '%s'", coll);
        return -1;
    }
    return 0;
}

/* Both runs of a client re-imported from g->from (nothing runs); 1 when the recording lacks it. */
static int import_plan(const rt_study_gpu_runner *g, const rt_study_gpu_plan *p,
                       rt_study_gpu_result *r, rt_profile *prof[2], rt_error *err)
{
    int rc = 0;
    for (int m = 0; m < 2 && rc == 0; m++) {
        char *coll = rt_asprintf("%s/collect/%s.%s", g->from, p->name, modes[m]);
        struct stat st;
        if (stat(coll, &st) != 0 || !S_ISDIR(st.st_mode)) {
            if (m == 0) {
                rt_warnings_add(&r->skipped, "%s: not in the recording %s", p->name, g->from);
                rc = 1;
            }
        } else if (!(prof[m] = import_dir(coll, r, err))) {
            rc = -1;
        }
        free(coll);
    }
    return rc;
}

/* Both runs of client idx under the collector, imported; 1 when it is skipped (exit 3, or a run
 * failed: said in r->skipped). */
static int run_plan_client(const rt_study_gpu_runner *g, size_t idx, rt_study_gpu_result *r,
                           rt_profile *prof[2], rt_error *err)
{
    const rt_study_gpu_plan *p = &g->plans[idx];
    int rc = 0;
    for (int m = 0; m < 2 && rc == 0; m++) {
        char *plan = rt_asprintf("%s/plans/%s%s.json", g->dir, p->name, m ? ".counters" : "");
        char *coll = rt_asprintf("%s/collect/%s.%s", g->dir, p->name, modes[m]);
        char *log = rt_asprintf("%s/logs/%s.%s.log", g->dir, p->name, modes[m]);
        if (clear_collect_dir(coll, err) != 0 || write_plan(g, p, m == 1, plan, err) != 0 ||
            rt_mkdir_p(coll, err) != 0) {
            rc = -1;
        } else {
            char why[512];
            int x = run_client(g, p, idx, modes[m], plan, coll, log, why, sizeof why);
            if (x == 3) {
                rt_warnings_add(&r->skipped, "%s: %s", p->name, why[0] ? why : "exit 3");
                rc = 1;
            } else if (x != 0) {
                rt_warnings_add(&r->skipped, "%s: the %s run failed (exit %d: %s; log %s)", p->name,
                                modes[m], x, why[0] ? why : "no message", log);
                rc = 1;
            } else if (!(prof[m] = import_dir(coll, r, err))) {
                rc = -1;
            }
        }
        free(plan);
        free(coll);
        free(log);
    }
    return rc;
}

/* One client: its trace run, then its counter run (or both re-imported); profiles into r. 1 when
 * skipped, -1 with err when the study cannot go on. */
static int run_plan(const rt_study_gpu_runner *g, size_t idx, eager_runs *eager,
                    rt_study_gpu_result *r, rt_error *err)
{
    const rt_study_gpu_plan *p = &g->plans[idx];
    rt_profile *prof[2] = {NULL, NULL};
    int rc = g->from ? import_plan(g, p, r, prof, err) : run_plan_client(g, idx, r, prof, err);
    if (rc >= 0 && prof[0] && !r->device && prof[0]->machine)
        r->device = rt_strdup(prof[0]->machine);
    if (rc == 0 || (rc == 1 && prof[0])) {
        rt_error jerr = {{0}};
        /* the transformer clients run each point eager and captured: their own counter run
         * has the eager kernels */
        const rt_profile *e = rt_study_op_is_xformer(p->op)       ? prof[1]
                              : strcmp(p->variant, "graphs") == 0 ? eager->lstm[p->precision]
                                                                  : NULL;
        if (rt_study_gpu_join(prof[0], prof[1], e, p->name, &r->profiles, &r->n_profiles, &r->notes,
                              &jerr) != 0) {
            rt_warnings_add(&r->skipped, "%s", jerr.msg);
            rc = 1;
        } else {
            rc = 0;
        }
    }
    if (rc == 0 && p->op == RT_OP_LSTM && !p->variant[0] && prof[1] && !eager->lstm[p->precision]) {
        eager->lstm[p->precision] = prof[1]; /* for the graphs variant's kernels */
        prof[1] = NULL;
    }
    rt_profile_free(prof[0]);
    rt_profile_free(prof[1]);
    return rc;
}

int rt_study_gpu_run(const rt_study_gpu_runner *g, rt_study_gpu_result *r, rt_error *err)
{
    /* check/: where the conv2d clients write their outputs for the correctness check */
    const char *sub[] = {"plans", "collect", "logs", "check"};
    for (int i = 0; i < 4 && !g->from; i++) {
        char *d = rt_asprintf("%s/%s", g->dir, sub[i]);
        int rc = rt_mkdir_p(d, err);
        free(d);
        if (rc != 0)
            return -1;
    }
    eager_runs eager = {{NULL}};
    size_t ran = 0;
    int rc = 0;
    for (size_t i = 0; i < g->n_plans && rc == 0; i++) {
        int pr = run_plan(g, i, &eager, r, err);
        if (pr < 0)
            rc = -1;
        else if (pr == 1 && g->progress)
            g->progress(g->progress_ud, i, NULL, r->skipped.msg[r->skipped.n - 1]);
        else if (pr == 0)
            ran++;
    }
    for (int pr = 0; pr < RT_GPU_PREC_COUNT; pr++)
        rt_profile_free(eager.lstm[pr]);
    if (rc != 0)
        return -1;
    r->clients = ran;
    if (!ran) {
        rt_error_set(err, "no client ran (%s)", r->skipped.n ? r->skipped.msg[0] : "none planned");
        return -1;
    }
    return 0;
}
