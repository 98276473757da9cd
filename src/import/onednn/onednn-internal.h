/* Private to the oneDNN importer: descriptors (onednn-desc.c), the cost model (onednn-cost.c) and
 * the line reader (onednn.c) share these. */
#ifndef ROOFTIME_IMPORT_ONEDNN_INTERNAL_H
#define ROOFTIME_IMPORT_ONEDNN_INTERNAL_H

#include <stddef.h>

#include "rooftime/util/error.h"
#include "rooftime/util/formula.h"
#include "problem-shape.h"

/* Bounds of what one line may describe: more is an unreadable line. */
#define MAX_LISTS 16 /* dimension lists ("2x3:4x5") */
#define MAX_DIMS 12  /* dimensions in one list */
#define MAX_MDS 24   /* memory descriptors */

typedef struct dimlists {
    double d[MAX_LISTS][MAX_DIMS];
    int nd[MAX_LISTS];
    int n;
} dimlists;

/* One memory descriptor of the verbose line: "src_f32::blocked:abcd:f0" (2.x, early 3.x) or
 * "src:f32::blocked:abcd::f0" (later 3.x). */
typedef struct mdesc {
    char arg[32];
    char dt[16];
    char layout[32];
} mdesc;

typedef struct mdlist {
    mdesc m[MAX_MDS];
    int n;
} mdlist;

/* ---- onednn-desc.c: problem descriptors, dimension lists, memory descriptors ---- */

int rt_onednn_dims_parse(const char *s, dimlists *dl);
double rt_onednn_dims_prod(const dimlists *dl, int l);
double rt_onednn_dt_size(const char *dt);
int rt_onednn_md_parse(const char *tok, mdesc *m);
int rt_onednn_mds_parse(const char *s, mdlist *ml, rt_error *err);
void rt_onednn_aux_get(const char *aux, const char *key, char *out, size_t n);
const char *rt_onednn_base_arg(const char *arg, int *is_diff);

/* ---- onednn-cost.c: FLOPs and bytes per call of one primitive ---- */

/* The counts a kind's cost function reads off a descriptor; the cost model's formulas
 * (data/onednn/cost.json) turn them into FLOPs. Which counts a kind provides: the dispatch table
 * in onednn-cost.c. */
typedef struct rt_onednn_counts {
    double macs;               /* multiply-adds: convolution, inner product, matmul */
    double bias_adds;          /* one add per output with a bias (forward, backward_weights) */
    double cells, gemm_macs;   /* rnn: cells, and the multiply-adds of one cell's GEMMs */
    double elems;              /* elements of src/dst */
    double global_stats;       /* normalization flags, 1 or 0: G (statistics given) */
    double scale_shift, scale; /* S (scale and shift together), C (scale) */
    double shift, relu;        /* H (shift), R/A (fused ReLU) */
    double two_op;             /* eltwise: 1 for a multiply-and-add function */
    double window_taps, avg;   /* pooling: taps inside the input, 1 for average pooling */
    double dst, src, sources;  /* list kinds: elements of dst and of the first source; sources */
} rt_onednn_counts;

typedef struct cost {
    double flops;    /* per call */
    double bytes;    /* per call */
    int flops_known; /* 0: the kind is not modelled, FLOPs left out */
    int bytes_known;
    rt_onednn_counts n; /* what the kind function counted, for the model's formula */
} cost;

/* ---- onednn-cost-model.c: data/onednn/cost.json ---- */

typedef struct rt_onednn_kind_model {
    char *kind;
    rt_formula forward, backward; /* the same text when the file gives one formula */
    char **two_op_algs;           /* eltwise: algorithms with a multiply and an add */
    size_t n_two_op;
} rt_onednn_kind_model;

typedef struct rt_onednn_model {
    char *path;
    const char *(*counts_of)(const char *kind); /* the counts a kind provides (see load) */
    rt_onednn_kind_model *k;
    size_t n;
} rt_onednn_model;

/* Read and check the model: every name a count that counts_of(kind) lists (the dispatch table of
 * onednn-cost.c, passed by its caller so that the model calls no cost code); path NULL: the
 * shipped one. */
int rt_onednn_model_load(const char *path, const char *(*counts_of)(const char *kind),
                         rt_onednn_model *m, rt_error *err);
void rt_onednn_model_release(rt_onednn_model *m);
/* The model of a kind (the dispatch table's name), or NULL. */
const rt_onednn_kind_model *rt_onednn_model_kind(const rt_onednn_model *m, const char *kind);
/* FLOPs of one call from the counts. */
double rt_onednn_model_flops(const rt_onednn_kind_model *k, const char *prop,
                             const rt_onednn_counts *n);

/* The counts a kind provides ("macs bias_adds"), or NULL for a kind the importer does not read
 * (onednn-cost.c). */
const char *rt_onednn_kind_counts(const char *kind);
/* The byte offset of a count in rt_onednn_counts, or -1 (onednn-cost-model.c). */
int rt_onednn_count_offset(const char *name, size_t len);

/* ---- onednn-cost-common.c: helpers of every cost function ---- */

/* Elements (and a multiplier) an argument of a primitive moves. */
typedef double (*elems_fn)(const void *ctx, const char *arg, const char *prop, double *mult);
double rt_onednn_valid_taps(double out, double in, double kern, double s, double d, double p);
int rt_onednn_is_forward(const char *prop);
int rt_onednn_sum_bytes(const mdlist *ml, const void *ctx, elems_fn f, const char *prop,
                        double *bytes, rt_error *err);
/* window: count every output position times the whole kernel (torch's convention) rather than the
 * taps inside the input (benchdnn's); rt_conv_flops of import/conv-flops.h. */
int rt_onednn_cost_conv(int deconv, int window, const rt_shape *sh, const mdlist *ml,
                        const char *prop, cost *c, rt_error *err);
int rt_onednn_cost_ip(const rt_shape *sh, const mdlist *ml, const char *prop, cost *c,
                      rt_error *err);
int rt_onednn_cost_matmul(const char *problem, const mdlist *ml, const char *prop, cost *c,
                          rt_error *err);
int rt_onednn_cost_rnn(const rt_shape *sh, const mdlist *ml, const char *prop, const char *aux,
                       cost *c, rt_error *err);
int rt_onednn_cost_bnorm(const rt_shape *sh, const mdlist *ml, const char *prop, const char *aux,
                         cost *c, rt_error *err);
int rt_onednn_cost_lnorm(const char *problem, const mdlist *ml, const char *prop, const char *aux,
                         cost *c, rt_error *err);
int rt_onednn_cost_dims_elementwise(const char *kind, const rt_onednn_kind_model *model,
                                    const char *problem, const mdlist *ml, const char *prop,
                                    const char *aux, cost *c, rt_error *err);
int rt_onednn_cost_pool(int window, const rt_shape *sh, const mdlist *ml, const char *prop,
                        const char *aux, cost *c, rt_error *err);
int rt_onednn_cost_lists(const char *kind, const char *problem, const mdlist *ml, const char *aux,
                         cost *c, rt_error *err);

/* What the cost model says of a kind. */
typedef enum rt_onednn_coverage {
    RT_ONEDNN_MODELLED,   /* FLOPs and bytes */
    RT_ONEDNN_NO_FLOPS,   /* bytes, but the kind's FLOPs are not modelled */
    RT_ONEDNN_UNMODELLED, /* neither: time only */
    RT_ONEDNN_UNREAD_KEY  /* the problem holds a key this kind does not have (named in err): the
                           * sizes it would read may be wrong, so time only */
} rt_onednn_coverage;

/* FLOPs and bytes per call of a primitive of this kind (dispatched from a table by kind);
 * -1 with err on a descriptor that cannot be read. *coverage says what was modelled; with
 * RT_ONEDNN_UNREAD_KEY, err says which key. */
int rt_onednn_cost(const rt_onednn_model *model, const char *kind, const char *prop,
                   const mdlist *ml, const char *aux, const char *problem, int window, cost *c,
                   rt_onednn_coverage *coverage, rt_error *err);
/* FLOPs unit of a primitive: its source data type; AMX implementations get the AMX units. */
const char *rt_onednn_flops_unit(const mdlist *ml, const char *impl);

#endif
