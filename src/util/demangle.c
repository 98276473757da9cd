/* C++ symbol names demangled as the CUPTI collector demangles them (src/collect/cupti-records.c:
 * libstdc++'s __cxa_demangle), so that `import ncu` of names ncu wrote mangled (--print-kernel-base
 * mangled) gives the very names the collector writes. The demangler is the same, GCC's, here from
 * libiberty: __cxa_demangle is its cplus_demangle_v3 with DMGL_PARAMS | DMGL_TYPES, the same text,
 * and refuses as it does names past its recursion limit (1024 characters mangled). Its callback
 * interface lets the output be bounded: a name of a few hundred bytes can expand to gigabytes
 * through back-references (`S_IS0_S0_E` ...), which __cxa_demangle would allocate and print; here
 * the printing stops at RT_DEMANGLED_MAX and the name is kept as written. */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <demangle.h> /* libiberty */

#include "rooftime/util/demangle.h"
#include "rooftime/util/strings.h"

typedef struct dm_out {
    char *buf;
    size_t n, cap;
    jmp_buf full; /* the output passed RT_DEMANGLED_MAX: back to rt_demangle */
} dm_out;

/* The demangler's output, a piece at a time; past the bound, the printing is abandoned (the
 * callback interface allocates nothing, so nothing is left behind). */
static void put(const char *s, size_t l, void *opaque)
{
    dm_out *o = opaque;
    if (l > RT_DEMANGLED_MAX - o->n)
        longjmp(o->full, 1);
    if (o->n + l + 1 > o->cap) {
        o->cap = o->n + l + 1 > 2 * o->cap ? o->n + l + 1 : 2 * o->cap;
        o->buf = rt_xrealloc(o->buf, o->cap);
    }
    memcpy(o->buf + o->n, s, l);
    o->n += l;
}

int rt_is_mangled(const char *name, size_t len)
{
    return len > 2 && name[0] == '_' && name[1] == 'Z';
}

char *rt_demangle(const char *name, size_t len)
{
    if (!rt_is_mangled(name, len) || len > RT_DEMANGLE_MAX || memchr(name, '\0', len))
        return NULL;
    char *z = rt_strndup(name, len);
    /* on the heap: what the callback changes survives the longjmp (C11 7.13.2.1) */
    dm_out *o = rt_xcalloc(1, sizeof *o);
    char *d = NULL;
    if (setjmp(o->full) == 0 && cplus_demangle_v3_callback(z, DMGL_PARAMS | DMGL_TYPES, put, o) &&
        o->n > 0) {
        o->buf[o->n] = '\0';
        d = o->buf;
        o->buf = NULL;
    }
    free(o->buf);
    free(o);
    free(z);
    return d;
}
