/* PyTorch traces, time by reason: what the operator self time or the device time without work
 * went to (an operator and why it has none), summed, and listed largest first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/strings.h"
#include "torch-internal.h"

void rt_torch_shares_add(torch_shares *s, const char *what, double us)
{
    size_t id = rt_name_index_intern(&s->why, what, strlen(what));
    if (id >= s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        while (cap <= id)
            cap *= 2;
        s->us = rt_xrealloc(s->us, cap * sizeof *s->us);
        memset(s->us + s->cap, 0, (cap - s->cap) * sizeof *s->us);
        s->cap = cap;
    }
    s->us[id] += us;
}

void rt_torch_shares_release(torch_shares *s)
{
    rt_name_index_release(&s->why);
    free(s->us);
    memset(s, 0, sizeof *s);
}

typedef struct share {
    const char *what;
    double us;
} share;

static int share_cmp(const void *a_, const void *b_)
{
    const share *a = a_, *b = b_;
    if (a->us != b->us)
        return a->us > b->us ? -1 : 1;
    return strcmp(a->what, b->what);
}

char *rt_torch_shares_list(const torch_shares *s, double base, size_t most, double *sum)
{
    size_t n = s->why.n;
    share *sh = rt_xmalloc((n ? n : 1) * sizeof *sh);
    *sum = 0;
    for (size_t i = 0; i < n; i++) {
        sh[i] = (share){rt_name_index_key(&s->why, i), s->us[i]};
        *sum += sh[i].us;
    }
    qsort(sh, n, sizeof *sh, share_cmp);
    size_t cap = 4096, len = 0;
    char *list = rt_xmalloc(cap);
    list[0] = '\0';
    for (size_t i = 0; i < n && i < most; i++) {
        int m = snprintf(list + len, cap - len, "%s%s %.1f%%", i ? "; " : "", sh[i].what,
                         100 * sh[i].us / base);
        if (m < 0 || (size_t)m >= cap - len)
            break;
        len += (size_t)m;
    }
    if (n > most && len + 32 < cap)
        snprintf(list + len, cap - len, "; %zu more", n - most);
    free(sh);
    return list;
}
