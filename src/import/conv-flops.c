/* The FLOP convention of convolutions and pooling, by name. */
#include <string.h>

#include "rooftime/import/conv-flops.h"

int rt_conv_flops_parse(const char *s, rt_conv_flops *out, rt_error *err)
{
    if (s && strcmp(s, "taps") == 0) {
        *out = RT_CONV_TAPS;
    } else if (s && strcmp(s, "window") == 0) {
        *out = RT_CONV_WINDOW;
    } else {
        rt_error_set(err, "unknown FLOP convention '%s' (taps or window)", s ? s : "");
        return -1;
    }
    return 0;
}

const char *rt_conv_flops_name(rt_conv_flops c)
{
    return c == RT_CONV_WINDOW ? "window" : "taps";
}
