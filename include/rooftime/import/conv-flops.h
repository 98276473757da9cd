/* The FLOP convention of convolutions and pooling, one for every importer that models them
 * (conv-flops.c). */
#ifndef ROOFTIME_IMPORT_CONV_FLOPS_H
#define ROOFTIME_IMPORT_CONV_FLOPS_H

#include "rooftime/util/error.h"

/* How convolutions and pooling count FLOPs, in every importer that models them. */
typedef enum rt_conv_flops {
    RT_CONV_TAPS = 0,  /* pairs (output position, kernel tap) reading a real input element */
    RT_CONV_WINDOW = 1 /* every output position times the whole kernel, as torch counts */
} rt_conv_flops;

/* "taps" or "window"; -1 otherwise, with 'unknown FLOP convention ...' in err. */
int rt_conv_flops_parse(const char *s, rt_conv_flops *out, rt_error *err);
const char *rt_conv_flops_name(rt_conv_flops c);

#endif
