/* The phases of a generation loop in an analysis: its kernels split by their phase tag, each
 * phase's time, work and bounds, for analyze, report and the Python package alike. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/analysis-phases.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/model.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

enum { B_COMPUTE, B_BANDWIDTH, B_OVERHEAD, B_OTHER, B_COUNT };

typedef struct phase_row {
    const char *phase; /* NULL: the kernels without one */
    size_t kernels;
    double n, time, W, q, rec, by[B_COUNT];
} phase_row;

static int bound_class(const rt_verdict *v)
{
    switch (v->bound) {
    case RT_BOUND_COMPUTE:
        return B_COMPUTE;
    case RT_BOUND_BANDWIDTH:
        return B_BANDWIDTH;
    case RT_BOUND_OVERHEAD:
        return B_OVERHEAD;
    default:
        return B_OTHER;
    }
}

static phase_row *row_for(phase_row **rows, size_t *n, const char *phase)
{
    for (size_t i = 0; i < *n; i++)
        if ((!phase && !(*rows)[i].phase) ||
            (phase && (*rows)[i].phase && strcmp(phase, (*rows)[i].phase) == 0))
            return &(*rows)[i];
    *rows = rt_xrealloc(*rows, (*n + 1) * sizeof **rows);
    memset(&(*rows)[*n], 0, sizeof **rows);
    (*rows)[*n].phase = phase;
    return &(*rows)[(*n)++];
}

static void pct(char *buf, size_t n, double part, double whole)
{
    snprintf(buf, n, "%.1f%%", whole > 0 ? 100 * part / whole : 0.0);
}

static void add_row(rt_findings *f, const phase_row *r, double total)
{
    char c[11][48];
    snprintf(c[0], sizeof c[0], "%s", r->phase ? r->phase : "(no phase)");
    snprintf(c[1], sizeof c[1], "%zu", r->kernels);
    snprintf(c[2], sizeof c[2], "%.0f", r->n);
    rt_fmt_time(c[3], sizeof c[3], r->time);
    pct(c[4], sizeof c[4], r->time, total);
    snprintf(c[5], sizeof c[5], "%.4g", r->W / 1e9);
    if (r->q > 0)
        snprintf(c[6], sizeof c[6], "%.4g (AI %.3g)", r->q / 1e9, r->W / r->q);
    else
        snprintf(c[6], sizeof c[6], "none");
    for (int b = 0; b < B_COUNT; b++)
        pct(c[7 + b], sizeof c[7 + b], r->by[b], r->time);
    const char *cells[12];
    for (int i = 0; i < 11; i++)
        cells[i] = c[i];
    char rec[32];
    rt_fmt_time(rec, sizeof rec, r->rec);
    cells[11] = rec;
    rt_findings_row(f, cells);
}

rt_findings *rt_analysis_phases(const rt_analysis *a)
{
    phase_row *rows = NULL;
    size_t n = 0;
    bool any = false;
    for (size_t i = 0; i < a->n_items; i++) {
        const rt_item *it = &a->items[i];
        const char *phase = rt_tags_get(&it->tags, "phase");
        any |= phase != NULL;
        phase_row *r = row_for(&rows, &n, phase);
        r->kernels++;
        r->n += it->v.n;
        r->time += it->v.time;
        r->W += it->v.W;
        if (isfinite(it->v.q_ref))
            r->q += it->v.q_ref;
        if (isfinite(it->v.recoverable))
            r->rec += it->v.recoverable;
        r->by[bound_class(&it->v)] += it->v.time;
    }
    if (!any) {
        free(rows);
        return NULL;
    }
    /* the kernels without a phase last */
    for (size_t i = 0; i + 1 < n; i++)
        if (!rows[i].phase) {
            phase_row t = rows[i];
            memmove(&rows[i], &rows[i + 1], (n - i - 1) * sizeof *rows);
            rows[n - 1] = t;
            break;
        }
    rt_findings *f = rt_findings_new("Phases");
    rt_findings_section_add(f, "Phases of the generation loop (the kernels' phase tag)");
    const char *head[] = {"phase",
                          "kernels",
                          "launches",
                          "time",
                          "share",
                          "GFLOP",
                          "GB at the reference level",
                          "compute-bound",
                          "bandwidth-bound",
                          "overhead-bound",
                          "unknown",
                          "recoverable"};
    rt_findings_table(f, 12, head);
    rt_findings_name_col(f, 0);
    for (size_t i = 0; i < n; i++)
        add_row(f, &rows[i], a->total_time);
    rt_findings_list(f);
    static const char *const names[B_COUNT] = {"compute-bound", "bandwidth-bound", "overhead-bound",
                                               "of unknown bound"};
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].phase || !(rows[i].time > 0))
            continue;
        int best = 0;
        for (int b = 1; b < B_COUNT; b++)
            if (rows[i].by[b] > rows[i].by[best])
                best = b;
        rt_findings_item(f,
                         "%s: %.1f%% of its time in %s kernels, over %.0f launches (%.3g per "
                         "kernel).",
                         rows[i].phase, 100 * rows[i].by[best] / rows[i].time, names[best],
                         rows[i].n, rows[i].kernels ? rows[i].n / rows[i].kernels : 0);
    }
    free(rows);
    return f;
}
