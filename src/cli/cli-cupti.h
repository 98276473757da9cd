/* The CUPTI collector librooftime-cupti.so from the command's side (cli-cupti.c): where it is, the
 * directory it writes (`import cupti --reevaluate` loads it through rt_cupti_reevaluate). */
#ifndef ROOFTIME_CLI_CUPTI_H
#define ROOFTIME_CLI_CUPTI_H

#include "rooftime/core/profile.h"
#include "rooftime/util/error.h"

#define CLI_CUPTI_NOT_FOUND                                                                        \
    "librooftime-cupti.so not found beside rooftime or in ../lib (rooftime was built without "     \
    "CUPTI?); set ROOFTIME_CUPTI_LIB to its path"

/* The collector's real path: $ROOFTIME_CUPTI_LIB, else beside the rooftime binary, else in
 * ../lib; NULL when there is none. The caller frees it. */
char *cli_cupti_library(void);

/* Paths under from (the collector's directory as imported) rewritten under to in the provenance's
 * inputs and notes: where it was moved. */
void cli_cupti_relocate(rt_provenance *pv, const char *from, const char *to);

#endif
