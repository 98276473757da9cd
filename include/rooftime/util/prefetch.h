/* A hint to the processor that memory will be read soon: loops over a million records in an order
 * that visits memory at random (tables and charts in time order, hash lookups) fetch the records
 * some places ahead, so their waits on memory overlap instead of following one another. */
#ifndef ROOFTIME_UTIL_PREFETCH_H
#define ROOFTIME_UTIL_PREFETCH_H

/* A macro, not a function: GCC finds a function of prefetches alone free of side effects and
 * drops a call to it that it has not inlined, prefetches and all. Nothing on other compilers. */
#if defined(__GNUC__)
#define RT_PREFETCH(p) __builtin_prefetch(p)
#else
#define RT_PREFETCH(p) ((void)(p))
#endif

#endif
