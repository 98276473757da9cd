/* The LSTM as per step GEMMs and elementwise kernels (lstm-unfused.c). */
#ifndef ROOFTIME_STUDY_LSTM_UNFUSED_H
#define ROOFTIME_STUDY_LSTM_UNFUSED_H

#include <stdint.h>

#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-tensors.h"
#include "rooftime/util/error.h"

/* Inputs of an LSTM case are generated from seed, so two implementations given the same seed
 * see the same tensors. Returns -1 with a message when the implementation cannot run it
 * (precision unsupported, library missing): the caller reports it as skipped. */
int rt_lstm_unfused_new(const rt_lstm_shape *s, rt_precision prec, rt_pass pass, uint64_t seed,
                        rt_study_case **out, rt_error *err);

#endif
