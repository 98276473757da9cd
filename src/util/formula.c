/* Arithmetic formulas over named variables: recursive descent into postfix, evaluated on a small
 * stack. */
#include "rooftime/util/formula.h"
#include "rooftime/util/strings.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct fparse {
    const char *s, *p;
    rt_formula *f;
    size_t cap;
    rt_formula_resolver resolve;
    void *ctx;
    rt_error *err;
    int depth; /* parentheses and unary minus open around the current factor */
} fparse;

static void emit(fparse *fp, int kind, int bank, int index, double num)
{
    rt_formula *f = fp->f;
    if (f->n == fp->cap) {
        fp->cap = fp->cap ? 2 * fp->cap : 16;
        f->op = rt_xrealloc(f->op, fp->cap * sizeof *f->op);
    }
    f->op[f->n++] = (rt_formula_op){.kind = kind, .bank = bank, .index = index, .num = num};
}

static void space(fparse *fp)
{
    while (isspace((unsigned char)*fp->p))
        fp->p++;
}

static int fail(fparse *fp, const char *what)
{
    size_t len = strlen(fp->s), shown = rt_utf8_prefix(fp->s, len, 80);
    rt_error_set(fp->err, "formula: %s at character %zu (formula '%.*s%s')", what,
                 (size_t)(fp->p - fp->s) + 1, (int)shown, fp->s, shown < len ? "..." : "");
    return -1;
}

static int expr(fparse *fp);

static int factor(fparse *fp)
{
    space(fp);
    char c = *fp->p;
    if ((c == '(' || c == '-') && fp->depth >= RT_FORMULA_MAX_DEPTH)
        return fail(fp, "nested deeper than the limit of 64");
    if (c == '(') {
        fp->p++;
        fp->depth++;
        int rc = expr(fp);
        fp->depth--;
        if (rc != 0)
            return -1;
        space(fp);
        if (*fp->p != ')')
            return fail(fp, "expected ')'");
        fp->p++;
        return 0;
    }
    if (c == '-') {
        fp->p++;
        fp->depth++;
        int rc = factor(fp);
        fp->depth--;
        if (rc != 0)
            return -1;
        emit(fp, RT_F_NEG, 0, 0, 0);
        return 0;
    }
    if (isdigit((unsigned char)c) || c == '.') {
        char *end;
        double v = strtod(fp->p, &end);
        if (end == fp->p)
            return fail(fp, "bad number");
        fp->p = end;
        emit(fp, RT_F_NUM, 0, 0, v);
        return 0;
    }
    if (isalpha((unsigned char)c) || c == '_') {
        const char *b = fp->p;
        while (isalnum((unsigned char)*fp->p) || *fp->p == '_' || *fp->p == '.')
            fp->p++;
        int bank = 0, index = 0;
        const char *why = "unknown name";
        if (fp->resolve(fp->ctx, b, (size_t)(fp->p - b), &bank, &index, &why) != 0) {
            fp->p = b; /* the error points at the name */
            return fail(fp, why);
        }
        if (bank < 0 || bank >= RT_FORMULA_MAX_BANKS || index < 0)
            return fail(fp, "name resolved outside the variable banks");
        emit(fp, RT_F_VAR, bank, index, 0);
        return 0;
    }
    return fail(fp, c ? "expected a number, a name or '('" : "unexpected end");
}

static int term(fparse *fp)
{
    if (factor(fp) != 0)
        return -1;
    for (;;) {
        space(fp);
        char c = *fp->p;
        if (c != '*' && c != '/')
            return 0;
        fp->p++;
        if (factor(fp) != 0)
            return -1;
        emit(fp, c == '*' ? RT_F_MUL : RT_F_DIV, 0, 0, 0);
    }
}

static int expr(fparse *fp)
{
    if (term(fp) != 0)
        return -1;
    for (;;) {
        space(fp);
        char c = *fp->p;
        if (c != '+' && c != '-')
            return 0;
        fp->p++;
        if (term(fp) != 0)
            return -1;
        emit(fp, c == '+' ? RT_F_ADD : RT_F_SUB, 0, 0, 0);
    }
}

int rt_formula_compile(rt_formula *f, const char *text, rt_formula_resolver resolve, void *ctx,
                       rt_error *err)
{
    memset(f, 0, sizeof *f);
    f->text = rt_strdup(text);
    fparse fp = {.s = text, .p = text, .f = f, .resolve = resolve, .ctx = ctx, .err = err};
    if (expr(&fp) != 0)
        return -1;
    space(&fp);
    if (*fp.p)
        return fail(&fp, "unexpected character");
    /* The evaluation stack must hold every intermediate value. */
    int sp = 0, most = 0;
    for (size_t i = 0; i < f->n; i++) {
        int k = f->op[i].kind;
        sp += (k == RT_F_NUM || k == RT_F_VAR) ? 1 : k == RT_F_NEG ? 0 : -1;
        if (sp > most)
            most = sp;
    }
    if (most > RT_FORMULA_MAX_STACK)
        return fail(&fp, "needs more than 64 intermediate values");
    return 0;
}

double rt_formula_eval(const rt_formula *f, const double *const *bank)
{
    double st[RT_FORMULA_MAX_STACK + 1];
    size_t sp = 0;
    for (size_t i = 0; i < f->n; i++) {
        const rt_formula_op *o = &f->op[i];
        if (o->kind != RT_F_NUM && o->kind != RT_F_VAR && o->kind != RT_F_NEG && sp < 2)
            return NAN; /* compile never builds these; a hand-built formula stops here */
        switch (o->kind) {
        case RT_F_NUM:
            st[sp++] = o->num;
            break;
        case RT_F_VAR:
            st[sp++] = bank[o->bank][o->index];
            break;
        case RT_F_NEG:
            if (sp < 1)
                return NAN;
            st[sp - 1] = -st[sp - 1];
            break;
        case RT_F_ADD:
            sp--;
            st[sp - 1] += st[sp];
            break;
        case RT_F_SUB:
            sp--;
            st[sp - 1] -= st[sp];
            break;
        case RT_F_MUL:
            sp--;
            st[sp - 1] *= st[sp];
            break;
        case RT_F_DIV:
            sp--;
            st[sp - 1] = st[sp] != 0 ? st[sp - 1] / st[sp] : 0;
            break;
        }
        if (sp > RT_FORMULA_MAX_STACK)
            return NAN;
    }
    return sp == 1 ? st[0] : NAN;
}

void rt_formula_release(rt_formula *f)
{
    free(f->text);
    free(f->op);
    memset(f, 0, sizeof *f);
}
