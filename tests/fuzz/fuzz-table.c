/* libFuzzer target: `import table`; byte 0 picks --no-defaults with a small mapping. */
#include "fuzz-common.h"
#include "rooftime/import/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char path[64];
    int fd = fuzz_memfile(data + 1, size - 1, path, sizeof path);
    if (fd < 0)
        return 0;
    static const rt_table_map map[] = {{"time", "t"}, {"flops.fp32", "f"}, {"ai.HBM", "ai"}};
    rt_table_options o = {0};
    if (data[0] & 1)
        o = (rt_table_options){.map = map, .n_map = 3, .no_defaults = true};
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err;
    if (rt_import_table(path, &o, &p, &w, &err) == 0)
        fuzz_roundtrip(p);
    rt_profile_free(p);
    rt_warnings_release(&w);
    close(fd);
    return 0;
}
