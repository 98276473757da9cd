/* Private helpers shared by the oneDNN implementations of the study (conv-onednn.c, lstm-onednn.c
 * and the transformer's through xformer-onednn.c): the engine, memories, reorders, timed execution,
 * the end of a case's constructor. */
#ifndef ROOFTIME_STUDY_ONEDNN_INTERNAL_H
#define ROOFTIME_STUDY_ONEDNN_INTERNAL_H

#include "rooftime-config.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/util/error.h"

/* What a oneDNN case's constructor returns in a build without oneDNN: -1, with "onednn: needs
 * oneDNN (Debian libdnnl-dev), not found at configure time". */
int rt_dnnl_missing(rt_error *err);

#ifdef RT_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>

/* A reorder between a user tensor and the layout a primitive chose, timed as a kernel. */
typedef struct rt_dnnl_reorder {
    dnnl_primitive_t prim; /* NULL when the layouts are equal and nothing moves */
    dnnl_memory_t from, to;
    dnnl_memory_t own; /* the primitive-side memory this reorder created */
    char impl[64];
    double bytes;
} rt_dnnl_reorder;

/* A CPU engine and its stream: what every oneDNN case of the study runs on. */
typedef struct rt_dnnl_engine {
    dnnl_engine_t eng;
    dnnl_stream_t strm;
} rt_dnnl_engine;

/* 0, or -1 with "onednn: cannot create a CPU engine: ..." (nothing left open). */
int rt_dnnl_engine_open(rt_dnnl_engine *e, rt_error *err);
void rt_dnnl_engine_close(rt_dnnl_engine *e);

const char *rt_dnnl_status(dnnl_status_t s);
/* The error of a primitive oneDNN has none of here: "onednn: no bf16 LSTM backward on this CPU
 * (oneDNN 2.7, ISA avx2): unimplemented"; what: "convolution", "LSTM". */
void rt_dnnl_no_primitive(rt_error *err, const char *what, rt_precision prec, rt_pass pass,
                          dnnl_status_t st);
dnnl_data_type_t rt_dnnl_type(rt_precision p);
/* Memory for md filled from n floats in plain layout `tag` (converted by an untimed reorder). */
int rt_dnnl_mem_from_f32(dnnl_engine_t eng, dnnl_stream_t strm, const dnnl_memory_desc_t *md,
                         dnnl_format_tag_t tag, const float *values, dnnl_memory_t *out,
                         rt_error *err);
/* The contents of mem as floats in plain layout `tag`; caller frees. */
float *rt_dnnl_read_f32(dnnl_engine_t eng, dnnl_stream_t strm, dnnl_memory_t mem,
                        dnnl_format_tag_t tag, size_t *n, rt_error *err);
/* Prepare moving `user` to the primitive's md (to_prim) or back (!to_prim); *prim_mem is the
 * memory the primitive uses (user itself when the layouts agree). */
int rt_dnnl_reorder_init(rt_dnnl_reorder *r, dnnl_engine_t eng, dnnl_memory_t user,
                         const dnnl_memory_desc_t *prim_md, bool to_prim, dnnl_memory_t *prim_mem,
                         rt_error *err);
void rt_dnnl_reorder_release(rt_dnnl_reorder *r);
/* Run a reorder (if any) as a timed kernel named name. */
int rt_dnnl_reorder_run(rt_dnnl_reorder *r, dnnl_stream_t strm, rt_study_timer *t, const char *name,
                        rt_error *err);
/* Execute a primitive and wait for it, timed. */
int rt_dnnl_exec(dnnl_primitive_t p, dnnl_stream_t strm, int nargs, const dnnl_exec_arg_t *args,
                 rt_study_timer *t, const rt_kernel_cost *cost, rt_error *err);
/* The implementation name oneDNN chose for pd. */
const char *rt_dnnl_impl(const_dnnl_primitive_desc_t pd);
/* The compute unit a primitive of `kind` ("convolution", "rnn") run by implementation impl
 * (rt_dnnl_impl) computes prec on, from data/onednn/units.json with this CPU's ISA for an
 * implementation that names none, into unit (n bytes). Returns a sentence for the case's note when
 * the unit is the CPU's widest or unknown (caller frees), else NULL. */
char *rt_dnnl_unit(const char *kind, const char *impl, rt_precision prec, char *unit, size_t n);
/* The end of a oneDNN case's constructor: rc < 0 frees c (its own free) and returns -1; else c is
 * *out and it returns 0. */
int rt_dnnl_case_done(rt_study_case *c, int rc, rt_study_case **out);
#endif

#endif
