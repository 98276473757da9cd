/* libFuzzer target: PyTorch chrome traces from memory (not NUL-terminated: scanners must respect
 * the length), plain or gzip-compressed; byte 0 picks a --within range (bit 0), the shipped cost
 * model (bit 1) and its convolution convention (bit 2), a GPU trace's host operators instead of
 * its device profile (bit 3) and the shipped communication patterns (bit 4). */
#include <string.h>

#include "fuzz-common.h"
#include "rooftime/formats/comm-json.h"
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
    static rt_comm_patterns comm;
    static int loaded;
    if (!loaded) {
        loaded = 1;
        if (rt_torch_ops_load(NULL, &ops, &err) != 0 ||
            rt_comm_patterns_load(NULL, &comm, &err) != 0)
            abort(); /* the shipped tables must load (ROOFTIME_DATADIR) */
    }
    rt_torch_options o = {.within = (data[0] & 1) ? "step" : NULL,
                          .ops = (data[0] & 2) ? ops : NULL,
                          .conv = (data[0] & 4) ? RT_CONV_WINDOW : RT_CONV_TAPS,
                          .by_source = (data[0] & 2) != 0,
                          .host = (data[0] & 8) != 0,
                          .comm = (data[0] & 16) ? &comm : NULL};
    if (rt_import_torch_text_opts(text, size - 1, "fuzz", &o, &p, &w, &err) == 0)
        fuzz_roundtrip(p);
    rt_profile_free(p);
    rt_warnings_release(&w);
    free(text);
    return 0;
}
