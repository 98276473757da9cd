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

/* The narrowest the bound and efficiency columns are: "compute:fp32", "0.2928". */
#define RT_TEXT_BOUND_WIDTH 18
#define RT_TEXT_EFF_WIDTH 6

/* The widths of a table's columns whose values vary in length: each its narrowest, or its longest
 * value in the rows shown where one is longer (a bound "compute:fp32 (partial)" or "unknown (work
 * not counted)", at most 63; an efficiency "0.004434"), so that the columns after them stay
 * aligned. */
typedef struct rt_text_widths {
    int bound, eff;
} rt_text_widths;

/* The widths for rows 1 to n of the table of configs (items: of kernels) in the order given. */
rt_text_widths rt_text_widths_of(const rt_analysis *a, const size_t *order, size_t n, bool items);

/* Rows 1 to n of that table, as
 * fprintf("%4zu  %*s %6.1f%% %9s %10s %9s  %-*s %*s %*s  %s\n", ...) writes each (the bound and
 * efficiency columns w wide; with the overhead paid, "%-27s  ", before the name where
 * a->own_paths): formatted by the workers a block of rows each, written to fp in order. */
void rt_text_rows(FILE *fp, const rt_analysis *a, const size_t *order, size_t n, bool items,
                  rt_text_widths w);

#endif
