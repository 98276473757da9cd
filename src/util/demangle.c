/* C++ symbol names demangled by libstdc++'s __cxa_demangle: the rule of the CUPTI collector
 * (src/collect/cupti-records.c, which cannot call a wing), so that `import ncu` of names ncu wrote
 * mangled (--print-kernel-base mangled) gives the very names the collector writes. util links
 * libstdc++ for it (src/util/CMakeLists.txt). */
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/demangle.h"

/* libstdc++'s demangler, with C linkage (cxxabi.h declares it for C++ only). It reads a
 * NUL-terminated name and returns a malloc'd one; its recursion is bounded by libiberty. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *n, int *status);

int rt_is_mangled(const char *name, size_t len)
{
    return len > 2 && name[0] == '_' && name[1] == 'Z';
}

char *rt_demangle(const char *name, size_t len)
{
    if (!rt_is_mangled(name, len) || len > RT_DEMANGLE_MAX || memchr(name, '\0', len))
        return NULL;
    char *z = malloc(len + 1);
    if (!z)
        return NULL;
    memcpy(z, name, len);
    z[len] = '\0';
    int status = -1;
    char *d = __cxa_demangle(z, NULL, NULL, &status);
    free(z);
    if (d && status == 0)
        return d;
    free(d);
    return NULL;
}
