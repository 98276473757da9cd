/* `rooftime machine measure --gpu [INDEX]`: measure an NVIDIA GPU and write its machine file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-output.h"
#include "cli-progress.h"
#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/core/machine.h"
#include "rooftime/formats/gpu-arch-json.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/probe/gpu-measure.h"
#include "rooftime/util/error.h"
#include "rooftime/util/format.h"

/* " [min .. max]  P% of T theoretical" after a figure in `unit`. */
static void spread_line(FILE *fp, rt_spread s, double theoretical, const char *unit)
{
    char lo[32], hi[32], th[32];
    rt_fmt_si(lo, sizeof lo, s.min, unit);
    rt_fmt_si(hi, sizeof hi, s.max, unit);
    fprintf(fp, "  [%s .. %s]", lo, hi);
    if (theoretical > 0) {
        rt_fmt_si(th, sizeof th, theoretical, unit);
        fprintf(fp, "  %.1f%% of %s theoretical", 100 * s.median / theoretical, th);
    }
}

static void summary(FILE *fp, const rt_gpu_measurement *r)
{
    char a[32], b[32], c[32];
    fprintf(fp, "%s: sm_%d%d (%s), %d SMs, %.4g GHz rated, NVRTC %s\n", r->device, r->cc_major,
            r->cc_minor, r->arch[0] ? r->arch : "no peak data", r->sms, r->clock_hz / 1e9,
            r->nvrtc);
    for (size_t i = 0; i < r->n_compute; i++) {
        const rt_gpu_compute *u = &r->compute[i];
        rt_fmt_si(a, sizeof a, u->flops.median, "FLOP/s");
        fprintf(fp, "  %-12s %16s", u->unit, a);
        spread_line(fp, u->flops, u->theoretical, "FLOP/s");
        fprintf(fp, "  (clock %.4g GHz)\n", u->clock_hz / 1e9);
    }
    for (size_t i = 0; i < r->n_bw; i++) {
        const rt_gpu_bw *w = &r->bw[i];
        rt_fmt_si(a, sizeof a, w->bw.median, "B/s");
        rt_fmt_bytes(b, sizeof b, w->working_set);
        fprintf(fp, "  %-12s %16s", w->name, a);
        spread_line(fp, w->bw, w->theoretical, "B/s");
        fprintf(fp, "  (%s)\n", b);
    }
    for (int k = 0; k < 2; k++)
        for (int p = 0; p < 2; p++) {
            const rt_gpu_plateau *q = &r->curve[k].plateau[p];
            if (!q->found)
                continue;
            rt_fmt_si(a, sizeof a, q->bw.median, "B/s");
            rt_fmt_bytes(b, sizeof b, q->from_bytes);
            rt_fmt_bytes(c, sizeof c, q->to_bytes);
            fprintf(fp, "  sweep %-4s %-4s plateau %s over %s .. %s (%d points)\n",
                    r->curve[k].kind, q->name, a, b, c, q->points);
        }
    for (int i = 0; i < RT_GPU_TAU_COUNT; i++) {
        const rt_gpu_overhead *o = &r->overhead[i];
        rt_fmt_time(a, sizeof a, o->seconds.median);
        rt_fmt_time(b, sizeof b, o->seconds.min);
        rt_fmt_time(c, sizeof c, o->seconds.max);
        fprintf(fp, "  launch %-6s %10s [%s .. %s]  %s%s\n", o->label, a, b, c,
                rt_gpu_tau_overhead_name((rt_gpu_tau)i), (int)r->tau == i ? "  <- tau" : "");
    }
    rt_fmt_time(a, sizeof a, r->seconds);
    fprintf(fp, "  measured in %s\n", a);
}

int cmd_machine_measure_gpu(int device, int quick, const char *tau, const char *skip_family,
                            const char *output)
{
    rt_gpu_opts go = {0};
    rt_error err;
    go.device = device;
    go.quick = quick;
    go.skip_family = skip_family;
    if (tau && rt_gpu_tau_parse(tau, &go.tau, &err) != 0)
        return cli_usage_error("machine", "--tau: %s", err.msg);
    /* Open the output first: a path we cannot write must fail before the measuring. */
    char *out_path = NULL; /* -o with its placeholders expanded */
    const rt_rank_identity *id;
    int orc = cli_output_expand("machine", output, &out_path);
    if (orc != 0 || (orc = cli_identity(&id)) != 0)
        return orc;
    output = out_path;
    cli_output out;
    if ((orc = cli_output_open(&out, "machine", output, NULL, 0)) != 0) {
        free(out_path);
        return orc;
    }
    rt_gpu_archs archs;
    if (rt_gpu_archs_load(NULL, &archs, &err) != 0) {
        cli_error("%s", err.msg);
        cli_output_abort(&out);
        free(out_path);
        return RT_EXIT_FAIL;
    }
    go.archs = &archs;
    cli_progress pr;
    cli_progress_init(&pr, "machine");
    go.progress = cli_progress_show;
    go.progress_ctx = &pr;
    rt_machine *m = NULL;
    rt_warnings skipped = {0};
    int rc = rt_gpu_measure(&go, &m, &skipped, &err);
    rt_gpu_archs_release(&archs);
    cli_progress_end(&pr);
    for (size_t i = 0; i < skipped.n; i++)
        fprintf(stderr, "rooftime: skipped: %s\n", skipped.msg[i]);
    rt_warnings_release(&skipped);
    if (rc != 0) {
        cli_error("GPU measurement failed: %s", err.msg);
        cli_output_abort(&out);
        free(out_path);
        return RT_EXIT_FAIL;
    }
    m->identity = rt_rank_identity_dup(id);
    json_t *j = rt_machine_to_json(m);
    int werr = json_dumpf(j, out.fp, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0 ||
               fputc('\n', out.fp) == EOF;
    json_decref(j);
    rc = cli_output_close(&out, werr);
    if (rc == RT_EXIT_OK && output) {
        printf("wrote %s: %s\n", output, m->name);
        summary(stdout, m->gpu);
    }
    rt_machine_free(m);
    free(out_path);
    return rc == RT_EXIT_OK ? RT_EXIT_OK : RT_EXIT_FAIL;
}
