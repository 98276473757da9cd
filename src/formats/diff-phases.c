/* Two runs of a generation loop phase by phase: each phase's time and launches before and after
 * (the kernels' phase tag, as profile --torch gives it), under diff's kernel table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/profile.h"
#include "rooftime/formats/diff-phases.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

typedef struct side_sum {
    const char *phase; /* NULL: no phase */
    double time[2], n[2];
} side_sum;

static side_sum *sum_for(side_sum **v, size_t *n, const char *phase)
{
    for (size_t i = 0; i < *n; i++)
        if ((!phase && !(*v)[i].phase) || (phase && (*v)[i].phase && !strcmp(phase, (*v)[i].phase)))
            return &(*v)[i];
    *v = rt_xrealloc(*v, (*n + 1) * sizeof **v);
    memset(&(*v)[*n], 0, sizeof **v);
    (*v)[*n].phase = phase;
    return &(*v)[(*n)++];
}

void rt_diff_phases_write(FILE *fp, const rt_profile *before, const rt_profile *after)
{
    const rt_profile *p[2] = {before, after};
    side_sum *v = NULL;
    size_t n = 0;
    bool any = false;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < p[s]->n_kernels; i++) {
            const rt_kernel *k = &p[s]->kernels[i];
            const char *phase = rt_tags_get(&k->tags, "phase");
            if (!phase)
                phase = rt_tags_get(&p[s]->tags, "phase");
            any |= phase != NULL;
            side_sum *x = sum_for(&v, &n, phase);
            x->time[s] += k->time;
            x->n[s] += k->invocations;
        }
    if (any) {
        fprintf(fp, "\nphases (time before -> after)\n");
        for (int pass = 0; pass < 2; pass++) /* the tagged first, then the rest */
            for (size_t i = 0; i < n; i++) {
                if ((pass == 0) != (v[i].phase != NULL))
                    continue;
                char a[32], b[32];
                rt_fmt_time(a, sizeof a, v[i].time[0]);
                rt_fmt_time(b, sizeof b, v[i].time[1]);
                fprintf(fp, "  %s: %s -> %s", v[i].phase ? v[i].phase : "(no phase)", a, b);
                if (v[i].time[0] > 0 && v[i].time[1] > 0)
                    fprintf(fp, " (x%.2f)", v[i].time[1] / v[i].time[0]);
                fprintf(fp, ", %.0f -> %.0f launches\n", v[i].n[0], v[i].n[1]);
            }
    }
    free(v);
}
