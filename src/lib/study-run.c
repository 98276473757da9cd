/* The study's orchestration: correctness checks, then every implementation x precision x op x pass
 * over the sweeps, one profile each. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rooftime-config.h"
#include "rooftime/study.h"
#include "rooftime/util.h"

typedef int (*case_new_fn)(const void *shape, rt_precision, rt_pass, uint64_t, rt_study_case **,
                           rt_error *);

void rt_study_opts_init(rt_study_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < RT_OP_COUNT; i++)
        o->ops[i] = true;
    for (int i = 0; i < RT_PREC_COUNT; i++)
        o->precisions[i] = true;
    for (int i = 0; i < RT_IMPL_COUNT; i++)
        o->impls[i] = true;
    o->warmup = o->iters = -1;
    o->scale = 1;
}

static const char *const group_keys[] = {
    "implementation", "precision", "operation", "pass",     "batch", "filters",
    "kernel",         "stride",    "seq",       "features", "hidden"};
static const char *const group_params[] = {"batch", "filters",  "kernel", "stride",
                                           "seq",   "features", "hidden"};
static const rt_group_opts group_opts = {.keys = group_keys,
                                         .n_keys = sizeof group_keys / sizeof group_keys[0],
                                         .params = group_params,
                                         .n_params = sizeof group_params / sizeof group_params[0]};

const rt_group_opts *rt_study_group_opts(void)
{
    return &group_opts;
}

static int n_warmup(const rt_study_opts *o)
{
    return o->warmup >= 0 ? o->warmup : o->quick ? 1 : 5;
}

static int n_iters(const rt_study_opts *o)
{
    return o->iters >= 0 ? o->iters : o->quick ? 3 : 20;
}

static const rt_pass conv_passes[] = {RT_PASS_FWD, RT_PASS_BWD_DATA, RT_PASS_BWD_WEIGHTS};
static const rt_pass lstm_passes[] = {RT_PASS_FWD, RT_PASS_BWD};

static const rt_pass *op_passes(rt_study_op op, size_t *n)
{
    *n = op == RT_OP_CONV2D ? 3 : 2;
    return op == RT_OP_CONV2D ? conv_passes : lstm_passes;
}

int rt_study_validate(const rt_study_opts *o, rt_error *err)
{
    if (!(o->scale > 0 && o->scale <= 1)) {
        rt_error_set(err, "scale must be in (0, 1], got %g", o->scale);
        return -1;
    }
    if (o->warmup > 1000 || o->iters > 100000 || o->iters == 0) {
        rt_error_set(err,
                     "iterations must be between 1 and 100000 and warm-up at most 1000 "
                     "(got %d and %d)",
                     o->iters, o->warmup);
        return -1;
    }
    bool any_prec = false;
    for (int p = 0; p < RT_PREC_COUNT; p++)
        any_prec |= o->precisions[p];
    if (!any_prec) {
        rt_error_set(err, "no precision selected");
        return -1;
    }
    bool any = false;
    for (int op = 0; op < RT_OP_COUNT; op++) {
        if (!o->ops[op])
            continue;
        bool runs = false;
        for (int i = 0; i < RT_IMPL_COUNT; i++)
            runs |= o->impls[i] && rt_study_impl_has_op((rt_study_impl)i, (rt_study_op)op);
        if (!runs) {
            rt_error_set(err, "no selected implementation runs %s (it has: %s)",
                         rt_study_op_name((rt_study_op)op),
                         op == RT_OP_CONV2D ? "direct, im2col, onednn" : "unfused, onednn");
            return -1;
        }
        size_t n;
        rt_study_point *pts = rt_study_points((rt_study_op)op, o->quick, o->scale, &n);
        for (size_t i = 0; i < n; i++) {
            int rc = op == RT_OP_CONV2D ? rt_conv_shape_check(&pts[i].conv, err)
                                        : rt_lstm_shape_check(&pts[i].lstm, err);
            if (rc < 0) {
                rt_error_prefix(err, "sweep point %zu (%s)", i, pts[i].varied);
                free(pts);
                return -1;
            }
        }
        free(pts);
        any = true;
    }
    if (!any) {
        rt_error_set(err, "no operation selected");
        return -1;
    }
    return 0;
}

static int case_new(rt_study_impl impl, const rt_study_point *pt, rt_precision prec, rt_pass pass,
                    uint64_t seed, rt_study_case **c, rt_error *err)
{
    if (pt->op == RT_OP_CONV2D) {
        switch (impl) {
        case RT_IMPL_DIRECT:
            return rt_conv_direct_new(&pt->conv, prec, pass, seed, c, err);
        case RT_IMPL_IM2COL:
            return rt_conv_im2col_new(&pt->conv, prec, pass, seed, c, err);
        case RT_IMPL_ONEDNN:
            return rt_conv_onednn_new(&pt->conv, prec, pass, seed, c, err);
        default:
            break;
        }
    } else {
        switch (impl) {
        case RT_IMPL_UNFUSED:
            return rt_lstm_unfused_new(&pt->lstm, prec, pass, seed, c, err);
        case RT_IMPL_ONEDNN:
            return rt_lstm_onednn_new(&pt->lstm, prec, pass, seed, c, err);
        default:
            break;
        }
    }
    rt_error_set(err, "%s has no %s", rt_study_impl_name(impl), rt_study_op_name(pt->op));
    return -1;
}

/* The reference result of a small case: direct loops in fp32 (conv2d), the plain-C LSTM. */
static float *reference_out(const rt_study_point *pt, rt_pass pass, uint64_t seed, size_t *n,
                            rt_error *err)
{
    rt_study_case *c = NULL;
    int rc = pt->op == RT_OP_CONV2D
                 ? rt_conv_direct_new(&pt->conv, RT_PREC_FP32, pass, seed, &c, err)
                 : rt_lstm_reference_new(&pt->lstm, RT_PREC_FP32, pass, seed, &c, err);
    if (rc < 0)
        return NULL;
    rt_study_timer t;
    rt_timer_init(&t, NULL, NULL);
    float *out = c->run(c, &t, err) == 0 ? c->out(c, n) : NULL;
    rt_study_case_free(c);
    return out;
}

static void add_check(rt_study_result *r, char *what, double d, double bound)
{
    r->checks = rt_xrealloc(r->checks, (r->n_checks + 1) * sizeof *r->checks);
    r->checks[r->n_checks++] =
        (rt_study_check){.what = what, .rel_diff = d, .bound = bound, .ok = d <= bound};
}

/* Note a skipped case; the passes of one implementation x precision x op that fail for the
 * same reason share one note. */
static void add_skip(rt_study_result *r, rt_study_impl i, rt_precision pr, rt_study_op op,
                     rt_pass pass, const char *msg)
{
    char *head =
        rt_asprintf("%s %s %s", rt_study_impl_name(i), rt_precision_name(pr), rt_study_op_name(op));
    size_t hl = strlen(head);
    for (size_t k = 0; k < r->skipped.n; k++) {
        char *m = r->skipped.msg[k];
        const char *colon = strstr(m, ": ");
        if (strncmp(m, head, hl) == 0 && m[hl] == ' ' && colon && strcmp(colon + 2, msg) == 0) {
            char *merged =
                rt_asprintf("%.*s, %s: %s", (int)(colon - m), m, rt_pass_name(pass), msg);
            free(m);
            r->skipped.msg[k] = merged;
            free(head);
            return;
        }
    }
    rt_warnings_add(&r->skipped, "%s %s: %s", head, rt_pass_name(pass), msg);
    free(head);
}

/* Check every selected implementation x precision x pass at a small shape; returns the number
 * of failed checks. Cases that cannot be created are noted as skipped (once). */
static size_t run_checks(const rt_study_opts *o, rt_study_result *r, bool **skip)
{
    size_t failed = 0;
    rt_study_point small[RT_OP_COUNT] = {
        {.op = RT_OP_CONV2D,
         .conv = {.n = 2, .c = 8, .h = 15, .w = 13, .k = 8, .r = 3, .s = 3, .stride = 2, .pad = 1}},
        {.op = RT_OP_LSTM, .lstm = {.batch = 4, .seq = 5, .features = 8, .hidden = 6}}};
    for (int op = 0; op < RT_OP_COUNT; op++) {
        if (!o->ops[op])
            continue;
        size_t np;
        const rt_pass *passes = op_passes((rt_study_op)op, &np);
        for (size_t p = 0; p < np; p++) {
            uint64_t seed = 0x5eed + 31u * (uint64_t)op + p;
            size_t nref = 0;
            rt_error err;
            float *ref = reference_out(&small[op], passes[p], seed, &nref, &err);
            for (int i = 0; i < RT_IMPL_COUNT; i++)
                for (int pr = 0; pr < RT_PREC_COUNT; pr++) {
                    if (!o->impls[i] || !o->precisions[pr] ||
                        !rt_study_impl_has_op((rt_study_impl)i, (rt_study_op)op))
                        continue;
                    size_t idx =
                        ((size_t)(op * RT_IMPL_COUNT + i) * RT_PREC_COUNT + pr) * RT_PASS_COUNT +
                        passes[p];
                    char *what =
                        rt_asprintf("%s %s %s %s", rt_study_impl_name((rt_study_impl)i),
                                    rt_precision_name((rt_precision)pr),
                                    rt_study_op_name((rt_study_op)op), rt_pass_name(passes[p]));
                    if (i == RT_IMPL_DIRECT && pr == RT_PREC_FP32) {
                        free(what); /* the reference itself */
                        continue;
                    }
                    rt_study_case *c = NULL;
                    if (case_new((rt_study_impl)i, &small[op], (rt_precision)pr, passes[p], seed,
                                 &c, &err) < 0) {
                        add_skip(r, (rt_study_impl)i, (rt_precision)pr, (rt_study_op)op, passes[p],
                                 err.msg);
                        (*skip)[idx] = true;
                        free(what);
                        continue;
                    }
                    rt_study_timer t;
                    rt_timer_init(&t, NULL, NULL);
                    size_t n = 0;
                    float *got = NULL;
                    if (ref && c->run(c, &t, &err) == 0)
                        got = c->out(c, &n);
                    double d = got && n == nref ? rt_rel_diff(got, ref, n) : NAN;
                    /* fp32 sums in another order; 16-bit inputs round to 8 (bf16) or 11 bits */
                    double bound = pr == RT_PREC_FP32 ? 1e-4 : 2e-2;
                    add_check(r, what, d, bound);
                    if (!(d <= bound))
                        failed++;
                    free(got);
                    rt_study_case_free(c);
                }
            free(ref);
        }
    }
    return failed;
}

static char *method_text(int warmup, int iters, bool direct)
{
    return rt_asprintf(
        "rooftime study: every kernel invocation timed with the monotonic clock around the call "
        "(oneDNN: execute + stream wait), %d warm-up and %d measured iterations per config, "
        "times and counts summed over the measured ones. FLOPs: exact formulas for the "
        "algorithm run (direct loops and oneDNN's direct kernels: multiply-adds over the kernel "
        "taps inside the input; im2col GEMM and oneDNN gemm kernels: over the padded columns; "
        "GEMM 2MNK plus MN when accumulating; elementwise kernels counted per element, each libm "
        "call one FLOP). Bytes: DRAM = compulsory traffic of each kernel's tensors, each read or "
        "written once (oneDNN: the sizes of its memory descriptors); L1 = loads and stores "
        "counted per loop iteration, for the C kernels only (OpenBLAS and oneDNN kernels have "
        "none).%s",
        warmup, iters,
        direct ? " The direct loops are the correctness reference: they run at the default "
                 "config only, with at most 1 warm-up and 3 measured iterations."
               : "");
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

int rt_study_run(const rt_study_opts *o, rt_study_result **out, rt_error *err)
{
    *out = NULL;
    if (rt_study_validate(o, err) < 0)
        return -1;
    double t0 = rt_now();
    rt_study_result *r = rt_xcalloc(1, sizeof *r);
    r->isa = rt_strdup(rt_onednn_isa());
    r->quick = o->quick;
    r->scale = o->scale;
    r->warmup = n_warmup(o);
    r->iters = n_iters(o);
    r->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double load[1] = {NAN};
    r->load_start = getloadavg(load, 1) == 1 ? load[0] : NAN;
    /* the cost of one clock read, the only overhead the timer adds to a kernel's time */
    double c0 = rt_now();
    for (int k = 0; k < 100000; k++)
        (void)rt_now();
    r->clock_cost = (rt_now() - c0) / 100000;
    bool *skip = rt_xcalloc((size_t)RT_OP_COUNT * RT_IMPL_COUNT * RT_PREC_COUNT * RT_PASS_COUNT,
                            sizeof *skip);
    size_t failed = run_checks(o, r, &skip);
    if (failed) {
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
        free(skip);
        rt_study_result_free(r);
        return -1;
    }

    /* count the cases first, for the progress line */
    size_t total = 0, done = 0;
    rt_study_point *pts[RT_OP_COUNT] = {0};
    size_t npts[RT_OP_COUNT] = {0};
    for (int op = 0; op < RT_OP_COUNT; op++) {
        if (!o->ops[op])
            continue;
        pts[op] = rt_study_points((rt_study_op)op, o->quick, o->scale, &npts[op]);
        size_t np;
        const rt_pass *passes = op_passes((rt_study_op)op, &np);
        for (int i = 0; i < RT_IMPL_COUNT; i++)
            for (int pr = 0; pr < RT_PREC_COUNT; pr++)
                for (size_t p = 0; p < np; p++) {
                    size_t idx =
                        ((size_t)(op * RT_IMPL_COUNT + i) * RT_PREC_COUNT + pr) * RT_PASS_COUNT +
                        passes[p];
                    if (o->impls[i] && o->precisions[pr] &&
                        rt_study_impl_has_op((rt_study_impl)i, (rt_study_op)op) && !skip[idx] &&
                        !(i == RT_IMPL_DIRECT && o->quick))
                        total += i == RT_IMPL_DIRECT ? 1 : npts[op];
                }
    }

    int rc = 0;
    for (int op = 0; op < RT_OP_COUNT && rc == 0; op++) {
        if (!o->ops[op])
            continue;
        size_t np;
        const rt_pass *passes = op_passes((rt_study_op)op, &np);
        for (int i = 0; i < RT_IMPL_COUNT && rc == 0; i++)
            for (int pr = 0; pr < RT_PREC_COUNT && rc == 0; pr++)
                for (size_t p = 0; p < np && rc == 0; p++) {
                    size_t idx =
                        ((size_t)(op * RT_IMPL_COUNT + i) * RT_PREC_COUNT + pr) * RT_PASS_COUNT +
                        passes[p];
                    if (!o->impls[i] || !o->precisions[pr] ||
                        !rt_study_impl_has_op((rt_study_impl)i, (rt_study_op)op) || skip[idx])
                        continue;
                    bool direct = i == RT_IMPL_DIRECT;
                    if (direct && o->quick)
                        continue; /* the reference is too slow for a quick run (noted) */
                    int warmup = n_warmup(o), iters = n_iters(o);
                    if (direct) {
                        warmup = warmup < 1 ? warmup : 1;
                        iters = iters < 3 ? iters : 3;
                    }
                    rt_profile *prof = rt_profile_new();
                    rt_machine_set_str(&prof->tool, "rooftime-study");
                    rt_machine_set_str(&prof->version, RT_VERSION);
                    char *cmd = rt_asprintf(
                        "rooftime study (%s %s %s %s)", rt_study_impl_name((rt_study_impl)i),
                        rt_precision_name((rt_precision)pr), rt_study_op_name((rt_study_op)op),
                        rt_pass_name(passes[p]));
                    rt_machine_set_str(&prof->command, cmd);
                    free(cmd);
                    char *method = method_text(warmup, iters, direct);
                    rt_machine_set_str(&prof->method, method);
                    free(method);
                    rt_tags base = {0};
                    rt_tags_set(&base, "implementation", rt_study_impl_name((rt_study_impl)i));
                    rt_tags_set(&base, "precision", rt_precision_name((rt_precision)pr));
                    rt_tags_set(&base, "operation", rt_study_op_name((rt_study_op)op));
                    rt_tags_set(&base, "pass", rt_pass_name(passes[p]));
                    rt_tags_copy(&prof->tags, &base);
                    r->profiles =
                        rt_xrealloc(r->profiles, (r->n_profiles + 1) * sizeof *r->profiles);
                    r->profiles[r->n_profiles++] = prof;
                    json_t *notes = json_object();
                    for (size_t k = 0; k < (direct ? 1 : npts[op]) && rc == 0; k++) {
                        const rt_study_point *pt = &pts[op][k];
                        rt_tags tags = {0};
                        rt_tags_copy(&tags, &base);
                        tag_point(&tags, pt);
                        char what[160];
                        bool def = strcmp(pt->varied, "default") == 0;
                        snprintf(what, sizeof what, "%s %s %s %s %s%s%s", tags.v[0].value,
                                 tags.v[1].value, tags.v[2].value, tags.v[3].value, pt->varied,
                                 def ? "" : "=", def ? "" : rt_tags_get(&tags, pt->varied));
                        if (o->progress) {
                            rt_study_progress pg = {done, total, what, rt_now() - t0};
                            o->progress(o->progress_ud, &pg);
                        }
                        rt_study_case *c = NULL;
                        rt_error cerr;
                        uint64_t seed = 0xc0ffee + 7919u * k + 104729u * (uint64_t)passes[p];
                        if (case_new((rt_study_impl)i, pt, (rt_precision)pr, passes[p], seed, &c,
                                     &cerr) < 0) {
                            rt_warnings_add(&r->skipped, "%s: %s", what, cerr.msg);
                        } else {
                            rt_study_timer t;
                            rt_timer_init(&t, prof, &tags);
                            for (int it = 0; it < warmup + iters && rc == 0; it++) {
                                t.recording = it >= warmup;
                                rc = c->run(c, &t, err);
                            }
                            if (c->note) {
                                char key[96];
                                snprintf(key, sizeof key, "%s", what);
                                json_object_set_new(notes, key, json_string(c->note));
                            }
                            rt_study_case_free(c);
                        }
                        rt_tags_release(&tags);
                        done++;
                    }
                    if (json_object_size(notes)) {
                        if (!prof->extra)
                            prof->extra = json_object();
                        json_object_set_new(prof->extra, "study_notes", notes);
                    } else {
                        json_decref(notes);
                    }
                    rt_tags_release(&base);
                }
    }
    if (o->impls[RT_IMPL_DIRECT] && o->ops[RT_OP_CONV2D])
        rt_warnings_add(&r->skipped,
                        o->quick ? "direct conv2d: not timed in a quick run (it is the "
                                   "correctness reference; checked above at a small shape)"
                                 : "direct conv2d: timed at the default config only, 1 warm-up "
                                   "and 3 measured iterations (it is the correctness reference; "
                                   "the largest sweep points would take minutes per iteration)");
    for (int op = 0; op < RT_OP_COUNT; op++)
        free(pts[op]);
    free(skip);
    r->seconds = rt_now() - t0;
    load[0] = NAN;
    r->load_end = getloadavg(load, 1) == 1 ? load[0] : NAN;
    if (rc < 0) {
        rt_study_result_free(r);
        return -1;
    }
    if (o->progress) {
        rt_study_progress pg = {done, total, "done", r->seconds};
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
