/* Analyses of the same profiles in several modes at once, a thread each: nothing in an analysis
 * is shared but the profiles and the machine, which it only reads. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "rooftime/core/analysis.h"
#include "rooftime/util/strings.h"

typedef struct mode_job {
    const rt_machine *m;
    rt_mode mode;
    rt_profile *const *profiles;
    size_t n_profiles;
    const rt_group_opts *opts;
    rt_analysis *out;
    rt_error err;
} mode_job;

static void *analyze(void *arg)
{
    mode_job *j = arg;
    j->out = rt_analysis_new(j->m, j->mode, j->profiles, j->n_profiles, j->opts, &j->err);
    return NULL;
}

int rt_analysis_new_modes(const rt_machine *m, const rt_mode *modes, size_t n_modes,
                          rt_profile *const *profiles, size_t n_profiles, const rt_group_opts *opts,
                          rt_analysis **out, rt_error *err)
{
    mode_job *jobs = rt_xcalloc(n_modes ? n_modes : 1, sizeof *jobs);
    pthread_t *th = rt_xcalloc(n_modes ? n_modes : 1, sizeof *th);
    bool *started = rt_xcalloc(n_modes ? n_modes : 1, sizeof *started);
    for (size_t i = 0; i < n_modes; i++) {
        jobs[i] = (mode_job){m, modes[i], profiles, n_profiles, opts, NULL, {{0}}};
        /* the first runs here; the others on threads (here too when none can start) */
        started[i] = i > 0 && pthread_create(&th[i], NULL, analyze, &jobs[i]) == 0;
    }
    if (n_modes)
        analyze(&jobs[0]);
    for (size_t i = 1; i < n_modes; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            analyze(&jobs[i]);
    }
    int rc = 0;
    for (size_t i = 0; i < n_modes; i++)
        if (!jobs[i].out && rc == 0) {
            *err = jobs[i].err;
            rc = -1;
        }
    for (size_t i = 0; i < n_modes; i++) {
        if (rc != 0) {
            rt_analysis_free(jobs[i].out);
            jobs[i].out = NULL;
        }
        out[i] = jobs[i].out;
    }
    free(jobs);
    free(th);
    free(started);
    return rc;
}
