/* The FLOP convention of convolutions and pooling, by name. */
#include <string.h>

#include "rooftime/import/conv-flops.h"

int rt_conv_flops_parse(const char *s, rt_conv_flops *out)
{
    if (strcmp(s, "taps") == 0)
        *out = RT_CONV_TAPS;
    else if (strcmp(s, "window") == 0)
        *out = RT_CONV_WINDOW;
    else
        return -1;
    return 0;
}

const char *rt_conv_flops_name(rt_conv_flops c)
{
    return c == RT_CONV_WINDOW ? "window" : "taps";
}
