/* The text tables' rows (analysis-text-rows.c), formatted on the workers a block at a time and
 * written in order. */
#ifndef ROOFTIME_FORMATS_ANALYSIS_TEXT_ROWS_H
#define ROOFTIME_FORMATS_ANALYSIS_TEXT_ROWS_H

#include <stdbool.h>
#include <stdio.h>

#include "rooftime/core/analysis.h"

/* The width of the text tables' "overhead paid" column, there where kernels name the overhead
 * their own calls pay (a->own_paths): "openmp_fork_join(2 threads)". */
#define RT_TEXT_PAID_WIDTH 27

/* Rows 1 to n of the text table of configs (items: of kernels) in the order given, as
 * fprintf("%4zu  %*s %6.1f%% %9s %10s %9s  %-18s %6s %*s  %s\n", ...) writes each (with the
 * overhead paid, "%-27s  ", before the name where a->own_paths): formatted by the workers a block
 * of rows each, written to fp in order. */
void rt_text_rows(FILE *fp, const rt_analysis *a, const size_t *order, size_t n, bool items);

#endif
