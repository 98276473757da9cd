/* Private to the study: what the transformer study's oneDNN implementations share
 * (xformer-onednn.c): memories and views on study-onednn's engine, matmul and softmax primitives
 * run as timed kernels. */
#ifndef ROOFTIME_STUDY_XFORMER_ONEDNN_H
#define ROOFTIME_STUDY_XFORMER_ONEDNN_H

#include "rooftime-config.h"
#include "study-onednn-internal.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/study/xformer-flops.h"
#include "rooftime/util/error.h"

#ifdef RT_HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>

/* A memory descriptor of nd dims: row-major (strides NULL), given strides, or oneDNN's choice
 * (any: weights). */
void rt_xf_md(dnnl_memory_desc_t *md, int nd, const dnnl_dim_t *dims, dnnl_data_type_t dt,
              const dnnl_dim_t *strides);
void rt_xf_md_any(dnnl_memory_desc_t *md, int nd, const dnnl_dim_t *dims, dnnl_data_type_t dt);
/* A memory of md: filled from row-major fp32 values (converted by an untimed reorder: md may be
 * 16-bit or blocked), or allocated and zeroed (values NULL). */
int rt_xf_mem(rt_dnnl_engine *e, const dnnl_memory_desc_t *md, const float *values,
              dnnl_memory_t *out, rt_error *err);
/* A memory of md over the buffer of `of` (a view: a transposed or strided reading of it). */
int rt_xf_view(rt_dnnl_engine *e, const dnnl_memory_desc_t *md, dnnl_memory_t of,
               dnnl_memory_t *out, rt_error *err);
/* The contents of mem as row-major fp32 (rt_xf_copy_out's contract: NaN when unreadable). */
float *rt_xf_read(rt_dnnl_engine *e, dnnl_memory_t mem, size_t *n);

/* A primitive run as one timed kernel, with its arguments. */
typedef struct rt_xf_prim {
    dnnl_primitive_t p;
    dnnl_exec_arg_t args[4];
    int nargs;
    rt_kernel_cost cost;
    char impl[128], unit[24];
    char *unit_note; /* how its unit was found where the implementation names none (rt_dnnl_unit) */
} rt_xf_prim;

/* A matmul src x wei -> dst with attr (NULL: none); its impl name and unit recorded, the cost
 * named `name` with FLOPs and bytes c. When wei is 'any', *chosen gets oneDNN's layout. */
int rt_xf_matmul(rt_xf_prim *k, rt_dnnl_engine *e, const char *name, const dnnl_memory_desc_t *src,
                 const dnnl_memory_desc_t *wei, const dnnl_memory_desc_t *dst,
                 dnnl_primitive_attr_t attr, rt_precision prec, rt_xf_count c,
                 dnnl_memory_desc_t *chosen, rt_error *err);
/* A softmax over axis of md, in place. */
int rt_xf_softmax(rt_xf_prim *k, rt_dnnl_engine *e, const char *name, const dnnl_memory_desc_t *md,
                  int axis, rt_precision prec, rt_xf_count c, rt_error *err);
/* A binary primitive src0 (op) src1 -> src0 in place (src1 broadcast where its dims are 1). */
int rt_xf_binary(rt_xf_prim *k, rt_dnnl_engine *e, const char *name, dnnl_alg_kind_t alg,
                 const dnnl_memory_desc_t *src0, const dnnl_memory_desc_t *src1, rt_precision prec,
                 rt_xf_count c, rt_error *err);
/* Attributes: an output scale (scale != 1), then post-ops: an eltwise (alg, alpha; 0: none) and a
 * binary (balg with an operand of md bmd; NULL: none). Caller destroys. */
dnnl_primitive_attr_t rt_xf_attr(float scale, dnnl_alg_kind_t alg, float alpha,
                                 dnnl_alg_kind_t balg, const dnnl_memory_desc_t *bmd);
/* The argument id of the binary post-op's operand at post-op index i (1 after an eltwise). */
#define RT_XF_ARG_BINARY(i) (DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1)
void rt_xf_arg(rt_xf_prim *k, int id, dnnl_memory_t m);
int rt_xf_run(rt_xf_prim *k, rt_dnnl_engine *e, rt_study_timer *t, rt_error *err);
void rt_xf_prim_release(rt_xf_prim *k);
/* The impl names of prims, joined ("brg:avx512_core; jit:avx512_core"); caller frees. */
char *rt_xf_impls(const rt_xf_prim *k, int n);
/* The end of an implementation's constructor: rc < 0 frees c (its own free) and returns -1; else c
 * names its first primitive's impl and all of k's as its note, and is *out. */
int rt_xf_case_done(rt_study_case *c, const rt_xf_prim *k, int n, int rc, rt_study_case **out);
#endif

#endif
