/* Launch overhead one layer up the stack: a framework's dispatch of one tiny op (PyTorch eager, in
 * its own python3) and one oneDNN primitive execute. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure-internal.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/error.h"
#include "rooftime/util/spawn.h"
#include "rooftime/util/strings.h"
#include "rooftime-config.h"

#ifdef RT_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

/* One thread, a one-element tensor, the loop timed as a whole; one line back: the version, then
 * seconds per op of each trial. */
static const char torch_script[] = "import sys, time\n"
                                   "import torch\n"
                                   "torch.set_num_threads(1)\n"
                                   "ops, trials = int(sys.argv[1]), int(sys.argv[2])\n"
                                   "x = torch.zeros(1)\n"
                                   "for _ in range(ops // 10 + 1):\n"
                                   "    torch.add(x, x)\n"
                                   "res = []\n"
                                   "for _ in range(trials):\n"
                                   "    t0 = time.perf_counter()\n"
                                   "    for _ in range(ops):\n"
                                   "        torch.add(x, x)\n"
                                   "    res.append((time.perf_counter() - t0) / ops)\n"
                                   "print('rooftime-dispatch', torch.__version__, *res)\n";

int rt_overhead_torch(const char *python, int trials, long ops, rt_stat *sec, char *version,
                      size_t version_len, rt_error *err)
{
    if (trials < 1)
        trials = 1;
    if (trials > 64)
        trials = 64;
    char n_ops[32], n_trials[32];
    snprintf(n_ops, sizeof n_ops, "%ld", ops);
    snprintf(n_trials, sizeof n_trials, "%d", trials);
    char *argv[] = {(char *)python, "-c", (char *)torch_script, n_ops, n_trials, NULL};
    rt_spawn_opts so = {.capture_stdout = true, .stderr_path = "/dev/null", .close_fd = -1};
    rt_child child;
    if (rt_spawn(argv, &so, &child, err) != 0)
        return 1;
    /* A bounded read: the one line is short. */
    char buf[4096];
    size_t len = 0;
    for (;;) {
        ssize_t r = read(child.out_fd, buf + len, sizeof buf - 1 - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
        if (len == sizeof buf - 1)
            break;
    }
    buf[len] = '\0';
    int code = rt_spawn_wait(&child);
    char *line = strstr(buf, "rooftime-dispatch ");
    if (code != 0 || !line) {
        rt_error_set(err, "'%s' cannot import torch or time an op in it (exit %d)", python, code);
        return 1;
    }
    char *save = NULL, *tok = strtok_r(line + 18, " \n", &save);
    snprintf(version, version_len, "%s", tok ? tok : "?");
    double v[64];
    int n = 0;
    while (n < trials && (tok = strtok_r(NULL, " \n", &save))) {
        char *end;
        double x = strtod(tok, &end);
        if (end == tok || !(x > 0) || !isfinite(x))
            break;
        v[n++] = x;
    }
    if (n != trials) {
        rt_error_set(err, "'%s': %d of %d trials read back from the dispatch timer", python, n,
                     trials);
        return 1;
    }
    *sec = rt_stat_of(v, (size_t)n);
    return 0;
}

int rt_overhead_onednn(int trials, long execs, rt_stat *sec, char *what, size_t what_len,
                       rt_error *err)
{
#ifdef RT_HAVE_DNNL
    if (trials < 1)
        trials = 1;
    if (trials > 64)
        trials = 64;
    dnnl_engine_t eng = NULL;
    dnnl_stream_t strm = NULL;
    dnnl_memory_t a = NULL, b = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    dnnl_memory_desc_t md;
    dnnl_dims_t dims = {1};
    dnnl_status_t st = dnnl_engine_create(&eng, dnnl_cpu, 0);
    if (st == dnnl_success)
        st = dnnl_stream_create(&strm, eng, dnnl_stream_default_flags);
    if (st == dnnl_success)
        st = dnnl_memory_desc_init_by_tag(&md, 1, dims, dnnl_f32, dnnl_a);
    if (st == dnnl_success)
        st = dnnl_memory_create(&a, &md, eng, DNNL_MEMORY_ALLOCATE);
    if (st == dnnl_success)
        st = dnnl_memory_create(&b, &md, eng, DNNL_MEMORY_ALLOCATE);
    if (st == dnnl_success)
        st = dnnl_reorder_primitive_desc_create(&pd, &md, eng, &md, eng, NULL);
    if (st == dnnl_success)
        st = dnnl_primitive_create(&prim, pd);
    double v[64];
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, a}, {DNNL_ARG_TO, b}};
    for (long i = 0; st == dnnl_success && i < execs / 10 + 1; i++)
        st = dnnl_primitive_execute(prim, strm, 2, args);
    for (int t = 0; st == dnnl_success && t < trials; t++) {
        double t0 = rt_now();
        for (long i = 0; st == dnnl_success && i < execs; i++) {
            st = dnnl_primitive_execute(prim, strm, 2, args);
            if (st == dnnl_success)
                st = dnnl_stream_wait(strm);
        }
        v[t] = (rt_now() - t0) / (double)execs;
    }
    if (st == dnnl_success) {
        const char *impl = NULL;
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
        snprintf(what, what_len, "oneDNN %d.%d reorder (%s) of one f32 element", DNNL_VERSION_MAJOR,
                 DNNL_VERSION_MINOR, impl ? impl : "?");
        *sec = rt_stat_of(v, (size_t)trials);
    } else {
        rt_error_set(err, "oneDNN %d.%d: a one-element reorder failed (status %d)",
                     DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR, (int)st);
    }
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(a);
    dnnl_memory_destroy(b);
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return st == dnnl_success ? 0 : 1;
#else
    (void)trials, (void)execs, (void)sec, (void)what, (void)what_len;
    rt_error_set(err, "built without oneDNN (Debian libdnnl-dev)");
    return 1;
#endif
}
