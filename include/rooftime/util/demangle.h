/* C++ symbol names demangled as the CUPTI collector demangles them (demangle.c). */
#ifndef ROOFTIME_UTIL_DEMANGLE_H
#define ROOFTIME_UTIL_DEMANGLE_H

#include <stddef.h>

/* Mangled names longer than this are kept as written; GCC's demangler refuses those over 1024
 * characters already (its recursion limit), as __cxa_demangle does. */
#define RT_DEMANGLE_MAX ((size_t)1 << 14)
/* A demangled name longer than this is not printed: the mangled name is kept (back-references let a
 * short name expand exponentially). */
#define RT_DEMANGLED_MAX ((size_t)1 << 18)

/* Whether name[0..len) is an Itanium C++ mangled name ("_Z..."), as ncu --print-kernel-base
 * mangled and CUPTI write them. */
int rt_is_mangled(const char *name, size_t len);
/* name[0..len) demangled as libstdc++'s __cxa_demangle demangles it, the text the collector writes
 * (`void at::native::vectorized_elementwise_kernel<4, ..., std::array<char*, 3ul> >(int, ...)`):
 * a new string the caller frees, or NULL when name is no mangled name, is longer than
 * RT_DEMANGLE_MAX, does not demangle or expands past RT_DEMANGLED_MAX. Time and memory linear in
 * the name and the bound. */
char *rt_demangle(const char *name, size_t len);

#endif
