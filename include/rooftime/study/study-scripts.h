/* Where the study's client scripts are (src/study/study-scripts.c). */
#ifndef ROOFTIME_STUDY_SCRIPTS_H
#define ROOFTIME_STUDY_SCRIPTS_H

#include "rooftime/util/error.h"

/* rel (e.g. "scripts/torch-client.py") under $ROOFTIME_SRC, the source tree this was built from,
 * or the installed share directory, the first that exists. Caller frees; NULL with the places
 * looked in when none has it. */
char *rt_study_script(const char *rel, rt_error *err);

#endif
