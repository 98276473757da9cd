/* The unit each PyTorch operator of the study ran on: scripts/torch-client.py runs each point's
 * pass once more after its measured iterations, untimed and unrecorded, with oneDNN verbose output
 * on and sent to a file of its own; that file, read as `import onednn` reads a log, is joined to
 * the point's trace by shapes (rt_torch_join_onednn), so an operator that ran a oneDNN primitive
 * computes on the unit data/onednn/units.json gives the primitive's implementation (amx_bf16 for
 * brg:avx512_core_amx, bf16 for jit_bf16:avx512_core_bf16 ...) and pays its execute. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study-names.h"
#include "study-torch-units.h"
#include "rooftime/import/onednn.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/strings.h"

/* At most this many distinct warnings of the oneDNN import are kept for the notes. */
#define MAX_WARNINGS 8

struct rt_torch_units {
    rt_onednn_reader *reader;
    size_t points, points_without; /* points read, and those whose output held no execution */
    size_t ops, joined;            /* operators with FLOPs, and those joined to a primitive */
    rt_study_strset impl_units;    /* "jit_bf16:avx512_core_bf16 -> bf16" */
    rt_study_strset warnings;
    size_t warnings_left_out;
};

rt_torch_units *rt_torch_units_new(void)
{
    rt_torch_units *u = rt_xcalloc(1, sizeof *u);
    u->reader = rt_onednn_reader_new("the client's oneDNN verbose output");
    /* as the torch import counts them: FLOPs are moved, never replaced, but alike they read */
    rt_onednn_reader_set_conv_flops(u->reader, RT_CONV_TAPS);
    return u;
}

void rt_torch_units_free(rt_torch_units *u)
{
    if (!u)
        return;
    rt_onednn_reader_free(u->reader);
    rt_study_strset_release(&u->impl_units);
    rt_study_strset_release(&u->warnings);
    free(u);
}

/* The operators of p with FLOPs, the joined ones and their implementations' units. */
static void count_joined(rt_torch_units *u, const rt_profile *p)
{
    for (size_t i = 0; i < p->n_kernels; i++) {
        const rt_kernel *k = &p->kernels[i];
        if (!(rt_values_sum(&k->flops) > 0))
            continue;
        u->ops++;
        const char *impl = rt_tags_get(&k->tags, "onednn");
        if (!impl)
            continue;
        u->joined++;
        for (size_t f = 0; f < k->flops.n; f++) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s -> %s", impl, k->flops.v[f].key);
            rt_study_strset_add(&u->impl_units, buf);
        }
    }
}

int rt_torch_units_join(rt_torch_units *u, const char *log, const char *what, rt_profile *p,
                        rt_error *err)
{
    char *origin = rt_asprintf("the oneDNN verbose output of point %s", what);
    rt_onednn_reader_restart(u->reader, origin);
    free(origin);
    if (rt_onednn_reader_read(u->reader, log, err) != 0)
        return -1;
    u->points++;
    if (rt_onednn_reader_n_exec(u->reader) == 0) {
        u->points_without++;
        count_joined(u, p);
        return 0;
    }
    rt_profile *dnn = NULL;
    rt_warnings w = {0};
    int rc = rt_onednn_reader_finish(u->reader, &dnn, &w, err);
    if (rc == 0)
        rt_torch_join_onednn(p, dnn);
    for (size_t i = 0; i < w.n; i++) {
        if (u->warnings.n < MAX_WARNINGS)
            rt_study_strset_add(&u->warnings, w.msg[i]);
        else
            u->warnings_left_out++;
    }
    rt_warnings_release(&w);
    rt_profile_free(dnn);
    if (rc == 0)
        count_joined(u, p);
    return rc;
}

void rt_torch_units_note(const rt_torch_units *u, rt_profile *prof)
{
    if (u->points == 0)
        return;
    char list[1024] = "";
    size_t l = 0;
    for (size_t i = 0; i < u->impl_units.n && l < sizeof list - 1; i++)
        l += (size_t)snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", u->impl_units.v[i]);
    char without[160] = "";
    if (u->points_without)
        snprintf(without, sizeof without,
                 "; %zu of %zu points printed no oneDNN execution (torch ran no primitive, or "
                 "has no verbose switch)",
                 u->points_without, u->points);
    char *note = rt_asprintf(
        "%zu of %zu operators with FLOPs joined by shape to the oneDNN primitive they ran, from "
        "one more pass per point after its measured iterations, untimed and unrecorded, with "
        "oneDNN verbose output on (the measured iterations ran with it off): their FLOPs on the "
        "unit data/onednn/units.json gives the primitive's implementation (%s), their calls "
        "paying its execute; the other %zu ran no primitive the join found (torch's own "
        "kernels) and keep the unit the cost model gives them (their data type's; fp32 for the "
        "elementwise work of bf16 and fp16 data, which torch computes in fp32)%s",
        u->joined, u->ops, list[0] ? list : "none", u->ops - u->joined, without);
    rt_tags_set(&prof->provenance.notes, "onednn_units", note);
    free(note);
    if (u->warnings.n == 0)
        return;
    size_t n = 64;
    for (size_t i = 0; i < u->warnings.n; i++)
        n += strlen(u->warnings.v[i]) + 3;
    char *all = rt_xmalloc(n);
    l = 0;
    for (size_t i = 0; i < u->warnings.n; i++)
        l += (size_t)snprintf(all + l, n - l, "%s%s", i ? " | " : "", u->warnings.v[i]);
    if (u->warnings_left_out)
        snprintf(all + l, n - l, " | and %zu more", u->warnings_left_out);
    rt_tags_set(&prof->provenance.notes, "onednn_units_warnings", all);
    free(all);
}
