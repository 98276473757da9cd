/* Estimated bytes placed where the working set fits (byte-placement.c): a kernel whose bytes are
 * estimates of its compulsory traffic (shapes, descriptors, exact counts; recorded at main memory)
 * is bound, in hier mode, at the innermost level whose capacity, with the levels inside it, holds
 * one invocation's working set; at main memory when none does. Counter data keeps its bytes per
 * level as recorded. docs/model.md, "Estimated bytes". */
#ifndef ROOFTIME_CORE_BYTE_PLACEMENT_H
#define ROOFTIME_CORE_BYTE_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"

/* The level of m that holds main memory: DRAM, else HBM, else the last level; -1 with none. */
int rt_machine_main_level(const rt_machine *m);

/* Place k's main-memory bytes in v->q (bytes per level of m, NAN where none; summed by the
 * model) when ctx says they are estimates and the mode is hier, k has invocations and m knows a
 * capacity inside main memory: one invocation's working set is its main-memory bytes over its
 * invocations; the level that holds it takes them (the larger of them and what it had: bytes
 * counted there already, the study's loads and stores at L1, include them), main memory none.
 * Bytes at other levels stay. Sets v->placed, placed_level, ws, ws_capacity and ws_threads;
 * leaves v->q as it is otherwise (v->placed false). */
void rt_place_bytes(const rt_machine *m, const rt_verdict_ctx *ctx, const rt_kernel *k,
                    rt_verdict *v);

/* Why a placed verdict's bytes are where they are, for people: "3 MiB working set fits
 * L1+L2+L3 (34 MiB on 2 threads): bound at L3", "2 GiB working set is beyond L1+L2+L3 (34 MiB,
 * every instance): bound at DRAM". "" when v was not placed. */
void rt_placement_why(const rt_machine *m, const rt_verdict *v, char *buf, size_t n);

/* The bytes per level config cf's verdict in a sums: each member's where its verdict placed them
 * (its q, under the machine's level names), as recorded otherwise (its kernel's bytes). Returns
 * whether a member was placed, with the sums in out (the caller releases it with
 * rt_values_release); otherwise out is left empty and the config's own sum stands. */
bool rt_placement_config_bytes(const rt_analysis *a, const rt_config *cf, rt_values *out);

#endif
