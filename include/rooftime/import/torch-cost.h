/* The cost model of PyTorch operators (data/torch/ops.json): FLOPs and bytes of one call from its
 * recorded input shapes, types and concrete arguments (torch-cost.c, torch-cost-window.c). */
#ifndef ROOFTIME_IMPORT_TORCH_COST_H
#define ROOFTIME_IMPORT_TORCH_COST_H

#include "rooftime/import/conv-flops.h"
#include "rooftime/util/error.h"

typedef struct rt_torch_ops rt_torch_ops;

/* Load a cost table (NULL: the shipped data/torch/ops.json). -1 with the file and field. */
int rt_torch_ops_load(const char *path, rt_torch_ops **out, rt_error *err);
void rt_torch_ops_free(rt_torch_ops *o);
const char *rt_torch_ops_path(const rt_torch_ops *o);
/* How a profile names the table: "data/torch/ops.json sha256:HEX" for the shipped one, else the
 * path as given and its hash (rt_data_file_label). */
const char *rt_torch_ops_label(const rt_torch_ops *o);

/* One call as the profiler recorded it: JSON texts of its args, each NULL when not recorded. */
typedef struct rt_torch_call {
    const char *name;
    const char *dims;     /* "Input Dims": [[16,3,32,32],[16,3,3,3],[],...] */
    const char *types;    /* "Input type": ["float","float","Scalar",...] */
    const char *concrete; /* "Concrete Inputs": ["","","[1, 1]","2",...] */
    double flops_arg;     /* torch's own args.flops of the call or the op around it; < 0: none */
} rt_torch_call;

typedef enum rt_torch_status {
    RT_TC_UNKNOWN,    /* not in the table: time only */
    RT_TC_NONE,       /* a view, allocation or dispatcher: no FLOPs, no bytes of its own */
    RT_TC_COSTED,     /* FLOPs and/or bytes */
    RT_TC_INCOMPLETE, /* in the table, but what the model needs was not recorded (why says) */
    RT_TC_UNCOUNTED   /* work no FLOP or byte count measures (klass: rng, sort, index, unique):
                       * its verdict is unknown, "work not counted" */
} rt_torch_status;

typedef struct rt_torch_cost {
    rt_torch_status status;
    const char *klass; /* "view", "allocation", "dispatch", an uncounted class ("rng", "sort",
                        * "index", "unique"), or the model's name */
    double flops, bytes;
    int flops_known, bytes_known;
    /* the precision of its data ("fp32", "bf16", "fp16", "fp64"), and the unit its FLOPs count on:
     * the same, or where the table's "opmath" says so the unit the arithmetic runs on (bf16
     * elementwise work on fp32); static */
    const char *precision, *unit;
    /* the FLOPs and bytes are lower bounds: the records tell part of the work (a table-batched
     * embedding without its rows' widths); the profile tags its kernels counts=lower_bound */
    int lower_bound;
    /* the distinct bytes one call touches where fewer than its bytes: an in-place operator
     * (aten::add_) reads and writes its first input, one tensor in a cache; 0: its bytes */
    double working_set;
    char why[200]; /* RT_TC_INCOMPLETE: what is missing */
} rt_torch_cost;

/* Does operator `parent`, in a call where it calls the costed operator `callee`, leave its work to
 * that callee? The table's 'defer' says so (aten::embedding -> aten::index_select, aten::mean ->
 * aten::sum, aten::_foreach_add_ -> aten::add_), and so does an operator calling itself (a
 * redispatch), an in-place operator calling its out-of-place form (aten::mul_ -> aten::mul) or an
 * out-of-place operator calling its in-place form (aten::masked_fill -> aten::masked_fill_).
 * The parent is then a composite in that call, so nothing is counted twice. */
int rt_torch_ops_defers(const rt_torch_ops *o, const char *parent, const char *callee);

/* The cost of one call under the convolution convention conv. Never fails: a call whose records
 * cannot be read is RT_TC_INCOMPLETE with the reason. */
void rt_torch_ops_cost(const rt_torch_ops *o, const rt_torch_call *c, rt_conv_flops conv,
                       rt_torch_cost *out);

#endif
