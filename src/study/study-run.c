/* The study's orchestration: correctness checks, then every implementation x precision x op x pass
 * over the sweeps, one profile each. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rooftime-config.h"
#include "study-checks.h"
#include "study-method.h"
#include "study-opts.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/study/study-impls.h"
#include "rooftime/study/study-onednn.h"
#include "rooftime/study/study-run.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/study/study-torch.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/* Torch's threads: as many as the OpenMP team of the other implementations (one per CPU), unless
 * OMP_NUM_THREADS sets both (torch reads it too). Torch's own default is the physical cores, one
 * on a 2-vCPU VM. 0: torch's choice. */
static int torch_threads(const rt_study_result *r)
{
    const char *omp = getenv("OMP_NUM_THREADS");
    return omp && *omp ? 0 : (int)r->ncpu;
}

/* The threads the study's kernels run on: OMP_NUM_THREADS's first count where it is set (the
 * OpenMP team and torch read it), else one per CPU. What a profile records, for where its bytes
 * fit (source.threads). */
static int study_threads(const rt_study_result *r)
{
    const char *omp = getenv("OMP_NUM_THREADS");
    long n = omp && *omp ? strtol(omp, NULL, 10) : 0;
    return n > 0 && n <= RT_MAX_THREADS ? (int)n : (int)r->ncpu;
}

static void tag_point(rt_tags *tags, const rt_study_point *pt)
{
    size_t np;
    const char *const *params = rt_study_params(pt->op, &np);
    for (size_t i = 0; i < np; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%ld", rt_study_point_param(pt, params[i]));
        rt_tags_set(tags, params[i], buf);
    }
}

/* "onednn bf16 conv2d forward filters=256": the progress line of a point. */
static void point_what(char *what, size_t n, rt_study_impl i, rt_precision pr, rt_study_op op,
                       rt_pass pass, const rt_study_point *pt)
{
    bool def = strcmp(pt->varied, "default") == 0;
    snprintf(what, n, "%s %s %s %s %s", rt_study_impl_name(i), rt_precision_name(pr),
             rt_study_op_name(op), rt_pass_name(pass), pt->varied);
    if (!def)
        snprintf(what + strlen(what), n - strlen(what), "=%ld",
                 rt_study_point_param(pt, pt->varied));
}

/* A new profile of the study for one implementation x precision x op x pass. */
static rt_profile *new_profile(rt_study_impl i, rt_precision pr, rt_study_op op, rt_pass pass,
                               char *method, int threads)
{
    rt_profile *prof = rt_profile_new();
    rt_machine_set_str(&prof->tool, "rooftime-study");
    rt_machine_set_str(&prof->version, RT_VERSION);
    char *cmd = rt_asprintf("rooftime study (%s %s %s %s)", rt_study_impl_name(i),
                            rt_precision_name(pr), rt_study_op_name(op), rt_pass_name(pass));
    rt_machine_set_str(&prof->command, cmd);
    free(cmd);
    rt_machine_set_str(&prof->method, method);
    free(method);
    /* The study's timers take wall time per call; each implementation pays its own launch. */
    prof->time_kind = RT_TIME_WALL;
    prof->bytes_kind = RT_BYTES_ESTIMATED; /* exact compulsory counts, at DRAM */
    prof->threads = threads;
    rt_machine_set_str(&prof->overhead, rt_study_impl_is_torch(i) ? RT_OVERHEAD_FRAMEWORK
                                        : i == RT_IMPL_ONEDNN     ? RT_OVERHEAD_ONEDNN
                                                                  : RT_OVERHEAD_OPENMP);
    rt_tags_set(&prof->tags, "implementation", rt_study_impl_name(i));
    rt_tags_set(&prof->tags, "precision", rt_precision_name(pr));
    rt_tags_set(&prof->tags, "operation", rt_study_op_name(op));
    rt_tags_set(&prof->tags, "pass", rt_pass_name(pass));
    /* the transformer ops' phase of a generation loop, as profile --torch tags a run's kernels */
    if (rt_study_op_phase(op))
        rt_tags_set(&prof->tags, "phase", rt_study_op_phase(op));
    return prof;
}

static void add_profile(rt_study_result *r, rt_profile *prof)
{
    r->profiles = rt_xrealloc(r->profiles, (r->n_profiles + 1) * sizeof *r->profiles);
    r->profiles[r->n_profiles++] = prof;
}

/* The sweep points torch runs: all of them, except in a quick run, where conv2d runs the default
 * and the batch and filters points only: torch's kernel-7 and stride-1 convolutions with the
 * profiler on added 9 s to a quick run on the 2-core VM (load about 2), which must stay under 2
 * minutes; and on a torch before 2.0 (torch1) decode's largest batch. */
static rt_study_point *torch_points(const rt_study_opts *o, rt_study_op op, bool torch1,
                                    const rt_study_point *pts, size_t n, size_t *out_n)
{
    rt_study_point *v = rt_xcalloc(n ? n : 1, sizeof *v);
    size_t m = 0;
    long max_batch = 0;
    for (size_t k = 0; k < n; k++)
        if (op == RT_OP_DECODE && pts[k].dec.batch > max_batch)
            max_batch = pts[k].dec.batch;
    for (size_t k = 0; k < n; k++) {
        if (o->quick && op == RT_OP_CONV2D &&
            (strcmp(pts[k].varied, "kernel") == 0 || strcmp(pts[k].varied, "stride") == 0))
            continue;
        /* decode's largest batch: torch 1.13's CPU matmul over the cache runs one GEMM per batch
         * element and head, each with its select, as_strided and resolve_conj events: 69729
         * operator events per step at batch 256 (torch 2.15: 90), whose recording cost more than
         * every other transformer point of the client together */
        if (torch1 && op == RT_OP_DECODE && strcmp(pts[k].varied, "batch") == 0 &&
            pts[k].dec.batch == max_batch && max_batch > 1)
            continue;
        v[m++] = pts[k];
    }
    *out_n = m;
    return v;
}

/* Progress of the torch client, point by point, in the study's terms. */
typedef struct torch_progress {
    const rt_study_opts *o;
    const rt_study_point *pts;
    size_t done, total;
    double t0;
    rt_study_impl impl;
    rt_precision pr;
    rt_study_op op;
    rt_pass pass;
} torch_progress;

static void on_torch_point(void *ud, size_t k)
{
    torch_progress *tp = ud;
    char what[160];
    point_what(what, sizeof what, tp->impl, tp->pr, tp->op, tp->pass, &tp->pts[k]);
    rt_study_progress pg = {tp->done + k, tp->total, what, rt_now() - tp->t0};
    tp->o->progress(tp->o->progress_ud, &pg);
}

/* What one run keeps between its steps. */
typedef struct study_run {
    const rt_study_opts *o;
    rt_study_result *r;
    double t0;
    const char *python;
    char *script; /* the torch client; NULL when pytorch does not run */
    bool torch;   /* pytorch runs */
    bool sdpa;    /* and has scaled_dot_product_attention (the sdpa implementation runs) */
    bool
        torch2; /* torch has scaled_dot_product_attention (2.0 or later; probed for sdpa, decode) */
    bool *skip; /* by case_index: cases known not to run */
    rt_study_point *pts[RT_OP_COUNT], *tpts[RT_OP_COUNT]; /* the sweep points; torch's */
    size_t npts[RT_OP_COUNT], ntpts[RT_OP_COUNT];
    size_t total, done; /* cases, for the progress line */
} study_run;

static size_t case_index(int op, int i, int pr, rt_pass pass)
{
    return ((size_t)(op * RT_IMPL_COUNT + i) * RT_PREC_COUNT + pr) * RT_PASS_COUNT + pass;
}

/* sdpa needs torch's scaled_dot_product_attention (torch 2.0 and later); asked for, it must run.
 * Where pytorch runs decode the probe also tells a torch before 2.0 (torch_points). */
static int sdpa_setup(study_run *s, rt_error *err)
{
    const rt_study_opts *o = s->o;
    bool want = o->impls[RT_IMPL_SDPA] && (o->ops[RT_OP_ATTENTION] || o->ops[RT_OP_DECODE]);
    if (!want && !(s->script && o->ops[RT_OP_DECODE]))
        return 0;
    rt_error terr = {{0}};
    s->torch2 = s->script && rt_torch_study_probe_sdpa(s->python, &terr) == 0;
    if (!want || s->torch2) {
        s->sdpa = want;
        return 0;
    }
    if (!s->script)
        snprintf(terr.msg, sizeof terr.msg, "pytorch does not run");
    if (!o->pytorch_optional) {
        rt_error_set(err, "sdpa: %s", terr.msg);
        return -1;
    }
    rt_warnings_add(&s->r->skipped, "sdpa: %s: skipped", terr.msg);
    return 0;
}

/* pytorch needs a python with torch and the client script; asked for, it must run. */
static int torch_setup(study_run *s, rt_error *err)
{
    const rt_study_opts *o = s->o;
    s->python = o->python ? o->python : rt_torch_study_python();
    s->torch = o->impls[RT_IMPL_PYTORCH] || o->impls[RT_IMPL_SDPA];
    if (!s->torch)
        return 0;
    rt_error terr;
    if (rt_torch_study_probe(s->python, &terr) == 0)
        s->script = rt_torch_study_script(&terr);
    if (!s->script) {
        if (!o->pytorch_optional) {
            rt_error_set(err, "pytorch: %s", terr.msg);
            return -1;
        }
        rt_warnings_add(&s->r->skipped, "pytorch: %s: skipped", terr.msg);
        s->torch = false;
    }
    return sdpa_setup(s, err);
}

/* The cost of one clock read, the only overhead the timer adds to a kernel's time. */
static double clock_cost(void)
{
    double c0 = rt_now();
    for (int k = 0; k < 100000; k++)
        (void)rt_now();
    return (rt_now() - c0) / 100000;
}

/* The correctness checks; -1 naming the first that failed. */
static int checks_pass(study_run *s, rt_error *err)
{
    rt_study_result *r = s->r;
    size_t failed = rt_study_checks_run(s->o, r, s->skip);
    if (!failed)
        return 0;
    rt_error_set(err,
                 "%zu correctness check%s failed (see the checks): the study would "
                 "measure wrong kernels",
                 failed, failed == 1 ? "" : "s");
    for (size_t i = 0; i < r->n_checks; i++)
        if (!r->checks[i].ok) {
            rt_error_prefix(err, "%s: relative difference %g > %g", r->checks[i].what,
                            r->checks[i].rel_diff, r->checks[i].bound);
            break;
        }
    return -1;
}

/* Why the study leaves torch's bf16 out on this CPU unless asked for it, or NULL. Without AVX-512
 * (oneDNN's bf16 needs avx512_core at least) torch runs bf16 convolutions and matrix products
 * through its own reference loops: on the AVX2 development VM (Zen 3) its conv2d backward-weights
 * took 38 s of a 152 s quick study, x4.5 to x6 the time of fp32, and the full study would run
 * for tens of minutes. */
static const char *torch_bf16_emulated(void)
{
    rt_cpu_info cpu;
    rt_cpu_detect(&cpu);
    if (cpu.avx512f && cpu.avx512bw && cpu.avx512vl)
        return NULL;
    return "this CPU has no AVX-512, so torch emulates bf16 convolutions and matrix products "
           "(several times slower than fp32): not timed unless asked for (--precision "
           "fp32,bf16)";
}

/* The cases that run, and their points; counted first for the progress line. */
static void count_cases(study_run *s)
{
    const rt_study_opts *o = s->o;
    for (int op = 0; op < RT_OP_COUNT; op++) {
        if (!o->ops[op])
            continue;
        s->pts[op] = rt_study_points((rt_study_op)op, o->quick, o->scale, &s->npts[op]);
        s->tpts[op] =
            torch_points(o, (rt_study_op)op, !s->torch2, s->pts[op], s->npts[op], &s->ntpts[op]);
        for (int i = 0; i < RT_IMPL_COUNT; i++) {
            const rt_study_impl_info *info = rt_study_impl_get((rt_study_impl)i);
            size_t np;
            const rt_pass *passes = rt_study_impl_passes((rt_study_impl)i, (rt_study_op)op, &np);
            for (int pr = 0; pr < RT_PREC_COUNT; pr++)
                for (size_t p = 0; p < np; p++) {
                    size_t idx = case_index(op, i, pr, passes[p]);
                    if (!o->impls[i] || !o->precisions[pr] ||
                        !rt_study_impl_has_op((rt_study_impl)i, (rt_study_op)op) || s->skip[idx] ||
                        (o->quick && !info->timed_quick) || (info->external && !s->torch) ||
                        (i == RT_IMPL_SDPA && !s->sdpa))
                        continue;
                    const char *why = !info->precisions[pr] ? info->precision_note
                                      : o->emulated_optional && info->external && pr == RT_PREC_BF16
                                          ? torch_bf16_emulated()
                                          : NULL;
                    if (why) {
                        rt_study_skip_add(s->r, (rt_study_impl)i, (rt_precision)pr, (rt_study_op)op,
                                          passes[p], why);
                        s->skip[idx] = true;
                        continue;
                    }
                    s->total += info->reference ? 1 : info->external ? s->ntpts[op] : s->npts[op];
                }
        }
    }
}

/* One case of the external client: one process runs every point; a failure skips the rest of
 * this case (noted), not the study. */
static void run_torch_case(study_run *s, rt_study_impl i, rt_precision pr, rt_study_op op,
                           rt_pass pass)
{
    const rt_study_opts *o = s->o;
    rt_study_result *r = s->r;
    rt_profile *prof =
        new_profile(i, pr, op, pass,
                    rt_study_torch_method_text(rt_study_op_warmup(o, op), rt_study_op_iters(o, op),
                                               torch_threads(r), s->python, s->script, s->ntpts[op],
                                               s->npts[op]),
                    study_threads(r));
    torch_progress tp = {o, s->tpts[op], s->done, s->total, s->t0, i, pr, op, pass};
    rt_torch_study_opts to = {.op = op,
                              .implementation = rt_study_impl_name(i),
                              .attention = i == RT_IMPL_SDPA ? "sdpa" : "math",
                              .points = s->tpts[op],
                              .n_points = s->ntpts[op],
                              .precision = pr,
                              .pass = pass,
                              .warmup = rt_study_op_warmup(o, op),
                              .iters = rt_study_op_iters(o, op),
                              .threads = torch_threads(r),
                              .into = prof,
                              .progress = o->progress ? on_torch_point : NULL,
                              .progress_ud = &tp};
    rt_profile *got = NULL;
    rt_error terr;
    if (rt_torch_study_run(s->python, s->script, &to, &got, &terr) != 0)
        rt_study_skip_add(r, i, pr, op, pass, terr.msg);
    if (prof->n_kernels)
        add_profile(r, prof);
    else
        rt_profile_free(prof);
    s->done += s->ntpts[op];
}

/* One sweep point of an in-process case: warm-up and measured iterations into prof. */
static int run_point(study_run *s, rt_profile *prof, rt_study_impl i, rt_precision pr,
                     rt_study_op op, rt_pass pass, size_t k, int warmup, int iters, rt_error *err)
{
    const rt_study_opts *o = s->o;
    const rt_study_point *pt = &s->pts[op][k];
    int rc = 0;
    rt_tags tags = {0};
    rt_tags_copy(&tags, &prof->tags);
    tag_point(&tags, pt);
    char what[160];
    point_what(what, sizeof what, i, pr, op, pass, pt);
    if (o->progress) {
        rt_study_progress pg = {s->done, s->total, what, rt_now() - s->t0};
        o->progress(o->progress_ud, &pg);
    }
    rt_study_case *c = NULL;
    rt_error cerr;
    uint64_t seed = 0xc0ffee + 7919u * k + 104729u * (uint64_t)pass;
    if (rt_study_case_new(i, pt, pr, pass, seed, &c, &cerr) < 0) {
        rt_warnings_add(&s->r->skipped, "%s: %s", what, cerr.msg);
    } else {
        rt_study_timer t;
        rt_timer_init(&t, prof, &tags);
        for (int it = 0; it < warmup + iters && rc == 0; it++) {
            t.recording = it >= warmup;
            rc = c->run(c, &t, err);
        }
        /* the case's per-call times become its kernels' spreads */
        rt_profile_finish_spreads(prof);
        if (c->note)
            rt_tags_set(&prof->provenance.notes, what, c->note);
        rt_study_case_free(c);
    }
    rt_tags_release(&tags);
    s->done++;
    return rc;
}

/* One in-process case: its profile, over the sweep points. The reference is timed at the default
 * config only, and not in a quick run (too slow; noted). */
static int run_case(study_run *s, rt_study_impl i, rt_precision pr, rt_study_op op, rt_pass pass,
                    rt_error *err)
{
    const rt_study_opts *o = s->o;
    const rt_study_impl_info *info = rt_study_impl_get(i);
    bool direct = info->reference;
    if (o->quick && !info->timed_quick)
        return 0;
    int warmup = rt_study_op_warmup(o, op), iters = rt_study_op_iters(o, op);
    if (direct) {
        warmup = warmup < 1 ? warmup : 1;
        iters = iters < 3 ? iters : 3;
    }
    rt_profile *prof = new_profile(i, pr, op, pass, rt_study_method_text(warmup, iters, direct),
                                   study_threads(s->r));
    add_profile(s->r, prof);
    int rc = 0;
    for (size_t k = 0; k < (direct ? 1 : s->npts[op]) && rc == 0; k++)
        rc = run_point(s, prof, i, pr, op, pass, k, warmup, iters, err);
    return rc;
}

/* Every selected implementation x precision x op x pass that is not skipped, in that order. */
static int run_cases(study_run *s, rt_error *err)
{
    const rt_study_opts *o = s->o;
    int rc = 0;
    for (int op = 0; op < RT_OP_COUNT && rc == 0; op++) {
        if (!o->ops[op])
            continue;
        for (int i = 0; i < RT_IMPL_COUNT && rc == 0; i++) {
            const rt_study_impl_info *info = rt_study_impl_get((rt_study_impl)i);
            size_t np;
            const rt_pass *passes = rt_study_impl_passes((rt_study_impl)i, (rt_study_op)op, &np);
            for (int pr = 0; pr < RT_PREC_COUNT && rc == 0; pr++)
                for (size_t p = 0; p < np && rc == 0; p++) {
                    if (!o->impls[i] || !o->precisions[pr] ||
                        !rt_study_impl_has_op((rt_study_impl)i, (rt_study_op)op) ||
                        s->skip[case_index(op, i, pr, passes[p])])
                        continue;
                    if (info->external) {
                        if (s->torch && (i != RT_IMPL_SDPA || s->sdpa))
                            run_torch_case(s, (rt_study_impl)i, (rt_precision)pr, (rt_study_op)op,
                                           passes[p]);
                        continue;
                    }
                    rc = run_case(s, (rt_study_impl)i, (rt_precision)pr, (rt_study_op)op, passes[p],
                                  err);
                }
        }
    }
    return rc;
}

/* The transformer ops' direct loops: the reference, timed as conv2d's are. */
static void add_direct_xformer_notes(study_run *s)
{
    const rt_study_opts *o = s->o;
    char ops[64] = "";
    for (int op = 0; op < RT_OP_COUNT; op++)
        if (o->ops[op] && rt_study_op_is_xformer((rt_study_op)op))
            snprintf(ops + strlen(ops), sizeof ops - strlen(ops), "%s%s", ops[0] ? ", " : "",
                     rt_study_op_name((rt_study_op)op));
    if (!o->impls[RT_IMPL_DIRECT] || !ops[0])
        return;
    if (o->quick)
        rt_warnings_add(&s->r->skipped,
                        "direct %s: not timed in a quick run (the correctness reference; checked "
                        "above at a small shape)",
                        ops);
    else
        rt_warnings_add(&s->r->skipped,
                        "direct %s: timed at the default config only, at most 1 warm-up and 3 "
                        "measured iterations (the correctness reference): compare its AI and "
                        "efficiency, not its totals",
                        ops);
}

/* What the reader of the results must know about how the direct loops and torch ran. */
static void add_notes(study_run *s)
{
    const rt_study_opts *o = s->o;
    rt_study_result *r = s->r;
    add_direct_xformer_notes(s);
    if (o->impls[RT_IMPL_DIRECT] && o->ops[RT_OP_CONV2D]) {
        if (o->quick)
            rt_warnings_add(&r->skipped, "direct conv2d: not timed in a quick run (it is the "
                                         "correctness reference; checked above at a small shape)");
        else
            rt_warnings_add(&r->skipped,
                            "direct conv2d: timed at the default config only, %d warm-up and %d "
                            "measured iterations, so its totals hold %d iterations where the "
                            "others hold %d: compare its AI and efficiency, not its totals (it "
                            "is the correctness reference; the largest sweep points would take "
                            "minutes per iteration)",
                            rt_study_warmup(o) < 1 ? rt_study_warmup(o) : 1,
                            rt_study_iters(o) < 3 ? rt_study_iters(o) : 3,
                            rt_study_iters(o) < 3 ? rt_study_iters(o) : 3, rt_study_iters(o));
    }
    if (s->torch && o->ops[RT_OP_DECODE] && s->ntpts[RT_OP_DECODE] < s->npts[RT_OP_DECODE])
        rt_warnings_add(&r->skipped,
                        "pytorch decode: %zu of the %zu sweep points (the largest batch is left "
                        "out on a torch before 2.0: torch 1.13's CPU matmul over the cache runs "
                        "one GEMM per batch element and head, and recording its 69729 operator "
                        "events per step at batch 256 cost more than every other point of the "
                        "client; torch 2.15 records 90)",
                        s->ntpts[RT_OP_DECODE], s->npts[RT_OP_DECODE]);
    if (s->torch && o->quick && o->ops[RT_OP_CONV2D] &&
        s->ntpts[RT_OP_CONV2D] < s->npts[RT_OP_CONV2D])
        rt_warnings_add(&r->skipped,
                        "pytorch conv2d: %zu of the quick run's %zu sweep points (the kernel and "
                        "stride points are left out to keep a quick run quick)",
                        s->ntpts[RT_OP_CONV2D], s->npts[RT_OP_CONV2D]);
}

static void study_run_release(study_run *s)
{
    for (int op = 0; op < RT_OP_COUNT; op++) {
        free(s->pts[op]);
        free(s->tpts[op]);
    }
    free(s->skip);
    free(s->script);
}

static double load_average(void)
{
    double load[1] = {NAN};
    return getloadavg(load, 1) == 1 ? load[0] : NAN;
}

int rt_study_run(const rt_study_opts *o, rt_study_result **out, rt_error *err)
{
    *out = NULL;
    if (rt_study_validate(o, err) < 0)
        return -1;
    study_run s = {.o = o, .t0 = rt_now()};
    rt_study_result *r = s.r = rt_xcalloc(1, sizeof *r);
    r->isa = rt_strdup(rt_onednn_isa());
    r->quick = o->quick;
    r->scale = o->scale;
    r->warmup = rt_study_warmup(o);
    r->iters = rt_study_iters(o);
    r->xf_warmup = rt_study_op_warmup(o, RT_OP_ATTENTION);
    r->xf_iters = rt_study_op_iters(o, RT_OP_ATTENTION);
    r->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    r->load_start = load_average();
    int rc = torch_setup(&s, err);
    if (rc == 0) {
        r->clock_cost = clock_cost();
        s.skip = rt_xcalloc((size_t)RT_OP_COUNT * RT_IMPL_COUNT * RT_PREC_COUNT * RT_PASS_COUNT,
                            sizeof *s.skip);
        rc = checks_pass(&s, err);
    }
    if (rc < 0) {
        study_run_release(&s);
        rt_study_result_free(r);
        return -1;
    }
    count_cases(&s);
    rc = run_cases(&s, err);
    add_notes(&s);
    study_run_release(&s);
    r->seconds = rt_now() - s.t0;
    if (rc == 0 && s.total == 0) {
        rt_error_set(err, "nothing to run: every selected case is skipped (%s)",
                     r->skipped.n ? r->skipped.msg[0] : "no case");
        rc = -1;
    }
    r->load_end = load_average();
    if (rc < 0) {
        rt_study_result_free(r);
        return -1;
    }
    if (o->progress) {
        rt_study_progress pg = {s.done, s.total, "done", r->seconds};
        o->progress(o->progress_ud, &pg);
    }
    *out = r;
    return 0;
}

void rt_study_result_free(rt_study_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_profiles; i++)
        rt_profile_free(r->profiles[i]);
    free(r->profiles);
    for (size_t i = 0; i < r->n_checks; i++)
        free(r->checks[i].what);
    free(r->checks);
    rt_warnings_release(&r->skipped);
    free(r->isa);
    free(r);
}
