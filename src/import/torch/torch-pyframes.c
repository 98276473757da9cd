/* PyTorch traces, torch 2.x's Python frames: with with_stack=True, Kineto's export writes no
 * "Call stack" on an operator but each Python call as an event of its own ("cat":
 * "python_function": "file.py(12): fn", "nn.Module: Linear_0", "<built-in method ...>") around
 * the operators it made, on their thread. An operator gets the user's line and nn.Module of the
 * frames around it, as torch 1.13's stacks give them (torch-attribute.c): the line of the
 * innermost frame of the user's code, which the frame it called names ("CallFrom"), and the
 * innermost nn.Module. One sort and one sweep per thread: n log n in the events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/strings.h"
#include "torch-internal.h"

#define NONE UINT32_MAX
/* Kineto writes nanoseconds as microseconds with three decimals: start plus duration of a call
 * may end a rounding step after its caller's without anything being wrong (microseconds) */
#define ROUNDING 0.01

static uint32_t text_id(reader *r, const char *s, size_t n)
{
    return (uint32_t)rt_name_index_intern(&r->py.text, s, n);
}

void rt_torch_pyframe_add(reader *r, const evf *f)
{
    static const char modp[] = "nn.Module: ";
    const char *name = f->name;
    size_t n = strlen(name);
    rt_torch_pyframe p = {.ts = f->ts, .end = f->ts + f->dur, .from = NONE, .module = NONE};
    if (n > sizeof modp - 1 && memcmp(name, modp, sizeof modp - 1) == 0) {
        p.kind = PF_MODULE;
        p.module = text_id(r, name + sizeof modp - 1, n - (sizeof modp - 1));
    } else {
        p.kind = rt_torch_library_frame(name, n) ? PF_LIBRARY : PF_USER;
    }
    /* "file.py:12", a line from 1 up (line 0 is not known) */
    const char *c = f->call_from ? strrchr(f->call_from, ':') : NULL;
    if (c && c > f->call_from && c[1] >= '1' && c[1] <= '9' &&
        c[1 + strspn(c + 1, "0123456789")] == '\0')
        p.from = text_id(r, f->call_from, strlen(f->call_from));
    p.thread = rt_torch_intern_thread(r, f->thread);
    if (r->py.n == r->py.cap) {
        r->py.cap = r->py.cap ? 2 * r->py.cap : 1024;
        r->py.f = rt_xrealloc(r->py.f, r->py.cap * sizeof *r->py.f);
    }
    r->py.f[r->py.n++] = p;
}

/* Frames and operators in one order: by thread, start, the longer first; at one start a frame
 * before an operator (it opened around it). */
typedef struct item {
    double ts, end;
    uint32_t thread;
    uint32_t idx; /* a frame's index; an operator's, with OP_BIT */
} item;
#define OP_BIT 0x80000000u

static int item_cmp(const void *a_, const void *b_)
{
    const item *a = a_, *b = b_;
    if (a->thread != b->thread)
        return a->thread < b->thread ? -1 : 1;
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if ((a->idx & OP_BIT) != (b->idx & OP_BIT))
        return (a->idx & OP_BIT) ? 1 : -1;
    if (a->end != b->end)
        return a->end > b->end ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* A frame open on its thread, with what the frames around it and it say. */
typedef struct open_frame {
    double end;
    uint8_t kind;
    uint8_t user;    /* a frame of the user's code is open at or below it */
    uint32_t line;   /* the innermost user line known: what a user frame's callee says */
    uint32_t module; /* the innermost nn.Module */
} open_frame;

/* The kernel of operator e with source and module: its key (torch.c's: name, dims, types,
 * concrete inputs, source, module, '\x1f' between) with the last two filled in. */
static void rekey(reader *r, ev *e, const char *source, const char *module)
{
    const char *old = r->names[e->key], *p = old;
    for (int i = 0; i < 4 && p; i++)
        if ((p = strchr(p, '\x1f')) != NULL)
            p++;
    if (!p || strcmp(p, "\x1f") != 0)
        return; /* no such key, or a "Call stack" gave it its source already */
    char *key = rt_asprintf("%.*s%s\x1f%s", (int)(p - old), old, source ? source : "",
                            module ? module : "");
    size_t before = r->n_k;
    uint32_t was = e->key, k = rt_torch_intern(r, key, strlen(key), 0);
    free(key);
    if (r->n_k > before) {
        kern *o = &r->k[was], *nk = &r->k[k];
        nk->display = o->display ? rt_strdup(o->display) : NULL;
        nk->dims = o->dims ? rt_strdup(o->dims) : NULL;
        nk->types = o->types ? rt_strdup(o->types) : NULL;
        nk->concrete = o->concrete ? rt_strdup(o->concrete) : NULL;
        nk->source = source ? rt_strdup(source) : NULL;
        nk->module = module ? rt_strdup(module) : NULL;
        nk->unit = o->unit;
        nk->cost_flops_arg = -2;
    }
    e->key = k;
}

/* Operator e (index i) inside the open frames st[0..sp): its source and module into src, mod. */
static void place(reader *r, const ev *e, size_t i, const open_frame *st, size_t sp, uint32_t *src,
                  uint32_t *mod)
{
    r->py.ops++;
    if (sp == 0)
        return;
    const open_frame *top = &st[sp - 1];
    if (e->end > top->end + ROUNDING) { /* it outlives the frame that made it */
        r->py.outside++;
        return;
    }
    mod[i] = top->module; /* code with no file of its own (python -c) still has its modules */
    if (!top->user)
        return;
    r->py.placed++;
    src[i] = top->line;
}

void rt_torch_pyframes_attribute(reader *r, rt_warnings *w)
{
    if (r->py.n == 0)
        return;
    size_t n = 0;
    for (size_t i = 0; i < r->n_evs; i++)
        n += r->evs[i].kind == EV_CPU;
    if (r->py.n >= OP_BIT || n >= OP_BIT)
        return; /* beyond any trace the reader's memory bound lets in */
    item *it = rt_xmalloc((r->py.n + n + 1) * sizeof *it);
    size_t m = 0;
    unsigned char *framed = rt_xcalloc(r->threads.n + 1, 1); /* threads with Python frames */
    for (size_t i = 0; i < r->py.n; i++) {
        const rt_torch_pyframe *f = &r->py.f[i];
        it[m++] = (item){f->ts, f->end, f->thread, (uint32_t)i};
        framed[f->thread] = 1;
    }
    for (size_t i = 0; i < r->n_evs; i++) {
        const ev *e = &r->evs[i];
        if (e->kind != EV_CPU)
            continue;
        if (framed[e->thread])
            it[m++] = (item){e->ts, e->end, e->thread, (uint32_t)i | OP_BIT};
        else
            r->py.bare++;
    }
    qsort(it, m, sizeof *it, item_cmp);
    uint32_t *src = rt_xmalloc((r->n_evs + 1) * sizeof *src);
    uint32_t *mod = rt_xmalloc((r->n_evs + 1) * sizeof *mod);
    memset(src, 0xff, (r->n_evs + 1) * sizeof *src); /* NONE */
    memset(mod, 0xff, (r->n_evs + 1) * sizeof *mod);
    open_frame *st = rt_xmalloc((r->py.n + 1) * sizeof *st);
    size_t sp = 0;
    for (size_t i = 0; i < m; i++) {
        if (i > 0 && it[i].thread != it[i - 1].thread)
            sp = 0;
        while (sp > 0 && st[sp - 1].end <= it[i].ts)
            sp--; /* frames that ended before it began */
        if (it[i].idx & OP_BIT) {
            place(r, &r->evs[it[i].idx & ~OP_BIT], it[i].idx & ~OP_BIT, st, sp, src, mod);
            continue;
        }
        const rt_torch_pyframe *f = &r->py.f[it[i].idx];
        const open_frame *up = sp > 0 ? &st[sp - 1] : NULL;
        if (up && f->end > up->end + ROUNDING) {
            r->py.crossing++; /* it outlives its caller: not a call inside it */
            continue;
        }
        open_frame o = {.end = up && f->end > up->end ? up->end : f->end,
                        .kind = f->kind,
                        .line = NONE,
                        .module = NONE};
        if (up) {
            o.user = up->user;
            o.line = up->line;
            o.module = up->module;
            /* the callee of a user frame names the line that called it */
            if (up->kind == PF_USER && f->from != NONE)
                o.line = f->from;
        }
        if (f->kind == PF_USER)
            o.user = 1;
        if (f->kind == PF_MODULE)
            o.module = f->module;
        st[sp++] = o;
    }
    free(st);
    free(framed);
    free(it);
    rt_torch_backward_link(r, src, mod, ROUNDING);
    for (size_t i = 0; i < r->n_evs; i++)
        if (src[i] != NONE || mod[i] != NONE)
            rekey(r, &r->evs[i], src[i] != NONE ? rt_name_index_key(&r->py.text, src[i]) : NULL,
                  mod[i] != NONE ? rt_name_index_key(&r->py.text, mod[i]) : NULL);
    free(src);
    free(mod);
    if (r->py.crossing > 0)
        rt_warnings_add(w,
                        "'%s': %zu python_function events left out: each ends after the end of the "
                        "Python frame around it on its thread, so it is no call inside it",
                        r->origin, r->py.crossing);
    if (r->py.outside > 0)
        rt_warnings_add(w,
                        "'%s': %zu operators end after the innermost Python frame around them "
                        "(python_function): they have no source line or module",
                        r->origin, r->py.outside);
}

void rt_torch_pyframes_release(reader *r)
{
    free(r->py.f);
    free(r->py.seq);
    rt_name_index_release(&r->py.text);
}
