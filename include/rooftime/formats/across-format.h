/* An analysis across ranks as text for people and as JSON (across-format.c). */
#ifndef ROOFTIME_FORMATS_ACROSS_FORMAT_H
#define ROOFTIME_FORMATS_ACROSS_FORMAT_H

#include <stdio.h>

#include "rooftime/core/across.h"

/* The summary, the `top` largest stragglers and the `top` longest kernels and configs by median
 * (0: all). Returns 0, or -1 when writing failed. */
int rt_across_write_text(const rt_across *a, size_t top, FILE *fp);
/* Everything as JSON: every kernel and config with its distribution, every straggler, written an
 * entry at a time (a newline at the end). Returns 0, or -1 when writing failed. */
int rt_across_write_json(const rt_across *a, FILE *fp);

#endif
