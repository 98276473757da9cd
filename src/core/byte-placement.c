/* Estimated bytes placed where the working set fits: the level of the hierarchy that holds one
 * invocation's inputs and outputs takes the traffic a cost model estimated at main memory. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/byte-placement.h"
#include "rooftime/core/comm.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/format.h"

int rt_machine_main_level(const rt_machine *m)
{
    int l = rt_machine_level_index(m, "DRAM");
    if (l < 0)
        l = rt_machine_level_index(m, "HBM");
    return l >= 0 ? l : (int)m->n_levels - 1;
}

void rt_place_bytes(const rt_machine *m, const rt_verdict_ctx *ctx, const rt_kernel *k,
                    rt_verdict *v)
{
    v->placed = false;
    v->placed_level = -1;
    v->ws = v->ws_capacity = NAN;
    v->ws_threads = 0;
    int main = rt_machine_main_level(m);
    if (!ctx->place_bytes || ctx->mode != RT_MODE_HIER || main < 0 || !(k->invocations > 0) ||
        !(v->q[main] > 0) || rt_kernel_is_communication(k) || rt_kernel_uncounted(k))
        return;
    /* the working set: the bytes one invocation moves, or the fewer distinct bytes its source
     * says it touches (an in-place update) */
    double total = v->q[main], ws = total / k->invocations, held = 0;
    if (k->working_set > 0 && k->working_set < ws)
        ws = k->working_set;
    int at = main;
    bool known = false;
    /* The caches inside main memory, innermost first, counted together (a line need not be in
     * the inner one to be in the outer: an exclusive or victim cache adds its capacity; counting
     * them together never makes the bound slower than the traffic can be). */
    for (int l = 0; l < main; l++) {
        double cap = rt_level_capacity(&m->levels[l], ctx->threads);
        if (!(cap > 0))
            continue;
        known = true;
        held += cap;
        if (ws <= held) {
            at = l;
            break;
        }
    }
    if (!known)
        return; /* no capacity known inside main memory: the bytes stay where they were put */
    v->placed = true;
    v->placed_level = at;
    v->ws = ws;
    v->ws_capacity = held;
    v->ws_threads = ctx->threads;
    if (at != main) {
        /* Bytes the source counted at that level already (the study's exact loads and stores at
         * L1) include these, which pass through it: the larger of the two. */
        v->q[at] = isnan(v->q[at]) ? total : fmax(v->q[at], total);
        v->q[main] = NAN;
    }
}

/* Bytes for people: "12 B" below a KiB, rt_fmt_bytes above. */
static void fmt_size(char *buf, size_t n, double b)
{
    if (b < 1024)
        snprintf(buf, n, "%.0f B", b);
    else
        rt_fmt_bytes(buf, n, b);
}

void rt_placement_why(const rt_machine *m, const rt_verdict *v, char *buf, size_t n)
{
    if (n == 0)
        return;
    buf[0] = '\0';
    if (!v->placed || v->placed_level < 0)
        return;
    int main = rt_machine_main_level(m),
        last = v->placed_level == main ? main - 1 : v->placed_level;
    char levels[160] = "", ws[32], cap[32], on[48];
    for (int l = 0; l <= last; l++)
        if (rt_level_capacity(&m->levels[l], v->ws_threads) > 0) {
            size_t len = strlen(levels);
            snprintf(levels + len, sizeof levels - len, "%s%s", len ? "+" : "", m->levels[l].name);
        }
    fmt_size(ws, sizeof ws, v->ws);
    fmt_size(cap, sizeof cap, v->ws_capacity);
    if (v->ws_threads > 0)
        snprintf(on, sizeof on, "on %d thread%s", v->ws_threads, v->ws_threads == 1 ? "" : "s");
    else
        snprintf(on, sizeof on, "every instance");
    snprintf(buf, n, "%s working set %s %s (%s, %s): bound at %s", ws,
             v->placed_level == main ? "is beyond" : "fits", levels, cap, on,
             m->levels[v->placed_level].name);
}

bool rt_placement_config_bytes(const rt_analysis *a, const rt_config *cf, rt_values *out)
{
    bool any = false;
    for (size_t i = 0; i < cf->n_items && !any; i++)
        any = a->items[cf->items[i]].v.placed;
    if (!any)
        return false;
    const rt_machine *m = a->machine;
    for (size_t i = 0; i < cf->n_items; i++) {
        const rt_item *it = &a->items[cf->items[i]];
        if (!it->v.placed) {
            for (size_t b = 0; b < it->kernel->bytes.n; b++)
                rt_values_add(out, it->kernel->bytes.v[b].key, it->kernel->bytes.v[b].value);
            continue;
        }
        for (size_t l = 0; l < m->n_levels; l++)
            if (!isnan(it->v.q[l]))
                rt_values_add(out, m->levels[l].name, it->v.q[l]);
    }
    return true;
}
