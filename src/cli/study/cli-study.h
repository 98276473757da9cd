/* What `study` and `study --gpu` (cmd-study.c, cmd-study-gpu.c) share: their list options and
 * the writing of their analysis files (cli-study.c). */
#ifndef ROOFTIME_CLI_STUDY_H
#define ROOFTIME_CLI_STUDY_H

#include <stdbool.h>

#include "rooftime/core/analysis.h"
#include "rooftime/formats/analysis-format.h"
#include "rooftime/util/error.h"

/* A comma list of names (option opt) into n flags with parse; -1 after a usage error naming the
 * bad name, or listing the known ones when the list is empty. */
int cli_study_flags(const char *opt, const char *list, bool *flags, int n,
                    int (*parse)(const char *, int *, rt_error *));

/* An operation's name (conv2d, lstm) as a flag index, for cli_study_flags. */
int cli_study_op_flag(const char *s, int *v, rt_error *err);

/* The analysis as fmt into path, atomically (nothing left on an error), its warnings printed;
 * 0, or -1 after an error message. */
int cli_study_write_analysis(const rt_analysis *a, rt_format fmt, const char *path);

#endif
