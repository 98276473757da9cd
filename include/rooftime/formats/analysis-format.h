/* Verdict tables of an analysis: text, CSV and JSON (analysis-format.c). */
#ifndef ROOFTIME_FORMATS_ANALYSIS_FORM_H
#define ROOFTIME_FORMATS_ANALYSIS_FORM_H

#include <jansson.h>
#include <stdio.h>
#include "rooftime/core/analysis.h"
#include "rooftime/core/model.h"
#include "rooftime/util/error.h"

/* Verdict tables. Text is for people, CSV one row per kernel and config, JSON the whole analysis.
 */
typedef enum rt_format { RT_FORMAT_TEXT, RT_FORMAT_CSV, RT_FORMAT_JSON } rt_format;
int rt_format_parse(const char *s, rt_format *out, rt_error *err);
/* JSON is written one element at a time: memory does not grow with the number of kernels. The
 * CSV's columns are those of analysis-columns.h (the tag columns of a's tags); its warnings (tag
 * keys left without a column) go into warn (NULL: dropped). */
int rt_analysis_write(const rt_analysis *a, rt_format fmt, FILE *fp, rt_warnings *warn,
                      rt_error *err);
/* The JSON's head: schema, mode, machine and totals, without the lists (a new reference). */
json_t *rt_analysis_head_json(const rt_analysis *a);
/* The text table with the `top` longest kernels (0: all). */
int rt_analysis_write_text(const rt_analysis *a, size_t top, FILE *fp);

#endif
