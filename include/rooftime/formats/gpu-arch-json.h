/* data/gpu/architectures.json into the core's table of GPU peak rates (gpu-arch-json.c). */
#ifndef ROOFTIME_FORMATS_GPU_ARCH_JSON_H
#define ROOFTIME_FORMATS_GPU_ARCH_JSON_H

#include "rooftime/core/gpu-arch.h"
#include "rooftime/util/error.h"

/* Load the file (path NULL: <datadir>/gpu/architectures.json). -1 with err naming the file and
 * field on anything malformed. */
int rt_gpu_archs_load(const char *path, rt_gpu_archs *out, rt_error *err);

#endif
