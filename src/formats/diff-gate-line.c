/* A row of the regression gate in words: the names of its state, check and subject, and its one
 * line, which the gate keeps with the row when it is judged (diff-gate.c) and every output of
 * diff-gate-write.c shows. */
#include <math.h>
#include <stdlib.h>

#include "diff-gate-internal.h"
#include "rooftime/formats/diff-gate.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

const char *gate_state_name(rt_gate_state s)
{
    return s == RT_GATE_FAIL ? "FAIL" : s == RT_GATE_UNJUDGED ? "UNJUDGED" : "pass";
}

const char *gate_check_name(rt_gate_check c)
{
    return c == RT_GATE_TIME ? "time" : c == RT_GATE_EFFICIENCY ? "efficiency" : "launches";
}

const char *gate_subject_name(rt_gate_subject s)
{
    return s == RT_GATE_KERNEL ? "kernel" : s == RT_GATE_CONFIG ? "config" : "total";
}

/* "kernel 'KEY' (at step.py:16)", "config 'precision=fp32'", "total". */
static char *subject_text(const rt_gate_row *r)
{
    if (r->subject == RT_GATE_TOTAL)
        return rt_strdup("total");
    if (r->where)
        return rt_asprintf("%s '%s' (at %s)", gate_subject_name(r->subject), r->name, r->where);
    return rt_asprintf("%s '%s'", gate_subject_name(r->subject), r->name);
}

static char *time_line(const rt_gate *g, const rt_gate_row *r, const char *what)
{
    char b[32], a[32];
    rt_fmt_time(b, sizeof b, r->before);
    rt_fmt_time(a, sizeof a, r->after);
    double pct = 100 * g->o.threshold;
    if (r->state == RT_GATE_FAIL && !isnan(r->margin) && r->margin > 1 + g->o.threshold)
        return rt_asprintf("FAIL time of %s: %s -> %s per run (x%.2f): slower beyond noise, "
                           "AFTER's quartile band starts x%.3f above BEFORE's (threshold %g%%)%s",
                           what, b, a, r->ratio, r->margin, pct,
                           r->one_run ? "; one run on a side (--strict)" : "");
    if (r->one_run)
        return rt_asprintf("UNJUDGED time of %s: %s -> %s per run (x%.2f): AFTER's quartile band "
                           "starts x%.3f above BEFORE's (threshold %g%%), but with one run on a "
                           "side the noise between runs is not measured: give each side several "
                           "runs, or --strict fails it",
                           what, b, a, r->ratio, r->margin, pct);
    if (r->state != RT_GATE_PASS)
        return rt_asprintf("%s time of %s: %s -> %s per run (x%.2f), past the threshold %g%% with "
                           "its spread unknown (fewer than 5 invocations timed one by one, or "
                           "none, for half its time)%s",
                           gate_state_name(r->state), what, b, a, r->ratio, pct,
                           r->state == RT_GATE_FAIL ? " (--strict)" : ": --strict fails it");
    return rt_asprintf("pass time of %s: %s -> %s per run (x%.2f)%s", what, b, a, r->ratio,
                       r->ratio > 1 + g->o.threshold ? ", within noise" : "");
}

static char *efficiency_line(const rt_gate *g, const rt_gate_row *r, const char *what)
{
    double pct = 100 * g->o.threshold;
    if (r->state == RT_GATE_FAIL && !isnan(r->margin) && r->margin > 1 + g->o.threshold)
        return rt_asprintf("FAIL efficiency of %s: %.1f%% -> %.1f%% of its roof on one machine "
                           "file (x%.2f): worse beyond noise, by x%.3f past BEFORE's band "
                           "(threshold %g%%)%s",
                           what, 100 * r->before, 100 * r->after, r->ratio, r->margin, pct,
                           r->one_run ? "; one run on a side (--strict)" : "");
    if (r->one_run)
        return rt_asprintf("UNJUDGED efficiency of %s: %.1f%% -> %.1f%% of its roof on one "
                           "machine file (x%.2f), x%.3f past BEFORE's band (threshold %g%%), but "
                           "with one run on a side the noise between runs is not measured: give "
                           "each side several runs, or --strict fails it",
                           what, 100 * r->before, 100 * r->after, r->ratio, r->margin, pct);
    if (r->state != RT_GATE_PASS)
        return rt_asprintf("%s efficiency of %s: %.1f%% -> %.1f%% of its roof (x%.2f), past the "
                           "threshold %g%% with its spread unknown%s",
                           gate_state_name(r->state), what, 100 * r->before, 100 * r->after,
                           r->ratio, pct,
                           r->state == RT_GATE_FAIL ? " (--strict)" : ": --strict fails it");
    return rt_asprintf("pass efficiency of %s: %.1f%% -> %.1f%% of its roof (x%.2f)", what,
                       100 * r->before, 100 * r->after, r->ratio);
}

char *gate_row_line(const rt_gate *g, const rt_gate_row *r)
{
    if (r->check == RT_GATE_LAUNCHES)
        return rt_asprintf("%s launches per %s: %.6g -> %.6g (%+.6g, %s %g more)%s%s",
                           gate_state_name(r->state), g->per_step ? "step" : "run", r->before,
                           r->after, r->after - r->before,
                           r->state == RT_GATE_FAIL ? "more than" : "at most", g->o.launches,
                           r->detail ? ": " : "", r->detail ? r->detail : "");
    char *what = subject_text(r);
    char *line = r->check == RT_GATE_TIME ? time_line(g, r, what) : efficiency_line(g, r, what);
    free(what);
    return line;
}
