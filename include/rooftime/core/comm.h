/* Communication kernels (comm.c): names matched against the patterns of data/comm/kernels.json
 * (formats/ reads them), tagged class=communication, and judged against the machine's link. */
#ifndef ROOFTIME_CORE_COMM_H
#define ROOFTIME_CORE_COMM_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/core/profile.h"

typedef struct rt_comm_pattern {
    char *match;   /* a glob (fnmatch, case-sensitive) */
    char *library; /* "NCCL", "MPI" ... */
    /* match has no '?', '[' or '\\': matched here, byte by byte, as fnmatch would; by its shape
     * where it has one: 'e' no star (the name itself), 'p' LIT*, 's' *LIT, 'm' *LIT*, else 0
     * (stars elsewhere); lit, lit_len: LIT (owned). */
    bool stars_only;
    char shape;
    char *lit;
    size_t lit_len;
} rt_comm_pattern;

typedef struct rt_comm_patterns {
    rt_comm_pattern *v;
    size_t n;
} rt_comm_patterns;

void rt_comm_patterns_add(rt_comm_patterns *p, const char *match, const char *library);
void rt_comm_patterns_release(rt_comm_patterns *p);
/* The library of the first pattern name matches, or NULL: not communication. */
const char *rt_comm_library(const rt_comm_patterns *p, const char *name);
/* Tag every kernel of prof whose name matches with class=communication and comm_library=LIB
 * (kept when already tagged); returns how many. */
size_t rt_comm_tag_profile(const rt_comm_patterns *p, rt_profile *prof);
/* Whether k carries class=communication. */
bool rt_kernel_is_communication(const rt_kernel *k);

#endif
