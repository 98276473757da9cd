/* `rooftime study`: measure this machine, run the Conv2D and LSTM sweeps through every
 * implementation, and write the profiles, the analysis and the HTML report with the findings. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-inputs.h"
#include "cli-progress.h"
#include "cli-study-gpu.h"
#include "cli-study.h"
#include "commands.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/reference-ceiling.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/analysis-format.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/probe/measure-machine.h"
#include "rooftime/render/report.h"
#include "rooftime/study/study-findings.h"
#include "rooftime/study/study-impls.h"
#include "rooftime/study/study-run.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/study/study-torch.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static void show_study(void *ud, const rt_study_progress *p)
{
    (void)ud;
    fprintf(stderr, "\r[%4zu/%-4zu %5.0f s] %-62.62s", p->done, p->total, p->elapsed, p->what);
    fflush(stderr);
}

/* Not a terminal (a log, `make demo | tee`): a line as each case (implementation, precision,
 * operation, pass: the first four words of p->what) begins, so a long run still shows where it is
 * and what each case took. */
static void show_study_lines(void *ud, const rt_study_progress *p)
{
    char *last = ud; /* the case of the last line, 128 bytes */
    const char *end = p->what;
    for (int words = 0; *end && words < 4; end++)
        words += *end == ' ';
    size_t n = (size_t)(end - p->what);
    if (n >= 128 || (strncmp(last, p->what, n) == 0 && last[n] == '\0'))
        return;
    memcpy(last, p->what, n);
    last[n] = '\0';
    fprintf(stderr, "rooftime: study: [%zu/%zu points, %.0f s] %.*s\n", p->done, p->total,
            p->elapsed, (int)(n && p->what[n - 1] == ' ' ? n - 1 : n), p->what);
}

static char *profile_path(const char *dir, const rt_profile *p)
{
    const char *t[4] = {rt_tags_get(&p->tags, "operation"), rt_tags_get(&p->tags, "implementation"),
                        rt_tags_get(&p->tags, "precision"), rt_tags_get(&p->tags, "pass")};
    return rt_asprintf("%s/profiles/%s-%s-%s-%s.json", dir, t[0], t[1], t[2], t[3]);
}

/* Measure the machine the study runs on (no --machine given); 0, or -1 when it failed (said). */
static int measure_machine(const rt_study_opts *so, rt_machine **m)
{
    cli_progress pr;
    cli_progress_init(&pr, "machine");
    rt_measure_opts mo = {.quick = so->quick, .progress = cli_progress_show, .progress_ctx = &pr};
    rt_warnings skipped = {0};
    rt_error err;
    int rc = rt_machine_measure(&mo, m, &skipped, &err);
    cli_progress_end(&pr);
    for (size_t i = 0; i < skipped.n; i++)
        fprintf(stderr, "rooftime: machine: skipped: %s\n", skipped.msg[i]);
    rt_warnings_release(&skipped);
    if (rc != 0)
        cli_error("measuring the machine failed: %s", err.msg);
    return rc != 0 ? -1 : 0;
}

/* The study's profiles, each naming the machine, into DIR/profiles; 0, or -1 (said). */
static int save_profiles(const char *dir, rt_study_result *res, const rt_machine *m)
{
    rt_error err;
    for (size_t i = 0; i < res->n_profiles; i++) {
        rt_machine_set_str(&res->profiles[i]->machine, m->name);
        char *path = profile_path(dir, res->profiles[i]);
        int rc = rt_profile_save(res->profiles[i], path, &err);
        free(path);
        if (rc != 0) {
            cli_error("%s", err.msg);
            return -1;
        }
    }
    return 0;
}

int cmd_study(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--gpu") == 0)
            return cli_study_gpu(argc, argv);
    rt_study_opts so;
    rt_study_opts_init(&so);
    cli_study_args args = {.cpu = &so, .dir = "rooftime-study", .mode = "hier"};
    int orc = cli_study_options(argc, argv, &args);
    if (orc != 0)
        return orc;
    const char *dir = args.dir, *machine_arg = args.machine;
    rt_mode mode;
    rt_error merr;
    if (rt_mode_parse(args.mode, &mode, &merr) != 0)
        return cli_usage_error("study", "--mode: %s", merr.msg);

    /* Everything that can be wrong with the request fails here, before minutes of work. */
    rt_error err;
    if (rt_study_validate(&so, &err) != 0)
        return cli_usage_error("study", "%s", err.msg);
    /* pytorch asked for by name but torch cannot run: say so now, not after the measurement
     * (selected by default, the study notes it as skipped instead) */
    if (so.impls[RT_IMPL_PYTORCH] && !so.pytorch_optional && rt_study_torch_check(&so, &err) != 0) {
        cli_error("--impl pytorch: %s", err.msg);
        return RT_EXIT_FAIL;
    }
    if (so.impls[RT_IMPL_SDPA] && !so.pytorch_optional &&
        (so.ops[RT_OP_ATTENTION] || so.ops[RT_OP_DECODE]) && rt_study_sdpa_check(&so, &err) != 0) {
        cli_error("--impl sdpa: %s", err.msg);
        return RT_EXIT_FAIL;
    }
    rt_machine *m = NULL;
    if (machine_arg && rt_machine_resolve(machine_arg, &m, &err) != 0) {
        cli_error("%s", err.msg);
        return RT_EXIT_FAIL;
    }
    char *profdir = rt_asprintf("%s/profiles", dir);
    if (rt_mkdir_p(profdir, &err) != 0) {
        cli_error("%s", err.msg);
        free(profdir);
        rt_machine_free(m);
        return RT_EXIT_FAIL;
    }
    free(profdir);
    bool tty = isatty(STDERR_FILENO);
    int rc = RT_EXIT_FAIL;
    rt_study_result *res = NULL;
    rt_analysis *a = NULL;
    rt_findings *findings = NULL;
    char *text = NULL, *path = NULL;
    double t0 = rt_now();

    if (!m && measure_machine(&so, &m) != 0)
        goto done;
    double t_machine = rt_now() - t0;
    path = rt_asprintf("%s/machine.json", dir);
    if (rt_machine_save(m, path, &err) != 0) {
        cli_error("%s", err.msg);
        goto done;
    }
    free(path);
    path = NULL;

    char last_case[128] = "";
    so.progress = tty ? show_study : show_study_lines;
    so.progress_ud = last_case;
    int src = rt_study_run(&so, &res, &err);
    if (tty)
        fputc('\n', stderr);
    if (src != 0) {
        cli_error("study failed: %s", err.msg);
        goto done;
    }
    if (save_profiles(dir, res, m) != 0)
        goto done;
    /* The reference among the units the study's kernels use (the machine file keeps its own). */
    rt_reference_choose(m, res->profiles, res->n_profiles);
    a = rt_analysis_new(m, mode, res->profiles, res->n_profiles, rt_study_group_opts(), &err);
    if (!a) {
        cli_error("analysis failed: %s", err.msg);
        goto done;
    }
    if (cli_study_write_analyses(a, dir) != 0)
        goto done;
    findings = rt_study_findings(a, res);
    /* the transformer ops' charts are titled by their phase too (conv2d and lstm carry none) */
    static const char *const split[] = {"phase", "operation", "pass"};
    rt_report_opts ro = {.title = "rooftime study: Conv2D, LSTM and a transformer layer on this "
                                  "machine",
                         .split_by = split,
                         .n_split_by = 3,
                         .series_by = "implementation",
                         .marker_by = NULL,
                         .fill_by = "precision"};
    text = cli_study_write_report(m, mode, a, res->profiles, res->n_profiles, rt_study_group_opts(),
                                  findings, &ro, dir);
    if (!text)
        goto done;
    fputs(text, stdout);
    printf("\nmachine %.1f s, study %.1f s, total %.1f s\n", t_machine, res->seconds,
           rt_now() - t0);
    printf("wrote %s/report.html, %s/machine.json, %zu profiles in %s/profiles, "
           "%s/analysis.{txt,json}, %s/findings.txt\n",
           dir, dir, res->n_profiles, dir, dir, dir);
    rc = RT_EXIT_OK;
done:
    free(path);
    rt_findings_free(findings);
    free(text);
    rt_analysis_free(a);
    rt_study_result_free(res);
    rt_machine_free(m);
    return rc;
}

/* `rooftime study`: name, entry point, summary and usage (main.c lists it). */
const rt_command rt_cmd_study = {
    "study", cmd_study,
    "run the Conv2D, LSTM and transformer study on this machine and write its report",
    "rooftime study [-o DIR] [--quick] [--machine NAME|FILE] [options]\n"
    "\n"
    "  -o, --output DIR     where to write (default rooftime-study): machine.json,\n"
    "                       profiles/*.json, analysis.{txt,json}, findings.txt, report.html\n"
    "      --quick          the default config and one more point per sweep, 1 warm-up and\n"
    "                       3 measured iterations, a quick machine measurement\n"
    "  -m, --machine M      reuse a machine file (or preset) instead of measuring\n"
    "      --impl LIST      direct, im2col, onednn, unfused, pytorch, sdpa (default: all;\n"
    "                       pytorch when /usr/bin/python3 or $ROOFTIME_PYTHON can import\n"
    "                       torch, sdpa when that torch has scaled_dot_product_attention)\n"
    "      --op LIST        conv2d, lstm, attention, mlp, decode (default: all): the paper's\n"
    "                       Conv2D and LSTM, and a transformer layer's attention over a\n"
    "                       sequence (prefill), its MLP, and one decode step with a KV cache\n"
    "      --precision LIST fp32, bf16, fp16 (default: all; what an implementation lacks is\n"
    "                       skipped and said so, and so is torch's bf16 on a CPU without\n"
    "                       AVX-512, where torch emulates it, unless this option names it)\n"
    "      --warmup N       warm-up iterations per config (default 5; the transformer\n"
    "                       ops' 2)\n"
    "      --iters N        measured iterations per config (default 20; the transformer\n"
    "                       ops' 5)\n"
    "      --mode MODE      hier (default: every unit at its own peak) or single\n"
    "      --scale X        shrink the shapes by X in (0, 1] (tests; 1 = the paper's)\n"
    "\n"
    "rooftime study --gpu [INDEX] [-o DIR] [--quick] [--machine M] [options]\n"
    "\n"
    "  The same sweeps on NVIDIA GPU INDEX (default 0) through PyTorch (eager fp32 with TF32\n"
    "  off, tf32, AMP fp16 and bf16; channels_last for conv2d, CUDA Graphs for the LSTM) and\n"
    "  JAX (jit; fp32, fp16, bf16), one client process (scripts/study-gpu-*.py) per framework\n"
    "  x op x precision x variant, each run twice under rooftime's CUPTI collector: a trace\n"
    "  run for the times, a counter run for FLOPs and bytes (every measured iteration with\n"
    "  --quick; one warm-up and 2 of the 20 measured iterations otherwise). The machine is\n"
    "  `machine measure --gpu` unless --machine; conv2d outputs are checked against\n"
    "  rooftime's direct NVRTC convolution; three configs are cross-checked against ncu when\n"
    "  it is found. A framework that is missing is skipped with a line in the findings.\n"
    "  Without a CUDA driver or device it exits 1 naming what is missing.\n"
    "      --framework LIST pytorch, jax (default both)\n"
    "      --precision LIST fp32, tf32, fp16, bf16 (default all; jax has no tf32)\n"
    "      --op, --warmup, --iters, --mode, --scale  as above\n"
    "      --dry-run        write DIR/plans/*.json and print the clients that would run\n"
    "                       (needs no GPU)\n"
    "      --no-ncu         skip the ncu cross-check\n"
    "      --client-timeout S  kill a client run after S seconds (default 600; 0: never)\n"
    "      --ncu-clock-control base|none  the cross-check's ncu clocks: base (default, ncu's:\n"
    "                       locked to base, none when that fails) or none (left as they\n"
    "                       are, where the GPU's settings must not change)\n"
    "      --from RUN       re-import an earlier run's collector directories (RUN/collect)\n"
    "                       and write the study anew, with RUN/machine.json unless -m;\n"
    "                       nothing runs, no GPU needed\n"
    "  Writes, besides the files above: plans/, collect/ (the collector's directories),\n"
    "  logs/, check/, ncu/.\n"
    "\n"
    "See docs/study.md.",
    "  rooftime study --quick -o out/     # about a minute on 2 cores; open out/report.html\n"
    "  rooftime study --op conv2d --impl onednn,pytorch --precision fp32 -o conv/\n"
    "  rooftime study --gpu --dry-run -o plan/   # the GPU study's plans, no GPU needed\n"};
