/* libFuzzer target: oneDNN verbose logs, from memory (byte 0 even) or through the file reader. */
#include "fuzz-common.h"
#include "rooftime/import/onednn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err;
    int rc;
    if (data[0] & 1) {
        char path[64];
        int fd = fuzz_memfile(data + 1, size - 1, path, sizeof path);
        if (fd < 0)
            return 0;
        rc = rt_import_onednn(path, &p, &w, &err);
        close(fd);
    } else {
        rc = rt_import_onednn_text((const char *)data + 1, size - 1, "fuzz", &p, &w, &err);
    }
    if (rc == 0)
        fuzz_roundtrip(p);
    rt_profile_free(p);
    rt_warnings_release(&w);
    return 0;
}
