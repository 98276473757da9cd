/* `rooftime machine measure --gpu [INDEX]`: measure an NVIDIA GPU and write its machine file. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli-output.h"
#include "cli-util.h"
#include "commands.h"
#include "rooftime/core/machine.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/probe/gpu-json.h"
#include "rooftime/probe/gpu-measure.h"
#include "rooftime/util/error.h"

static void show_progress(void *ctx, const char *stage, double fraction)
{
    int *last = ctx;
    int pct = (int)(fraction * 100 + 0.5);
    fprintf(stderr, "\r[%3d%%] %-56.56s", pct, stage);
    fflush(stderr);
    *last = pct;
}

static void summary(FILE *fp, const rt_gpu_report *r)
{
    fprintf(fp, "%s: sm_%d%d (%s), %d SMs, %.4g GHz rated, NVRTC %s\n", r->device, r->cc_major,
            r->cc_minor, r->arch[0] ? r->arch : "no peak data", r->sms, r->clock_hz / 1e9,
            r->nvrtc);
    for (size_t i = 0; i < r->n_compute; i++) {
        const rt_gpu_compute *c = &r->compute[i];
        fprintf(fp, "  %-12s %10.4g TFLOP/s [%.4g .. %.4g]", c->unit, c->flops.median / 1e12,
                c->flops.min / 1e12, c->flops.max / 1e12);
        if (c->theoretical > 0)
            fprintf(fp, "  %5.1f%% of %.4g theoretical", 100 * c->flops.median / c->theoretical,
                    c->theoretical / 1e12);
        fprintf(fp, "  (clock %.4g GHz)\n", c->clock_hz / 1e9);
    }
    for (size_t i = 0; i < r->n_bw; i++) {
        const rt_gpu_bw *b = &r->bw[i];
        fprintf(fp, "  %-12s %10.4g GB/s    [%.4g .. %.4g]", b->name, b->bw.median / 1e9,
                b->bw.min / 1e9, b->bw.max / 1e9);
        if (b->theoretical > 0)
            fprintf(fp, "  %5.1f%% of %.4g theoretical", 100 * b->bw.median / b->theoretical,
                    b->theoretical / 1e9);
        fprintf(fp, "  (%.3g MB)\n", b->working_set / 1e6);
    }
    for (int c = 0; c < 2; c++)
        for (int p = 0; p < 2; p++) {
            const rt_plateau *q = &r->curve[c].plateau[p];
            if (q->found)
                fprintf(fp, "  sweep %-4s %-4s plateau %8.4g GB/s over %.3g..%.3g MB (%d points)\n",
                        r->curve[c].kind, q->name, q->bw / 1e9, q->from_bytes / 1e6,
                        q->to_bytes / 1e6, q->n_points);
        }
    for (int i = 0; i < RT_GPU_TAU_COUNT; i++) {
        const rt_gpu_overhead *o = &r->overhead[i];
        fprintf(fp, "  launch %-6s %8.4g µs [%.4g .. %.4g]%s\n", o->label, o->seconds.median * 1e6,
                o->seconds.min * 1e6, o->seconds.max * 1e6, (int)r->tau == i ? "  <- tau" : "");
    }
    fprintf(fp, "  measured in %.1f s\n", r->seconds);
}

int cmd_machine_measure_gpu(int device, int quick, const char *tau, const char *output)
{
    rt_gpu_opts go = {0};
    rt_error err;
    go.device = device;
    go.quick = quick;
    if (tau && rt_gpu_tau_parse(tau, &go.tau, &err) != 0)
        return cli_usage_error("machine", "--tau: %s", err.msg);
    cli_output out;
    int orc = cli_output_open(&out, "machine", output, NULL, 0);
    if (orc != 0)
        return orc;
    int last = -1;
    if (isatty(STDERR_FILENO)) {
        go.progress = show_progress;
        go.progress_ctx = &last;
    }
    rt_machine *m = NULL;
    rt_gpu_report rep;
    rt_warnings skipped = {0};
    int rc = rt_gpu_measure(&go, &m, &rep, &skipped, &err);
    if (last >= 0)
        fputc('\n', stderr);
    for (size_t i = 0; i < skipped.n; i++)
        fprintf(stderr, "rooftime: skipped: %s\n", skipped.msg[i]);
    rt_warnings_release(&skipped);
    if (rc != 0) {
        cli_error("GPU measurement failed: %s", err.msg);
        if (out.path && out.af.fp)
            rt_atomic_abort(&out.af); /* nothing written: no second message */
        return RT_EXIT_FAIL;
    }
    json_t *j = rt_machine_to_json(m);
    json_object_set_new(j, "gpu", rt_gpu_report_to_json(&rep));
    int werr = json_dumpf(j, out.fp, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0 ||
               fputc('\n', out.fp) == EOF;
    json_decref(j);
    rc = cli_output_close(&out, werr);
    if (rc == RT_EXIT_OK && output) {
        printf("wrote %s: %s\n", output, m->name);
        summary(stdout, &rep);
    }
    rt_gpu_report_release(&rep);
    rt_machine_free(m);
    return rc == RT_EXIT_OK ? RT_EXIT_OK : RT_EXIT_FAIL;
}
