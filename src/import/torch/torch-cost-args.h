/* Private to the PyTorch cost model: a table entry, a call's recorded arguments and the helpers
 * that read them (torch-cost-args.c, a leaf), shared by the table (torch-cost.c) and the window
 * models (torch-cost-window.c), which the table calls. */
#ifndef ROOFTIME_IMPORT_TORCH_COST_ARGS_H
#define ROOFTIME_IMPORT_TORCH_COST_ARGS_H

#include <stdint.h>

#include <jansson.h>

#include "rooftime/import/torch-cost.h"
#include "rooftime/util/formula.h"
#include "rooftime/util/json-read.h"

#define TC_MAX_ARGS 32               /* arguments of one call looked at */
#define TC_MAX_DIMS 8                /* dimensions of one tensor */
#define TC_MAX_OUT 4                 /* outputs of one stream entry */
#define TC_MAX_CONCRETE 2147483648LL /* the largest integer of a concrete argument */

typedef enum tc_model {
    TC_NONE,
    TC_MATMUL,
    TC_CONV,
    TC_CONV_BACKWARD,
    TC_POOL,
    TC_STREAM,
    TC_EMBEDDING,
    TC_ATTENTION,
    TC_UNCOUNTED, /* work no FLOP or byte count measures: random numbers, sorting, indexing */
    /* work the model cannot count, with the reason: a compiled region of torch.compile (its
     * self time is its kernels' unless they were recorded below it), a compiled kernel */
    TC_REGION,
    TC_COMPILED,
    /* fbgemm's table-batched embeddings (split_embedding_codegen_lookup_*, their backward):
     * torch-cost-tbe.c */
    TC_TBE,
    TC_MODELS /* how many */
} tc_model;

/* PyTorch's floating types a call records (fp64, fp32, fp16, bf16). */
#define RT_TORCH_PRECISIONS 4

/* Positions in "Concrete Inputs" of the arguments the window models read; -1: not an argument. */
enum {
    TCP_STRIDE,
    TCP_PADDING,
    TCP_DILATION,
    TCP_GROUPS,
    TCP_MASK,
    TCP_KERNEL,
    TCP_CEIL,
    TCP_OUTSIZE,
    TCP_DIM,
    TCP_TOTAL_D, /* a table-batched embedding's total_D (the output's width) */
    TCP_N
};

typedef struct tc_entry {
    tc_model model;
    const char *klass; /* static */
    /* matmul: a b c; conv: input weight bias; conv_backward: grad_output input weight;
     * embedding: weight/grad_output indices; attention: q k v; table-batched embedding:
     * D_offsets indices offsets (backward: grad_output) */
    int a, b, c;
    int transpose_b, indices, adaptive, backward;
    int blhe; /* attention: q, k, v laid out [B, L, H, E] (flash's own), not [..., L, E] */
    int pos[TCP_N];
    rt_formula flops; /* stream: over out, inN; attention: over BH, L, S, E, Ev */
    int has_flops;
    int n_out;
    int out[TC_MAX_OUT]; /* input index, or -1: broadcast */
    int reads_all;
    uint32_t reads; /* bit i: input i */
    int out_bool;
    int out_type_in; /* outputs at the element type of this input (out_type "inN"); -1: none */
    int out_esize;   /* bytes of an output element by type name (out_type "uint8" ...); 0: none */
    int gathered;    /* elements of input 0 read at data-dependent addresses: as many as this
                      * input has (one per index); -1: none */
    /* table-batched embedding: the inputs holding the tables' rows (device and UVM weights), a
     * per-row optimizer state (one element per row: rowwise Adagrad's momentum), the per-sample
     * weights (-1: none) */
    uint32_t tbe_weights, tbe_rows;
    int tbe_indice_weights;
    /* in a call where it calls a costed operator, the work is the callee's: any (defer_any) or
     * one of these names */
    int defer_any;
    char **defer;
    size_t n_defer;
    int annotation; /* a range torch records as an annotation that is an operator here */
    char *why;      /* region, compiled: why its work is not counted */
    /* compiled: what precedes the operators a kernel's name lists ("fused_"), and the views that
     * may read part of a buffer (a kernel fusing one has no bytes of its buffers) */
    char *after;
    char **partial;
    size_t n_partial;
} tc_entry;

/* One recorded argument. */
typedef struct tc_arg {
    int is_tensor; /* a tensor or a tensor list */
    int bare_list; /* a tensor list recorded as [] ('TensorList'): its shapes are unknown */
    int nd;        /* -1: a list of tensors */
    double d[TC_MAX_DIMS];
    double numel;
    double esize;     /* bytes per element; 0: unknown */
    const char *unit; /* FLOPs unit when a floating type, else NULL */
} tc_arg;

typedef struct tc_call {
    tc_arg arg[TC_MAX_ARGS];
    int n;
    size_t n_recorded;    /* arguments recorded, n of them looked at (up to TC_MAX_ARGS) */
    int typed;            /* "Input type" was recorded */
    const char *concrete; /* JSON text or NULL */
    double flops_arg;
} tc_call;

/* The call's arguments from its recorded JSON; -1 with why when they cannot be read. */
int rt_torch_cost_read_call(const rt_torch_call *rc, tc_call *c, char *why, size_t wn);
/* Integers of "Concrete Inputs" at pos ("[2, 2]", "3", "True"): how many (up to max), 0 when the
 * position is empty or not recorded, -1 when it cannot be read. */
int rt_torch_cost_concrete_ints(const tc_call *c, int pos, int64_t *out, int max);
/* The bytes of the inputs an entry reads (its 'reads'); -1 when a read tensor's type is unknown. */
double rt_torch_cost_reads(const tc_entry *e, const tc_call *c);

void rt_torch_cost_conv(const tc_entry *e, const tc_call *c, rt_conv_flops conv,
                        rt_torch_cost *out);
void rt_torch_cost_conv_backward(const tc_entry *e, const tc_call *c, rt_conv_flops conv,
                                 rt_torch_cost *out);
void rt_torch_cost_pool(const tc_entry *e, const tc_call *c, rt_conv_flops conv,
                        rt_torch_cost *out);
/* Attention (torch-cost-attention.c): the FLOPs formula over the sizes of q, k and v, the bytes
 * of every input read and the output (or, backward, the gradients of q, k and v) written. */
void rt_torch_cost_attention(const tc_entry *e, const tc_call *c, rt_torch_cost *out);
/* A table-batched embedding of fbgemm (torch-cost-tbe.c): the bytes its records tell, marked a
 * lower bound where the rows' widths or the output's type are not recorded. */
void rt_torch_cost_tbe(const tc_entry *e, const tc_call *c, rt_torch_cost *out);
/* Bytes per element of an output type by name (uint8, half, bfloat16, float); 0: none of them. */
int rt_torch_cost_type_size(const char *name);
/* A compiled kernel (torch-cost-compiled.c): bytes of the buffers the runner recorded (each
 * once), FLOPs of the operators its name lists, each once per element of the smallest buffer it
 * writes (a lower bound); without such records, or where they cannot tell, incomplete with why. */
void rt_torch_cost_compiled(const rt_torch_ops *o, const tc_entry *e, const rt_torch_call *rc,
                            rt_torch_cost *out);
/* Mark out incomplete with a reason. */
void rt_torch_cost_incomplete(rt_torch_cost *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The FLOPs unit a recorded floating type counts on, by its name ("fp32", "bf16" ...): the static
 * string, or NULL when no recorded type has it. */
const char *rt_torch_cost_unit_named(const char *name);

/* ---- torch-ops-entry.c: one entry of the table ---- */

/* The model named `name` ("stream" ...) and its class name (static; klass may be NULL); -1 when no
 * model has that name. */
int rt_torch_ops_model_named(const char *name, tc_model *model, const char **klass);

/* Read the entry j (at JSON path `path` of the table) into e: its model, class and fields,
 * checked; -1 with r's error naming the field. e owns what it holds: release it with
 * rt_torch_ops_entry_release, also after a failure. */
int rt_torch_ops_load_entry(rt_jr *r, tc_entry *e, const json_t *j, const char *path);
void rt_torch_ops_entry_release(tc_entry *e);

/* ---- torch-ops.c: the table ---- */

/* The entry of an operator (by name, then by "prefix*", "*suffix" and "*infix*" patterns), or
 * NULL. */
const tc_entry *rt_torch_ops_find(const rt_torch_ops *o, const char *name);
/* Whether the table counts the annotation (user_annotation range) `name` as an operator:
 * torch.compile's '## Call CompiledFxGraph ... ##', the range its compiled code runs in. */
int rt_torch_ops_annotation(const rt_torch_ops *o, const char *name);
/* The unit the arithmetic of a call of entry e whose data is of precision `unit` runs on: the
 * table's "opmath" for e's model ("bf16" -> "fp32" for elementwise work, which PyTorch computes in
 * fp32), else unit itself. */
const char *rt_torch_ops_opmath(const rt_torch_ops *o, const tc_entry *e, const char *unit);

#endif
