/* The notes both profiles of a PyTorch trace carry, the host's (torch.c) and the device's
 * (torch-gpu-profile.c): which torch wrote the trace on how many threads, and the runner's --steps
 * window. */
#include <stdio.h>

#include "torch-internal.h"
#include "rooftime/core/profile.h"

/* Which torch wrote the trace, as it says (profile --torch's runner, or a user's
 * prof.add_metadata("torch_version", torch.__version__)); "unknown" when it does not. The runner
 * also records torch's intra-op threads: what ran the operators (source.threads). */
void rt_torch_version_notes(const reader *r, rt_profile *p)
{
    rt_tags_set(&p->provenance.notes, "torch_version", r->version ? r->version : "unknown");
    if (r->profiler)
        rt_tags_set(&p->provenance.notes, "torch_profiler", r->profiler);
    if (r->torch_threads > 0) {
        char t[32];
        snprintf(t, sizeof t, "%d", r->torch_threads);
        rt_tags_set(&p->provenance.notes, "torch_threads", t);
        p->threads = r->torch_threads;
    }
}

void rt_torch_window_notes(const reader *r, rt_profile *p)
{
    if (!(r->window_us > 0))
        return;
    char win[64];
    snprintf(win, sizeof win, "%.6f", r->window_us * 1e-6);
    rt_tags_set(&p->provenance.notes, "torch_window", win);
    if (r->window_steps > 0) {
        snprintf(win, sizeof win, "%.0f", r->window_steps);
        rt_tags_set(&p->provenance.notes, "steps", win);
    }
}
