/* libFuzzer target: PyTorch chrome traces from memory (not NUL-terminated: scanners must respect
 * the length); byte 0 picks a --within range. */
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
    if (rt_import_torch_text(text, size - 1, "fuzz", (data[0] & 1) ? "step" : NULL, &p, &w, &err) ==
        0)
        fuzz_roundtrip(p);
    rt_profile_free(p);
    rt_warnings_release(&w);
    free(text);
    return 0;
}
