/* libFuzzer target: the profile loader; what it accepts round-trips. */
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        return 0;
    rt_profile *p = NULL;
    rt_error err;
    if (rt_profile_from_json(j, "fuzz", &p, &err) == 0)
        fuzz_roundtrip(p);
    rt_profile_free(p);
    json_decref(j);
    return 0;
}
