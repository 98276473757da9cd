/* C++ symbol names demangled as the CUPTI collector demangles them (demangle.c). */
#ifndef ROOFTIME_UTIL_DEMANGLE_H
#define ROOFTIME_UTIL_DEMANGLE_H

#include <stddef.h>

/* Mangled names longer than this are kept as written (a kernel's runs to a few KiB). */
#define RT_DEMANGLE_MAX ((size_t)1 << 16)

/* Whether name[0..len) is an Itanium C++ mangled name ("_Z..."), as ncu --print-kernel-base
 * mangled and CUPTI write them. */
int rt_is_mangled(const char *name, size_t len);
/* name[0..len) demangled by libstdc++'s __cxa_demangle, the text the collector writes
 * (`void at::native::vectorized_elementwise_kernel<4, ..., std::array<char*, 3ul> >(int, ...)`):
 * a new string the caller frees, or NULL when name is no mangled name, is longer than
 * RT_DEMANGLE_MAX or does not demangle. */
char *rt_demangle(const char *name, size_t len);

#endif
