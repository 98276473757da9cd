/* What a profile explains of its run: the kernels' time against the recorded wall time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/coverage.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

double rt_profile_note_seconds(const rt_profile *p, const char *key)
{
    const char *s = rt_tags_get(&p->provenance.notes, key);
    if (!s)
        return -1;
    char *end;
    double v = strtod(s, &end);
    return end != s && *end == '\0' && isfinite(v) && v >= 0 ? v : -1;
}

int rt_profile_wall_coverage(const rt_profile *p, rt_wall_coverage *out)
{
    double wall = rt_profile_note_seconds(p, "command_wall_time"),
           win = rt_profile_note_seconds(p, "torch_window");
    if (wall < 0)
        return -1;
    out->kernels = 0;
    for (size_t i = 0; i < p->n_kernels; i++)
        out->kernels += p->kernels[i].time;
    out->steps = win >= 0;
    out->device = p->time_kind == RT_TIME_DEVICE;
    out->span = out->steps ? win : wall;
    return 0;
}

void rt_wall_coverage_text(const rt_wall_coverage *c, char *buf, size_t n)
{
    char wt[64], ot[64];
    rt_fmt_time(wt, sizeof wt, c->span);
    rt_fmt_time(ot, sizeof ot, c->kernels);
    snprintf(buf, n, "%s %s is %.1f%% of the %s %s; the rest %s",
             c->device ? "device time" : "operator self time", ot,
             c->span > 0 ? 100 * c->kernels / c->span : 0,
             c->steps ? "profiled steps'" : "command's wall time", wt,
             c->device ? "the GPU was idle (notes.torch_launch_side says why)"
                       : "is outside any operator (Python, data loading, start-up, the profiler)");
}

int rt_cost_coverage_text(const rt_profile *p, char *buf, size_t n)
{
    const char *cov = rt_tags_get(&p->provenance.notes, "torch_coverage");
    if (!cov) /* a GPU trace's device profile (import torch): its device time with work */
        cov = rt_tags_get(&p->provenance.notes, "torch_device_coverage");
    const char *v = rt_tags_get(&p->provenance.notes, "torch_version");
    if (!cov)
        return -1;
    if (!v)
        snprintf(buf, n, "%s", cov); /* a profile from before torch versions were recorded */
    else if (strcmp(v, "unknown") == 0)
        snprintf(buf, n, "%s; the torch that wrote the trace is unknown (it names none)", cov);
    else
        snprintf(buf, n, "%s; written by torch %s", cov, v);
    return 0;
}

void rt_profile_note_run(rt_profile *p, const char *command, double wall, char *buf, size_t n)
{
    free(p->command);
    p->command = rt_strdup_utf8(command);
    snprintf(buf, n, "%.6f", wall);
    rt_tags_set(&p->provenance.notes, "command_wall_time", buf);
    rt_wall_coverage wc;
    rt_profile_wall_coverage(p, &wc);
    rt_wall_coverage_text(&wc, buf, n);
    rt_tags_set(&p->provenance.notes, "torch_wall_coverage", buf);
}
