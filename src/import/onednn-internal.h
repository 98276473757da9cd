/* Private to the oneDNN importer: descriptors (onednn-desc.c), the cost model (onednn-cost.c) and
 * the line reader (onednn.c) share these. */
#ifndef ROOFTIME_IMPORT_ONEDNN_INTERNAL_H
#define ROOFTIME_IMPORT_ONEDNN_INTERNAL_H

#include <stddef.h>

#include "rooftime/util/error.h"

/* Bounds of what one line may describe: more is an unreadable line. */
#define MAX_LISTS 16 /* dimension lists ("2x3:4x5") */
#define MAX_DIMS 12  /* dimensions in one list */
#define MAX_MDS 24   /* memory descriptors */

/* Problem descriptors such as "g2mb16_ic64oc64_ih112oh56kh3sh2dh0ph1_iw112ow56kw3sw2dw0pw1" or
 * "l1t16mb16sic16slc32dhc16dic16": letters name the number that follows. */
typedef struct shape {
    struct {
        char k[8];
        double v;
    } kv[48];
    int n;
} shape;

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

int dn_shape_parse(const char *s, shape *sh);
int dn_shape_has(const shape *sh, const char *k);
double dn_shape_get(const shape *sh, const char *k, double dflt);
int dn_dims_parse(const char *s, dimlists *dl);
double dn_dims_prod(const dimlists *dl, int l);
double dn_dt_size(const char *dt);
int dn_md_parse(const char *tok, mdesc *m);
int dn_mds_parse(const char *s, mdlist *ml, rt_error *err);
void dn_aux_get(const char *aux, const char *key, char *out, size_t n);
const char *dn_base_arg(const char *arg, int *is_diff);

/* ---- onednn-cost.c: FLOPs and bytes per call of one primitive ---- */

typedef struct cost {
    double flops;    /* per call */
    double bytes;    /* per call */
    int flops_known; /* 0: the kind is not modelled, FLOPs left out */
    int bytes_known;
} cost;

/* Elements (and a multiplier) an argument of a primitive moves; helpers of every cost function. */
typedef double (*elems_fn)(const void *ctx, const char *arg, const char *prop, double *mult);
double dn_valid_taps(double out, double in, double kern, double s, double d, double p);
int dn_is_forward(const char *prop);
int dn_sum_bytes(const mdlist *ml, const void *ctx, elems_fn f, const char *prop, double *bytes,
                 rt_error *err);
int dn_cost_conv(int deconv, const shape *sh, const mdlist *ml, const char *prop, cost *c,
                 rt_error *err);
int dn_cost_ip(const shape *sh, const mdlist *ml, const char *prop, cost *c, rt_error *err);
int dn_cost_matmul(const char *problem, const mdlist *ml, const char *prop, cost *c, rt_error *err);
int dn_cost_rnn(const shape *sh, const mdlist *ml, const char *prop, const char *aux, cost *c,
                rt_error *err);
int dn_cost_bnorm(const shape *sh, const mdlist *ml, const char *prop, const char *aux, cost *c,
                  rt_error *err);
int dn_cost_lnorm(const char *problem, const mdlist *ml, const char *prop, const char *aux, cost *c,
                  rt_error *err);
int dn_cost_dims_elementwise(const char *kind, const char *problem, const mdlist *ml,
                             const char *prop, const char *aux, cost *c, rt_error *err);
int dn_cost_pool(const shape *sh, const mdlist *ml, const char *prop, const char *aux, cost *c,
                 rt_error *err);
int dn_cost_lists(const char *kind, const char *problem, const mdlist *ml, const char *aux, cost *c,
                  rt_error *err);

/* What the cost model says of a kind. */
typedef enum dn_coverage {
    DN_MODELLED,  /* FLOPs and bytes */
    DN_NO_FLOPS,  /* bytes, but the kind's FLOPs are not modelled */
    DN_UNMODELLED /* neither: time only */
} dn_coverage;

/* FLOPs and bytes per call of a primitive of this kind (dispatched from a table by kind);
 * -1 with err on a descriptor that cannot be read. *coverage says what was modelled. */
int dn_cost(const char *kind, const char *prop, const mdlist *ml, const char *aux,
            const char *problem, cost *c, dn_coverage *coverage, rt_error *err);
/* FLOPs unit of a primitive: its source data type; AMX implementations get the AMX units. */
const char *dn_flops_unit(const mdlist *ml, const char *impl);

#endif
