/* Conv2D through oneDNN's convolution primitives (conv-onednn.c). */
#ifndef ROOFTIME_STUDY_CONV_ONEDNN_H
#define ROOFTIME_STUDY_CONV_ONEDNN_H

#include <stdint.h>

#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/util/error.h"

/* Inputs of a conv case are generated from seed, so two implementations given the same seed
 * see the same tensors. Returns -1 with a message when the implementation cannot run it
 * (precision unsupported, library missing): the caller reports it as skipped. */
int rt_conv_onednn_new(const rt_conv_shape *s, rt_precision prec, rt_pass pass, uint64_t seed,
                       rt_study_case **out, rt_error *err);

#endif
