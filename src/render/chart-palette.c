/* Colorblind-safe colors of the charts: the Okabe-Ito palette. */
#include "chart-internal.h"

/* Okabe & Ito (2008), ordered blue, vermillion, green first (the paper's PT, TF1, TF2 colors),
 * yellow last because it fades on white. */
static const uint32_t okabe_ito[RT_PALETTE_N] = {
    0x0072B2, /* blue */
    0xD55E00, /* vermillion */
    0x009E73, /* bluish green */
    0xCC79A7, /* reddish purple */
    0xE69F00, /* orange */
    0x56B4E9, /* sky blue */
    0x000000, /* black */
    0xC9B400, /* yellow, darkened to stay visible on white */
};

uint32_t rt_palette_color(size_t i)
{
    return okabe_ito[i % RT_PALETTE_N];
}

/* Levels from the innermost (L1) to the outermost (DRAM/HBM): sky blue, green, orange,
 * vermillion, then the rest. */
uint32_t rt_palette_level(size_t i, size_t n)
{
    static const uint32_t lv[] = {0x56B4E9, 0x009E73, 0xE69F00, 0xD55E00, 0xCC79A7, 0x0072B2};
    (void)n;
    return lv[i % (sizeof lv / sizeof lv[0])];
}
