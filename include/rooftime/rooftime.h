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
#include "rooftime/csv.h"
#include "rooftime/import.h"
#include "rooftime/import-frameworks.h"
#include "rooftime/draw.h"
#include "rooftime/chart.h"
#include "rooftime/report.h"
#include "rooftime/cpu.h"
#include "rooftime/measure.h"
#include "rooftime/study.h"

#endif
