/* libFuzzer target: the profile loader; what it accepts round-trips, and the direct reader
 * (its kernels in two halves wherever it finds where to split them) takes a text only as the
 * loader reads it. */
#include "fuzz-common.h"

#include "../../src/formats/profile-json-fast.h"

/* What the direct reader made of the text: the loader's profile (NULL: it refused the text). */
static void same_as_loader(const uint8_t *data, size_t size, const rt_profile *slow)
{
    rt_profile *fast = NULL;
    rt_error err;
    /* as rt_profile_load: a profile whose sums fail the checks goes to jansson */
    if (rt_profile_json_fast_split((const char *)data, size, 1, &fast) == 0 &&
        rt_profile_check(fast, &err) == 0) {
        if (!slow) {
            fprintf(stderr, "the direct reader took a text the loader refuses\n");
            abort();
        }
        int spreads = 1;
        for (size_t i = 0; i < fast->n_kernels && i < slow->n_kernels; i++)
            spreads &= fast->kernels[i].spread.n == slow->kernels[i].spread.n &&
                       fast->kernels[i].spread.q1 == slow->kernels[i].spread.q1;
        if (!rt_profile_equal(fast, slow, &err) || fast->time_kind != slow->time_kind || !spreads) {
            fprintf(stderr, "the readers differ: %s\n", err.msg);
            abort();
        }
    }
    rt_profile_free(fast);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
    rt_profile *p = NULL;
    rt_error err;
    if (j &&
        rt_profile_from_json(j, &(rt_json_src){"fuzz", (const char *)data, size}, &p, &err) == 0)
        fuzz_roundtrip(p);
    else if (p) {
        rt_profile_free(p);
        p = NULL;
    }
    same_as_loader(data, size, p);
    rt_profile_free(p);
    json_decref(j);
    return 0;
}
