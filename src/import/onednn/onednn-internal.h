/* Private to the oneDNN importer: descriptors (onednn-desc.c), the cost model (onednn-cost.c) and
 * the line reader (onednn.c) share these. */
#ifndef ROOFTIME_IMPORT_ONEDNN_INTERNAL_H
#define ROOFTIME_IMPORT_ONEDNN_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "rooftime/core/profile.h"
#include "rooftime/import/onednn-units.h"
#include "rooftime/import/onednn.h"
#include "rooftime/util/error.h"
#include "rooftime/util/formula.h"
#include "rooftime/util/json-read.h"
#include "rooftime/util/name-index.h"
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
/* The source data type of a primitive ("bf16"; the first source argument's defined type, else the
 * first defined type of any argument), or NULL when none is defined. */
const char *rt_onednn_source_dt(const mdlist *ml);

/* ---- onednn-format.c: the line formats of data/onednn/verbose-formats.json ---- */

#define RT_DN_MAX_FORMATS 16

/* The columns of an execution record the reader needs. */
enum {
    RT_DN_ENGINE,
    RT_DN_KIND,
    RT_DN_IMPL,
    RT_DN_PROP,
    RT_DN_MDS,
    RT_DN_ATTR,
    RT_DN_AUX,
    RT_DN_PROBLEM,
    RT_DN_TIME,
    RT_DN_NCOL
};

/* Where each needed column lies: at[c] > 0 is that many fields after the operation, at[c] < 0
 * counts from the end of the line (-1: the last field); n columns follow the operation, the
 * 'attributes' one (its index attr, 0: none) free to hold commas. */
typedef struct rt_onednn_columns {
    int at[RT_DN_NCOL];
    int n, attr;
    char list[512]; /* the names, for messages */
} rt_onednn_columns;

typedef struct rt_onednn_format {
    char *versions; /* "oneDNN 3.6 and later (verbose v1)" */
    char *header;   /* "v1,primitive,info,template:", or NULL: this format prints none */
    char **record;  /* the fields before the operation: literals, "timestamp?", "category?" */
    size_t n_record;
} rt_onednn_format;

typedef enum rt_onednn_op {
    RT_DN_OP_EXEC,
    RT_DN_OP_CREATE,
    RT_DN_OP_INFO,
    RT_DN_OP_SKIP,
    RT_DN_OP_UNKNOWN
} rt_onednn_op;

typedef struct rt_onednn_formats {
    char *path; /* how messages name the table ("data/onednn/verbose-formats.json") */
    char **markers;
    size_t n_markers;
    rt_onednn_format *f;
    size_t n;
    char **columns; /* the default columns */
    size_t n_columns;
    rt_onednn_columns default_columns;
    char **cat_names; /* categories, and for each 1 when its records are read (0: skipped) */
    int *cat_read;
    size_t n_cat;
    int primitive_cat; /* the index of "primitive" */
    char **op_names;   /* operations ("create:*"), and for each its rt_onednn_op */
    int *op_kinds;
    size_t n_ops;
} rt_onednn_formats;

/* A line matched to a format: the operation's field, its category (-1: none), what it is. */
typedef struct rt_onednn_record {
    int format, op, category;
    rt_onednn_op kind;
} rt_onednn_record;

int rt_onednn_formats_load(const char *path, rt_onednn_formats *t, rt_error *err);
void rt_onednn_formats_release(rt_onednn_formats *t);
/* Match the fields after the marker (f[1..nf-1]) to the formats: those whose header the input
 * printed (seen, in that order) first, then the table's; -1 when none fits. */
int rt_onednn_record_parse(const rt_onednn_formats *t, const int *seen, size_t n_seen, char **f,
                           int nf, rt_onednn_record *rec);
/* The format whose header a line holds (its operation at f[op], the template after it), or -1. */
int rt_onednn_header_format(const rt_onednn_formats *t, char **f, int op);
/* Columns from their names ("operation", ... as a header lists them); -1 with why (why_n bytes)
 * saying what is missing. */
int rt_onednn_columns_set(rt_onednn_columns *c, char **names, size_t n, char *why, size_t why_n);
/* The field index of a needed column in a record of nf fields whose operation is f[op]. */
int rt_onednn_field_at(const rt_onednn_columns *c, int col, int op, int nf);
/* A member that is a list of non-empty strings (absent and not required: none). */
int rt_onednn_jr_strings(rt_jr *r, const json_t *obj, const char *path, const char *key,
                         bool required, char ***out, size_t *n);
void rt_onednn_strings_free(char **v, size_t n);
/* An object of strings ({"name": "value", ...}) into two parallel lists of *n. */
int rt_onednn_jr_pairs(rt_jr *r, const json_t *root, const char *key, char ***keys, char ***vals,
                       size_t *n);
/* A data file's name in messages: its label (rt_data_file_label) without the hash. */
char *rt_onednn_data_name(const char *label);

/* ---- the reader (onednn.c reads lines, onednn-exec.c execution records) ---- */

#define RT_DN_MAX_BAD_DETAILS 20
#define RT_DN_MAX_BAD_LINES 200

/* One distinct primitive execution: kind + implementation + propagation + memory descriptors +
 * auxiliary + problem. FLOPs and bytes are per call, computed once when it is first seen; the
 * FLOPs' unit is resolved when the input is read (the CPU's line may come late). */
typedef struct rt_onednn_entry {
    char *name;
    double calls;
    double ms;
    rt_time_samples samples; /* each call's exec time in seconds, for the kernel's spread */
    double flops;            /* per call; < 0: not modelled */
    double bytes;            /* per call; < 0: not modelled */
    size_t unit_key;         /* what decides the unit: an index into the reader's unit keys */
} rt_onednn_entry;

/* What decides a unit (kind, implementation, data type, fpmath mode), and what it became. */
typedef struct rt_onednn_unit_key {
    char *kind, *impl, *dt, *fpmath;
    const char *unit; /* resolved in finish */
    rt_onednn_unit_basis basis;
    const char *why;
    size_t kernels;
    double seconds;
} rt_onednn_unit_key;

struct rt_onednn_reader {
    char *origin;
    size_t lineno;
    size_t n_exec, n_create, n_info, n_skipped;
    size_t skipped_cat[8]; /* records of skipped categories, per category (up to 8) */
    rt_name_index ix;      /* key -> index into e */
    rt_onednn_entry *e;
    size_t n_e, cap_e;
    rt_name_index names;       /* kernel names in use, so two keys never share a name */
    rt_name_index next_number; /* name -> the next "#k" suffix to try for it */
    rt_name_index ukeys_ix;    /* unit key text -> index into ukeys */
    rt_onednn_unit_key *ukeys;
    size_t n_ukeys, cap_ukeys;
    size_t n_bad;
    size_t bad_lines[RT_DN_MAX_BAD_LINES];
    char *bad_msgs[RT_DN_MAX_BAD_DETAILS];
    rt_warnings notes; /* one per thing the model does not cover, e.g. an unknown primitive kind */
    rt_name_index noted;
    char *version;
    char *isa; /* the CPU line's text */
    char *engine;
    rt_onednn_model model;                        /* data/onednn/cost.json */
    rt_onednn_formats formats;                    /* data/onednn/verbose-formats.json */
    rt_onednn_units *units;                       /* data/onednn/units.json */
    rt_onednn_columns columns[RT_DN_MAX_FORMATS]; /* per format: its header's, or the default */
    int seen[RT_DN_MAX_FORMATS];                  /* formats whose header was read, in order */
    size_t n_seen;
    unsigned read_as;  /* bit k: an execution record with a category read as format k */
    char *model_error; /* why a data file could not be read: every line is then skipped */
    int window;        /* RT_CONV_WINDOW */
};

/* ---- onednn-messages.c ---- */

/* The line being read cannot be: counted by its number, why kept for the first ones. */
void rt_onednn_bad_line(rt_onednn_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A note for the profile's warnings, once per key (a thing the model does not cover). */
void rt_onednn_note_once(rt_onednn_reader *r, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- onednn-exec.c ---- */

/* An execution record (fields f, its operation at f[op], read with columns c) into the entries. */
void rt_onednn_read_exec(rt_onednn_reader *r, const rt_onednn_columns *c, char **f, int nf, int op);
/* Each unit key's unit (rt_onednn_units_unit with the CPU line's ISA), and what the profile says of
 * them: warnings for units that are the CPU's widest or unknown, the notes. */
void rt_onednn_resolve_units(rt_onednn_reader *r, rt_profile *p, rt_warnings *w);

#endif
