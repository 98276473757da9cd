/* The PyTorch reader's kernels, one per key, made when first seen: the key is an operator's or a
 * GPU kernel's name, with what tells its calls apart where that matters (shapes, types, source
 * line; a phase). torch.c keys the events it reads, torch-phase.c each phase's calls; and the
 * threads, one number per pid/tid as written. */
#include <string.h>

#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"
#include "torch-internal.h"

uint32_t rt_torch_intern(reader *r, const char *key, size_t kl, int gpu)
{
    size_t i = rt_name_index_get(&r->keys, key, kl);
    if (i != (size_t)-1)
        return (uint32_t)i;
    if (r->n_k == r->cap_k) {
        r->cap_k = r->cap_k ? 2 * r->cap_k : 64;
        r->k = rt_xrealloc(r->k, r->cap_k * sizeof *r->k);
        r->names = rt_xrealloc(r->names, r->cap_k * sizeof *r->names);
    }
    memset(&r->k[r->n_k], 0, sizeof r->k[r->n_k]);
    r->k[r->n_k].gpu = gpu;
    r->names[r->n_k] = rt_strndup(key, kl);
    rt_name_index_put(&r->keys, key, kl, r->n_k);
    return (uint32_t)r->n_k++;
}

uint32_t rt_torch_intern_thread(reader *r, const char *key)
{
    size_t i = rt_name_index_get(&r->threads, key, strlen(key));
    if (i == (size_t)-1) {
        i = r->threads.n;
        rt_name_index_put(&r->threads, key, strlen(key), i);
    }
    return (uint32_t)i;
}
