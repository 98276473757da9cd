/* Rank identity: which launcher started this process, as which rank, on which host and device. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rooftime/util/error.h"
#include "rooftime/util/rank-identity.h"
#include "rooftime/util/strings.h"

/* The launchers, in the order they are tried: the first whose rank variable is set wins (an
 * Open MPI job started by srun has both; its own variables are the more precise). */
static const struct launcher {
    const char *name;
    const char *rank, *local_rank, *size;
} launchers[] = {
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"pmi", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
    {"slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
    {"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE"},
};

/* Variables naming the devices a process was given, and the prefix its device takes. */
static const struct device_var {
    const char *var, *prefix;
} device_vars[] = {
    {"CUDA_VISIBLE_DEVICES", "cuda:"},
    {"HIP_VISIBLE_DEVICES", "hip:"},
    {"ROCR_VISIBLE_DEVICES", "rocr:"},
    {"ZE_AFFINITY_MASK", "ze:"},
};

void rt_rank_identity_init(rt_rank_identity *id)
{
    memset(id, 0, sizeof *id);
    id->rank = id->local_rank = id->size = -1;
}

void rt_rank_identity_release(rt_rank_identity *id)
{
    free(id->launcher);
    free(id->host);
    free(id->device);
    rt_rank_identity_init(id);
}

rt_rank_identity *rt_rank_identity_dup(const rt_rank_identity *src)
{
    if (!src)
        return NULL;
    rt_rank_identity *id = rt_xmalloc(sizeof *id);
    *id = *src;
    id->launcher = src->launcher ? rt_strdup(src->launcher) : NULL;
    id->host = src->host ? rt_strdup(src->host) : NULL;
    id->device = src->device ? rt_strdup(src->device) : NULL;
    return id;
}

rt_rank_identity *rt_rank_identity_stamp(rt_rank_identity *own, const rt_rank_identity *process)
{
    rt_rank_identity *id = rt_rank_identity_dup(process);
    if (!own)
        return id;
    if (!id || process->rank != own->rank) { /* another rank's file: nothing of this process */
        rt_rank_identity_free(id);
        id = rt_xmalloc(sizeof *id);
        rt_rank_identity_init(id);
    }
    id->rank = own->rank;
    if (own->size >= 0)
        id->size = own->size;
    if (own->device) {
        free(id->device);
        id->device = rt_strdup(own->device);
    }
    rt_rank_identity_free(own);
    return id;
}

void rt_rank_identity_free(rt_rank_identity *id)
{
    if (!id)
        return;
    rt_rank_identity_release(id);
    free(id);
}

static bool str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

bool rt_rank_identity_equal(const rt_rank_identity *a, const rt_rank_identity *b)
{
    if (!a || !b)
        return a == b;
    return a->rank == b->rank && a->local_rank == b->local_rank && a->size == b->size &&
           str_eq(a->launcher, b->launcher) && str_eq(a->host, b->host) &&
           str_eq(a->device, b->device);
}

/* A set variable as a whole number in [min, RT_MAX_RANKS]; unset leaves *out alone. */
static int env_long(const char *var, long min, long *out, rt_error *err)
{
    const char *s = getenv(var);
    if (!s)
        return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < min || v > RT_MAX_RANKS) {
        rt_error_set(err, "environment variable %s='%.40s' is not a whole number from %ld to %ld",
                     var, s, min, RT_MAX_RANKS);
        return -1;
    }
    *out = v;
    return 0;
}

int rt_rank_identity_read(rt_rank_identity *id, rt_error *err)
{
    rt_rank_identity_init(id);
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        const struct launcher *l = &launchers[i];
        if (!getenv(l->rank))
            continue;
        if (env_long(l->rank, 0, &id->rank, err) != 0 ||
            env_long(l->local_rank, 0, &id->local_rank, err) != 0 ||
            env_long(l->size, 1, &id->size, err) != 0)
            return -1;
        if (id->size > 0 && id->rank >= id->size) {
            rt_error_set(err, "environment: %s=%ld is not below %s=%ld", l->rank, id->rank, l->size,
                         id->size);
            return -1;
        }
        id->launcher = rt_strdup(l->name);
        break;
    }
    char host[256];
    if (gethostname(host, sizeof host) == 0) {
        host[sizeof host - 1] = '\0';
        id->host = rt_strdup_utf8(host);
    }
    for (size_t i = 0; i < sizeof device_vars / sizeof device_vars[0]; i++) {
        const char *v = getenv(device_vars[i].var);
        if (v && *v) {
            char *d = rt_asprintf("%s%.200s", device_vars[i].prefix, v);
            id->device = rt_strdup_utf8(d);
            free(d);
            break;
        }
    }
    return 0;
}
