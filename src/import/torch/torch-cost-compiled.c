/* The cost model of PyTorch operators, torch.compile's fused kernels: bytes from the buffers the
 * runner read in inductor's generated code ('Input Dims', 'Input type', and in 'Concrete Inputs'
 * how the kernel uses each: "in", "out" or "in_out"), FLOPs from the operators the kernel's name
 * says it fuses, costed per element by the table's own entries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "torch-cost-args.h"
#include "rooftime/util/strings.h"

/* The '_' of a kernel name's operator list looked at; a longer list is not read. */
#define MAX_CUTS 64
/* The operators of one kernel. */
#define MAX_FUSED 32

/* A kernel name's operator list ("_unsafe_view_mul_silu" of "cpp_fused__unsafe_view_mul_silu_2")
 * and where an operator may start in it: 0 and after each '_'. */
typedef struct oplist {
    const rt_torch_ops *o;
    const char *s;
    size_t n;
    size_t start[MAX_CUTS + 1];
    int n_start;
    signed char memo[MAX_CUTS + 2][MAX_CUTS + 1]; /* readings from (previous, here); -1 unknown */
    signed char known[MAX_CUTS + 1]
                     [MAX_CUTS + 2]; /* the part from start i to start j an operator */
} oplist;

/* The table's entry of operator aten::s[a..b), or NULL (not an operator it knows). */
static const tc_entry *op_entry(const oplist *l, size_t a, size_t b)
{
    char name[160];
    if (b - a + 6 >= sizeof name)
        return NULL;
    snprintf(name, sizeof name, "aten::%.*s", (int)(b - a), l->s + a);
    const tc_entry *e = rt_torch_ops_find(l->o, name);
    return e && e->model != TC_REGION && e->model != TC_COMPILED ? e : NULL;
}

/* Whether the part from start index i up to start index j (n_start: the end) is an operator the
 * table knows, each asked of the table once. */
static int known(oplist *l, int i, int j)
{
    size_t a = l->start[i], b = j < l->n_start ? l->start[j] - 1 : l->n;
    if (b <= a)
        return 0;
    if (l->known[i][j] < 0)
        l->known[i][j] = op_entry(l, a, b) != NULL;
    return l->known[i][j];
}

/* Whether s[a..b) sorts after s[pa..pb) (inductor sorts the names, each once). */
static int after(const oplist *l, size_t pa, size_t pb, size_t a, size_t b)
{
    size_t m = pb - pa < b - a ? pb - pa : b - a;
    int c = memcmp(l->s + pa, l->s + a, m);
    return c < 0 || (c == 0 && pb - pa < b - a);
}

/* How many ways (0, 1, or 2 for two or more) the list reads from start index i on as known
 * operators in sorted order, the previous operator starting at start index p (-1: none). */
static int readings(oplist *l, int p, int i)
{
    signed char *m = &l->memo[p + 1][i];
    if (*m >= 0)
        return *m;
    size_t a = l->start[i];
    int n = 0;
    for (int j = i + 1; j <= l->n_start && n < 2; j++) {
        size_t b = j < l->n_start ? l->start[j] - 1 : l->n;
        if (!known(l, i, j) || (p >= 0 && !after(l, l->start[p], a - 1, a, b)))
            continue;
        n += j == l->n_start ? 1 : readings(l, i, j);
    }
    *m = (signed char)(n > 2 ? 2 : n);
    return *m;
}

/* The operators a kernel name fuses: their starts and ends into ops; how many, or -1 with why. */
static int fused_ops(oplist *l, const char *name, const char *after_, size_t ops[][2], char *why,
                     size_t wn)
{
    const char *s = after_ && *after_ ? strstr(name, after_) : NULL;
    const char *end = name + strlen(name);
    const char *num = end;
    while (num > name && num[-1] >= '0' && num[-1] <= '9')
        num--;
    if (!s || num == end || num - 1 <= s + strlen(after_) || num[-1] != '_') {
        snprintf(why, wn, "its name does not list the operators it fuses ('%s...N')", after_);
        return -1;
    }
    l->s = s + strlen(after_);
    l->n = (size_t)(num - 1 - l->s);
    l->n_start = 0;
    l->start[l->n_start++] = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->s[i] == '_' && i + 1 < l->n) {
            if (l->n_start > MAX_CUTS) {
                snprintf(why, wn, "its name lists more than %d parts", MAX_CUTS);
                return -1;
            }
            l->start[l->n_start++] = i + 1;
        }
    memset(l->memo, -1, sizeof l->memo);
    memset(l->known, -1, sizeof l->known);
    if (readings(l, -1, 0) != 1) {
        snprintf(why, wn, "its name reads as %s sorted list of operators the cost model knows",
                 readings(l, -1, 0) ? "more than one" : "no");
        return -1;
    }
    /* the one reading, walked again */
    int n = 0, p = -1, i = 0;
    while (i < l->n_start) {
        size_t a = l->start[i];
        int next = -1;
        for (int j = i + 1; j <= l->n_start && next < 0; j++) {
            size_t b = j < l->n_start ? l->start[j] - 1 : l->n;
            if (!known(l, i, j) || (p >= 0 && !after(l, l->start[p], a - 1, a, b)) ||
                (j < l->n_start && readings(l, i, j) == 0))
                continue;
            if (n == MAX_FUSED) {
                snprintf(why, wn, "it fuses more than %d operators", MAX_FUSED);
                return -1;
            }
            ops[n][0] = a;
            ops[n++][1] = b;
            next = j;
        }
        if (next < 0)
            break; /* not reached: the one reading goes on */
        p = i;
        i = next;
    }
    return n;
}

static int listed(char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

/* FLOPs of the fused operators, each once per element of the smallest buffer written (elements):
 * 0 with flops, or -1 with why naming the operator whose work the buffers cannot tell. */
static int fused_flops(const tc_entry *k, oplist *l, size_t ops[][2], int n, double elements,
                       double *flops, char *why, size_t wn)
{
    double var[1 + TC_MAX_ARGS];
    for (size_t i = 0; i < sizeof var / sizeof var[0]; i++)
        var[i] = elements;
    const double *bank[1] = {var};
    *flops = 0;
    for (int i = 0; i < n; i++) {
        char name[160];
        snprintf(name, sizeof name, "aten::%.*s", (int)(ops[i][1] - ops[i][0]), l->s + ops[i][0]);
        const tc_entry *e = op_entry(l, ops[i][0], ops[i][1]);
        const char *no = NULL;
        if (e->model == TC_NONE && listed(k->partial, k->n_partial, name))
            no = "a view that may read part of a buffer: its bytes are not the buffers'";
        else if (e->model == TC_NONE && strcmp(e->klass, "view") != 0 &&
                 strcmp(e->klass, "allocation") != 0)
            no = "a dispatcher: the operators doing its work are not named";
        else if (e->model == TC_UNCOUNTED)
            no = "work no count measures";
        else if (e->model == TC_STREAM && e->gathered >= 0)
            no = "reads at data-dependent addresses";
        else if (e->model != TC_NONE && e->model != TC_STREAM)
            no = "work its buffers do not tell";
        if (no) {
            snprintf(why, wn, "it fuses %s (%s)", name, no);
            return -1;
        }
        if (e->model == TC_STREAM) {
            double f = rt_formula_eval(&e->flops, bank);
            *flops += f > 0 ? f : 0;
        }
    }
    return 0;
}

/* How the kernel uses argument i ("in", "out", "in_out"): 1 read only, 2 written, 0 not told. */
static int use_of(const json_t *access, size_t i)
{
    const char *a = json_string_value(json_array_get(access, i));
    return !a                                                  ? 0
           : strcmp(a, "in") == 0                              ? 1
           : strcmp(a, "out") == 0 || strcmp(a, "in_out") == 0 ? 2
                                                               : 0;
}

void rt_torch_cost_compiled(const rt_torch_ops *o, const tc_entry *e, const rt_torch_call *rc,
                            rt_torch_cost *out)
{
    char why[160] = "";
    tc_call *c = NULL;
    json_t *access = NULL;
    oplist *l = NULL;
    if (!rc->dims) {
        out->status = RT_TC_INCOMPLETE;
        snprintf(out->why, sizeof out->why, "%s", e->why);
        return;
    }
    c = rt_xmalloc(sizeof *c);
    if (rt_torch_cost_read_call(rc, c, why, sizeof why) != 0)
        goto fail;
    access = rc->concrete ? json_loads(rc->concrete, JSON_DECODE_ANY, NULL) : NULL;
    if (!json_is_array(access) || c->n_recorded > TC_MAX_ARGS ||
        json_array_size(access) != c->n_recorded || c->n == 0) {
        snprintf(why, sizeof why,
                 "its buffers' use ('Concrete Inputs') is not one of in, out or "
                 "in_out per buffer, up to %d",
                 TC_MAX_ARGS);
        goto fail;
    }
    double bytes = 0, elements = -1;
    const char *unit = NULL, *unit_in = NULL;
    for (int i = 0; i < c->n; i++) {
        const tc_arg *a = &c->arg[i];
        int use = use_of(access, (size_t)i);
        if (!use || !a->is_tensor || a->nd < 0 || a->esize <= 0) {
            snprintf(why, sizeof why, "buffer %d is not a tensor of a known type and use", i);
            goto fail;
        }
        /* each buffer once: compulsory traffic, a kernel's own re-reads are not counted */
        bytes += a->numel * a->esize;
        if (use == 2 && (elements < 0 || a->numel < elements))
            elements = a->numel;
        if (use == 2 && !unit)
            unit = a->unit;
        if (!unit_in)
            unit_in = a->unit;
    }
    if (elements < 0) {
        snprintf(why, sizeof why, "it writes none of its buffers");
        goto fail;
    }
    l = rt_xmalloc(sizeof *l);
    l->o = o;
    size_t ops[MAX_FUSED][2];
    double flops = 0;
    int n = fused_ops(l, rc->name, e->after, ops, why, sizeof why);
    if (n < 0 || fused_flops(e, l, ops, n, elements, &flops, why, sizeof why) != 0)
        goto fail;
    out->status = RT_TC_COSTED;
    out->unit = unit ? unit : unit_in;
    out->flops = out->unit ? flops : 0;
    out->flops_known = 1;
    out->bytes = bytes;
    out->bytes_known = 1;
    goto done;
fail:
    out->status = RT_TC_INCOMPLETE;
    snprintf(out->why, sizeof out->why, "compiled kernel, work not counted: %s", why);
done:
    json_decref(access);
    free(l);
    free(c);
}
