/* Loops split over this machine's processors: one contiguous part of the indices per worker. */
#define _GNU_SOURCE /* open_memstream */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
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

typedef struct write_job {
    rt_parallel_write_fn fn;
    void *ctx;
    size_t first; /* this round's first element */
    char *buf[RT_PARALLEL_MAX];
    size_t len[RT_PARALLEL_MAX];
    int rc[RT_PARALLEL_MAX];
} write_job;

/* Elements first + [begin, end) into the worker's own text. */
static void write_part(void *arg, size_t begin, size_t end, size_t worker)
{
    write_job *j = arg;
    FILE *mem = open_memstream(&j->buf[worker], &j->len[worker]);
    if (!mem) {
        j->rc[worker] = -1;
        return;
    }
    if (j->fn(j->ctx, j->first + begin, j->first + end, mem) != 0)
        j->rc[worker] = -1;
    if (fclose(mem) != 0)
        j->rc[worker] = -1;
}

int rt_parallel_write(FILE *fp, size_t n, size_t block, rt_parallel_write_fn fn, void *ctx)
{
    write_job j = {.fn = fn, .ctx = ctx};
    size_t min_part = block / 8 ? block / 8 : 1;
    size_t w = rt_parallel_workers(n, min_part), round = w * (block ? block : 1);
    int rc = 0;
    /* Rounds of a block per worker: every worker's elements of a round precede the next one's. */
    for (j.first = 0; j.first < n; j.first += round) {
        size_t items = n - j.first < round ? n - j.first : round;
        rt_parallel_for(items, min_part, write_part, &j);
        for (size_t i = 0; i < w; i++) {
            if (j.buf[i] && fwrite(j.buf[i], 1, j.len[i], fp) != j.len[i])
                rc = -1;
            free(j.buf[i]);
            j.buf[i] = NULL;
            j.len[i] = 0;
            rc |= j.rc[i];
            j.rc[i] = 0;
        }
    }
    return rc;
}
