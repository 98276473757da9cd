/* The findings of any analysis: zero-AI kernels (pure data movement) and overhead-bound configs,
 * the longest of each in a table. */
#include <stdio.h>
#include <stdlib.h>

#include "rooftime/core/analysis-findings.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

static void fmt_time(char *b, size_t n, double s)
{
    if (s != s)
        snprintf(b, n, "-");
    else
        rt_fmt_time(b, n, s);
}

static double share(const rt_analysis *a, double t)
{
    return a->total_time > 0 ? 100 * t / a->total_time : 0;
}

static void zero_ai(rt_findings *f, const rt_analysis *a, const size_t *io)
{
    double zt = 0;
    size_t nz = 0;
    for (size_t i = 0; i < a->n_items; i++)
        if (a->items[i].v.zero_ai) {
            nz++;
            zt += a->items[i].v.time;
        }
    char lead[64], b[48], text[256];
    snprintf(lead, sizeof lead, "%zu zero-AI kernel%s", nz, nz == 1 ? "" : "s");
    rt_fmt_time(b, sizeof b, zt);
    snprintf(text, sizeof text,
             " (no FLOPs: pure data movement such as transposes, conversions, padding) take %s, "
             "%.1f%% of the run time.",
             b, share(a, zt));
    rt_findings_callout(f, lead, text);
    if (!nz)
        return;
    rt_findings_callout_table(f, 4, (const char *const[]){"kernel", "time", "share", "launches"});
    size_t shown = 0;
    for (size_t k = 0; k < a->n_items && shown < RT_CALLOUT_ROWS; k++) {
        const rt_item *it = &a->items[io[k]];
        if (!it->v.zero_ai)
            continue;
        char t[48], s[32], n[32];
        fmt_time(t, sizeof t, it->v.time);
        snprintf(s, sizeof s, "%.1f%%", share(a, it->v.time));
        snprintf(n, sizeof n, "%.0f", it->v.n);
        rt_findings_row(f, (const char *const[]){it->kernel->name, t, s, n});
        shown++;
    }
    if (nz > shown)
        rt_findings_note(f, "and %zu more", nz - shown);
}

static void overhead_bound(rt_findings *f, const rt_analysis *a)
{
    size_t no = 0;
    for (size_t c = 0; c < a->n_configs; c++)
        no += a->configs[c].v.overhead_bound;
    char lead[96];
    snprintf(lead, sizeof lead, "%zu of %zu config%s overhead-bound", no, a->n_configs,
             a->n_configs == 1 ? " is" : "s are");
    rt_findings_callout(f, lead,
                        ": their launches (n \xc2\xb7 \xcf\x84) cost more than their compute and "
                        "data movement at peak.");
    if (!no)
        return;
    rt_findings_callout_table(f, 5,
                              (const char *const[]){"config", "time", "launches",
                                                    "n \xc2\xb7 \xcf\x84", "roofline time"});
    size_t *co = rt_analysis_configs_by_time(a), shown = 0;
    for (size_t k = 0; k < a->n_configs && shown < RT_CALLOUT_ROWS; k++) {
        const rt_config *c = &a->configs[co[k]];
        if (!c->v.overhead_bound)
            continue;
        shown++;
        char t[48], n[32], oh[48], roof[48];
        fmt_time(t, sizeof t, c->v.time);
        snprintf(n, sizeof n, "%.0f", c->v.n);
        fmt_time(oh, sizeof oh, c->v.t_oh);
        fmt_time(roof, sizeof roof, c->v.t_roof);
        rt_findings_row(f, (const char *const[]){c->label, t, n, oh, roof});
    }
    free(co);
    if (no > shown)
        rt_findings_note(f, "and %zu more (highlighted in the config table)", no - shown);
}

rt_findings *rt_analysis_findings(const rt_analysis *a)
{
    rt_findings *f = rt_findings_new("Zero-AI kernels and overhead-bound configs");
    rt_findings_section_add(f, "Zero-AI kernels and overhead-bound configs")->id =
        rt_strdup("callouts");
    size_t *io = rt_analysis_items_by_time(a);
    zero_ai(f, a, io);
    overhead_bound(f, a);
    free(io);
    return f;
}
