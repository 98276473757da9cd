/* Umbrella header of the rooftime library: the time-based hierarchical roofline. */
#ifndef ROOFTIME_ROOFTIME_H
#define ROOFTIME_ROOFTIME_H

/*
 * Conventions for every header below:
 * - functions that can fail return 0 on success and -1 on error, filling an rt_error;
 * - _new/_free for heap objects (free(NULL) is a no-op), _init/_release for embedded ones;
 * - objects own their strings; nothing points into a parser's input after it returns;
 * - the library never prints and never exits.
 *
 * One folder per wing; a header is named after the source file it declares
 * (rooftime/import/ncu.h declares src/import/ncu.c). docs/architecture.md draws the wings.
 */
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/data-file.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "rooftime/util/html-escape.h"
#include "rooftime/util/json-read.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/hints.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/analysis-format.h"
#include "rooftime/formats/hints-json.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/import/csv-reader.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/import/ncu-units.h"
#include "rooftime/import/ncu.h"
#include "rooftime/import/onednn.h"
#include "rooftime/import/table.h"
#include "rooftime/import/torch.h"
#include "rooftime/render/chart.h"
#include "rooftime/render/draw.h"
#include "rooftime/render/report.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/probe/measure-machine.h"
#include "rooftime/probe/measure-plateau.h"
#include "rooftime/study/study.h"

#endif
