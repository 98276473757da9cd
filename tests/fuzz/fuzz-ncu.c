/* libFuzzer target: `import ncu` on one file; byte 0 picks --per-launch and --allow-missing. */
#include "fuzz-common.h"
#include "rooftime/import/ncu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char path[64];
    int fd = fuzz_memfile(data + 1, size - 1, path, sizeof path);
    if (fd < 0)
        return 0;
    rt_ncu_options o = {.per_launch = data[0] & 1, .allow_missing = (data[0] >> 1) & 1};
    const char *paths[1] = {path};
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err;
    if (rt_import_ncu(paths, 1, &o, &p, &w, &err) == 0)
        fuzz_roundtrip(p);
    rt_profile_free(p);
    rt_warnings_release(&w);
    close(fd);
    return 0;
}
