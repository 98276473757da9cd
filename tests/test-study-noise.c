/* The study's findings against the spread of per-invocation times: a time ratio within the noise of
 * the two configs says "within noise", one beyond it gives the number with the spread, one without
 * a spread says why; outliers within noise are counted, not listed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study-outliers.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/findings-text.h"
#include "rooftime/study/study-findings.h"
#include "rooftime/study/study-run.h"
#include "rooftime/util/strings.h"
#include "testutil.h"

static rt_machine *toy(void)
{
    rt_machine *m = rt_machine_new("toy");
    rt_machine_add_unit(m, "fp32", 1e12);
    rt_machine_add_unit(m, "bf16", 2e12);
    rt_machine_add_level(m, "DRAM", 1e11);
    m->tau = 1e-6;
    m->ref_unit = rt_strdup("fp32");
    m->ref_level = rt_strdup("DRAM");
    return m;
}

static rt_profile *series(const char *impl, const char *prec, const char *pass)
{
    rt_profile *p = rt_profile_new();
    p->time_kind = RT_TIME_WALL;
    rt_tags_set(&p->tags, "implementation", impl);
    rt_tags_set(&p->tags, "precision", prec);
    rt_tags_set(&p->tags, "operation", "lstm");
    rt_tags_set(&p->tags, "pass", pass);
    return p;
}

/* n invocations of `per_call` seconds each; their spread: q1 and q3 at -+rel of the median (n >= 5)
 * or n samples of the same time. */
static void kernel(rt_profile *p, const char *batch, double n, double per_call, double rel)
{
    rt_kernel *k = rt_profile_add_kernel(p, "lstm_kernel");
    rt_tags_set(&k->tags, "batch", batch);
    k->invocations = n;
    k->time = n * per_call;
    rt_values_set(&k->flops, rt_tags_get(&p->tags, "precision"), 1e6 * n);
    rt_values_set(&k->bytes, "DRAM", 1e5 * n);
    k->spread = (rt_time_spread){n, per_call, per_call * (1 - rel), per_call * (1 + rel)};
}

/* The list item of a section that contains want, or NULL. */
static const char *item_with(const rt_findings *f, const char *heading, const char *want)
{
    for (size_t s = 0; s < f->n_sections; s++) {
        if (strncmp(f->sections[s].heading, heading, strlen(heading)) != 0)
            continue;
        for (size_t b = 0; b < f->sections[s].n_blocks; b++) {
            const rt_findings_block *bl = &f->sections[s].blocks[b];
            if (bl->kind != RT_FINDINGS_LIST)
                continue;
            for (size_t r = 0; r < bl->n_rows; r++)
                if (strstr(rt_findings_cell(bl, r, 0), want))
                    return rt_findings_cell(bl, r, 0);
        }
    }
    return NULL;
}

static void expect(const rt_findings *f, const char *heading, const char *want)
{
    const char *got = item_with(f, heading, want);
    if (!got) {
        rt_findings_write_text(f, stderr);
        fail_msg("no item in '%s' with: %s", heading, want);
    }
    print_message("%s\n", got);
}

static void test_findings_noise(void **state)
{
    (void)state;
    rt_machine *m = toy();
    rt_profile *ps[4];
    /* forward fp32: 1.00 -> 1.04 ms a call, IQR +-10% each: within noise (+-14%) */
    ps[0] = series("onednn", "fp32", "forward");
    kernel(ps[0], "16", 20, 1.00e-3, 0.10);
    kernel(ps[0], "32", 20, 1.04e-3, 0.10);
    /* backward fp32: 1 -> 2 ms, IQR +-5% each: x2.00, beyond (+-7%) */
    ps[1] = series("onednn", "fp32", "backward");
    kernel(ps[1], "16", 20, 1e-3, 0.05);
    kernel(ps[1], "32", 20, 2e-3, 0.05);
    /* forward bf16: 1.02 ms at batch 16 (beside fp32's 1.00: within noise), 2.08 ms at 32
     * (beside 1.04: x2, beyond) */
    ps[2] = series("onednn", "bf16", "forward");
    kernel(ps[2], "16", 20, 1.02e-3, 0.10);
    kernel(ps[2], "32", 20, 2.08e-3, 0.05);
    /* pytorch: 3 iterations, x76.53 with no spread to compare */
    ps[3] = series("pytorch", "fp32", "forward");
    kernel(ps[3], "16", 3, 1e-3, 0);
    kernel(ps[3], "32", 3, 76.53e-3, 0);
    rt_error err;
    rt_analysis *a = rt_analysis_new(m, RT_MODE_HIER, ps, 4, rt_study_group_opts(), &err);
    assert_non_null(a);
    rt_study_result r = {.scale = 1, .warmup = 5, .iters = 20, .ncpu = 2};
    rt_findings *f = rt_study_findings(a, &r);
    const char *scaling = "Scaling along";
    expect(f, scaling,
           "onednn fp32 lstm forward: batch x2 (16 -> 32) gives time within noise (IQR "
           "\u00b114%), invocations x1.00");
    expect(f, scaling,
           "onednn fp32 lstm backward: batch x2 (16 -> 32) gives time x2.00 (IQR \u00b17%)");
    expect(f, scaling,
           "onednn bf16 lstm forward: batch x2 (16 -> 32) gives time x2.04 (IQR \u00b111%)");
    expect(f, scaling,
           "pytorch fp32 lstm forward: batch x2 (16 -> 32) gives time x76.53 (from 3 "
           "invocations, spread unknown)");
    /* Outliers: bf16 at batch 32 twice fp32 is listed with its spread; at batch 16 within noise,
     * counted only. */
    const char *outliers = "Outliers at the same shape";
    expect(f, outliers,
           "batch=32: onednn bf16 takes x2.00 the time of onednn fp32 (a narrower precision "
           "slower than a wider one: emulated, or converted on the way; IQR \u00b111%)");
    expect(f, outliers,
           "Not listed, within noise (IQR up to \u00b114% from the two sides' per-invocation "
           "times): 1 narrower precision slower than a wider one.");
    assert_null(item_with(f, outliers, "batch=16: onednn bf16 takes"));
    assert_non_null(item_with(f, outliers, "No shape has one implementation"));
    rt_findings_free(f);

    /* Without spreads (profiles from tables of totals), the same numbers say so. */
    for (int i = 0; i < 4; i++)
        for (size_t k = 0; k < ps[i]->n_kernels; k++)
            memset(&ps[i]->kernels[k].spread, 0, sizeof ps[i]->kernels[k].spread);
    f = rt_study_findings(a, &r);
    expect(f, scaling,
           "onednn fp32 lstm forward: batch x2 (16 -> 32) gives time x1.04 (no per-invocation "
           "times, spread unknown)");
    expect(f, outliers,
           "batch=16: onednn bf16 takes x1.02 the time of onednn fp32 (a narrower precision "
           "slower than a wider one: emulated, or converted on the way; no per-invocation times, "
           "spread unknown)");
    rt_findings_free(f);
    rt_analysis_free(a);
    for (int i = 0; i < 4; i++)
        rt_profile_free(ps[i]);
    rt_machine_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_findings_noise)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
