/* Arithmetic formulas over named variables (formula.c): the one evaluator behind every formula
 * in data/ (Nsight metric mappings, cost models). Grammar: numbers, names, + - * /, unary minus,
 * parentheses; a division by zero gives 0 (a metric that is absent reads as no work). */
#ifndef ROOFTIME_UTIL_FORMULA_H
#define ROOFTIME_UTIL_FORMULA_H

#include <stddef.h>

#include "rooftime/util/error.h"

/* Formulas nest at most this deep and evaluate with at most this many intermediate values. */
#define RT_FORMULA_MAX_DEPTH 64
#define RT_FORMULA_MAX_STACK 64

/* A variable lives in one of a few banks (arrays the caller passes to rt_formula_eval). */
#define RT_FORMULA_MAX_BANKS 4

typedef struct rt_formula_op {
    enum { RT_F_NUM, RT_F_VAR, RT_F_ADD, RT_F_SUB, RT_F_MUL, RT_F_DIV, RT_F_NEG } kind;
    int bank, index; /* RT_F_VAR */
    double num;      /* RT_F_NUM */
} rt_formula_op;

typedef struct rt_formula {
    char *text;
    rt_formula_op *op;
    size_t n;
} rt_formula;

/* Maps a name (not NUL-terminated) to its bank and index; returns 0, or -1 with *why set to a
 * phrase for the error ("unknown name", "more than 64 metrics"). */
typedef int (*rt_formula_resolver)(void *ctx, const char *name, size_t len, int *bank, int *index,
                                   const char **why);

/* Compile text. On failure: -1 and "formula: WHAT at character N (formula 'TEXT')" in err. */
int rt_formula_compile(rt_formula *f, const char *text, rt_formula_resolver resolve, void *ctx,
                       rt_error *err);
/* Evaluate with bank[b][i] the value of variable (b, i); NAN for a malformed formula. */
double rt_formula_eval(const rt_formula *f, const double *const *bank);
void rt_formula_release(rt_formula *f);

#endif
