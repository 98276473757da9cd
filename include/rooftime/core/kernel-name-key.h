/* One key for the printings of a kernel's name (kernel-name-key.c), so that launches the CUPTI
 * collector names and launches Nsight Compute names can be matched. */
#ifndef ROOFTIME_CORE_KERNEL_NAME_KEY_H
#define ROOFTIME_CORE_KERNEL_NAME_KEY_H

/*
 * The key of a kernel's name, a new string the caller frees. The same for:
 *   - __cxa_demangle's name, the collector's and `import ncu`'s of mangled names:
 *     `void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>,
 *      std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)`;
 *   - ncu's own shortening (--print-kernel-base demangled, its default):
 *     `void vectorized_elementwise_kernel<4, FillFunctor<float>, array<char *, 1>>(int, T2, T3)`;
 *   - the mangled name itself (`_ZN2at6native...`), demangled first;
 * namely `vectorized_elementwise_kernel<4,FillFunctor<float>,array<char*,1>>`: the parameter list
 * and the return type left out (ncu abbreviates them to T2, T13), every namespace or class
 * qualifier that is a plain name (`at::`, `std::`, `(anonymous namespace)::`) dropped, blanks,
 * `const` and `volatile` dropped, integer suffixes (`1ul`) and `true`/`false` as digits. Kernels
 * that differ only in those (overloads by parameter type, const-ness of a template argument) share
 * a key: match by the whole name first. Linear in the name's length.
 */
char *rt_kernel_name_key(const char *name);

#endif
