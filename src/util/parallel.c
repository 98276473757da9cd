/* Loops split over this machine's processors: one contiguous part of the indices per worker. */
#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

#include "rooftime/util/parallel.h"

size_t rt_parallel_workers(size_t n, size_t min_part)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t w = cpus > 1 ? (size_t)cpus : 1;
    if (w > RT_PARALLEL_MAX)
        w = RT_PARALLEL_MAX;
    size_t most = min_part ? n / min_part : n; /* parts of at least min_part indices */
    if (w > most)
        w = most;
    return w ? w : 1;
}

typedef struct part {
    rt_parallel_fn fn;
    void *ctx;
    size_t begin, end, worker;
} part;

static void *run(void *arg)
{
    const part *p = arg;
    p->fn(p->ctx, p->begin, p->end, p->worker);
    return NULL;
}

void rt_parallel_for(size_t n, size_t min_part, rt_parallel_fn fn, void *ctx)
{
    size_t w = rt_parallel_workers(n, min_part);
    part parts[RT_PARALLEL_MAX];
    pthread_t th[RT_PARALLEL_MAX];
    bool started[RT_PARALLEL_MAX] = {false};
    for (size_t i = 0; i < w; i++)
        parts[i] = (part){fn, ctx, n * i / w, n * (i + 1) / w, i};
    for (size_t i = 1; i < w; i++)
        started[i] = pthread_create(&th[i], NULL, run, &parts[i]) == 0;
    run(&parts[0]);
    for (size_t i = 1; i < w; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            run(&parts[i]);
    }
}
