/* Umbrella header of the rooftime library: the time-based hierarchical roofline. */
#ifndef ROOFTIME_ROOFTIME_H
#define ROOFTIME_ROOFTIME_H

/*
 * Conventions for every header below:
 * - functions that can fail return 0 on success and -1 on error, filling an rt_error;
 * - _new/_free for heap objects (free(NULL) is a no-op), _init/_release for embedded ones;
 * - objects own their strings; nothing points into a parser's input after it returns;
 * - the library never prints and never exits.
 */
#include "rooftime/error.h"
#include "rooftime/util.h"
#include "rooftime/machine.h"
#include "rooftime/profile.h"
#include "rooftime/model.h"
#include "rooftime/analysis.h"

#endif
