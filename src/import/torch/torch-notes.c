/* The notes both profiles of a PyTorch trace carry, the host's (torch.c) and the device's
 * (torch-gpu-profile.c): which torch wrote the trace, and the runner's --steps window. */
#include <stdio.h>

#include "torch-internal.h"
#include "rooftime/core/profile.h"

/* profile --torch's runner's members, or a user's prof.add_metadata("torch_version",
 * torch.__version__) */
void rt_torch_version_notes(const reader *r, rt_profile *p)
{
    rt_tags_set(&p->provenance.notes, "torch_version", r->version ? r->version : "unknown");
    if (r->profiler)
        rt_tags_set(&p->provenance.notes, "torch_profiler", r->profiler);
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
