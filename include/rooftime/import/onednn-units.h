/* The compute unit a oneDNN primitive ran on, from its implementation (onednn-units.c, the table
 * data/onednn/units.json): for import onednn, profile, the study's oneDNN implementations and
 * PyTorch operators joined to the primitive they ran. */
#ifndef ROOFTIME_IMPORT_ONEDNN_UNITS_H
#define ROOFTIME_IMPORT_ONEDNN_UNITS_H

#include <stddef.h>

#include "rooftime/util/error.h"

typedef struct rt_onednn_units rt_onednn_units;

/* Load the table (path NULL: the shipped data/onednn/units.json); NULL with err on a bad file. */
rt_onednn_units *rt_onednn_units_load(const char *path, rt_error *err);
void rt_onednn_units_free(rt_onednn_units *u);
/* The table's name in a profile's notes ("data/onednn/units.json sha256:HEX", or the file given
 * and its hash). */
const char *rt_onednn_units_label(const rt_onednn_units *u);
/* Its name in messages ("data/onednn/units.json", or the file given). */
const char *rt_onednn_units_name(const rt_onednn_units *u);

/* The ISA oneDNN's "info,cpu,isa:" text names ("Intel AVX-512 with Intel DL Boost and bfloat16
 * support" -> "avx512_core_bf16"), or NULL when the table does not know the text. */
const char *rt_onednn_units_cpu_isa(const rt_onednn_units *u, const char *description);
/* Whether the table knows an ISA name ("avx512_core_amx"). */
int rt_onednn_units_has_isa(const rt_onednn_units *u, const char *isa);

/* The fpmath mode an attributes field sets ("attr-scratchpad:user attr-fpmath:bf16:true" ->
 * "bf16"), in buf (n bytes), or NULL when it sets none. */
const char *rt_onednn_units_fpmath(const rt_onednn_units *u, const char *attributes, char *buf,
                                   size_t n);

/* How a unit was found. */
typedef enum rt_onednn_unit_basis {
    RT_ONEDNN_UNIT_IMPL,    /* the implementation names its ISA (or the unit is the same on all) */
    RT_ONEDNN_UNIT_WIDEST,  /* it names none: the widest unit the CPU has for the data type */
    RT_ONEDNN_UNIT_UNKNOWN, /* neither it nor the CPU tells: "unknown" */
} rt_onednn_unit_basis;

/*
 * The unit of a primitive of `kind` ("convolution") run by implementation `impl` ("brg:avx512_core_
 * amx") on source data type `dt` ("bf16"; NULL: f32), with the fpmath mode of its attributes
 * (`fpmath` "bf16", or NULL) on a CPU whose widest ISA is `cpu_isa` ("avx512_core_amx", NULL:
 * unknown). Returns a unit name owned by the table ("amx_bf16") or "unknown"; *basis (may be
 * NULL) says how it was found and *why (may be NULL) the table's reason for an implementation
 * that names no ISA ("oneDNN's jit and BLAS GEMMs ...").
 */
const char *rt_onednn_units_unit(const rt_onednn_units *u, const char *kind, const char *impl,
                                 const char *dt, const char *fpmath, const char *cpu_isa,
                                 rt_onednn_unit_basis *basis, const char **why);

#endif
