/* libFuzzer target: PyTorch chrome traces from memory (not NUL-terminated: scanners must respect
 * the length); byte 0 picks a --within range (bit 0), the shipped cost model (bit 1) and its
 * convolution convention (bit 2). */
#include <string.h>

#include "fuzz-common.h"
#include "rooftime/import/torch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* an exact-size copy so ASan sees any read past the end */
    char *text = malloc(size - 1 ? size - 1 : 1);
    memcpy(text, data + 1, size - 1);
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err;
    static rt_torch_ops *ops;
    static int loaded;
    if (!loaded) {
        loaded = 1;
        if (rt_torch_ops_load(NULL, &ops, &err) != 0)
            abort(); /* the shipped table must load (ROOFTIME_DATADIR) */
    }
    rt_torch_options o = {.within = (data[0] & 1) ? "step" : NULL,
                          .ops = (data[0] & 2) ? ops : NULL,
                          .conv = (data[0] & 4) ? RT_CONV_WINDOW : RT_CONV_TAPS,
                          .by_source = (data[0] & 2) != 0};
    if (rt_import_torch_text_opts(text, size - 1, "fuzz", &o, &p, &w, &err) == 0)
        fuzz_roundtrip(p);
    rt_profile_free(p);
    rt_warnings_release(&w);
    free(text);
    return 0;
}
