/* libFuzzer target: the hint rules (data/verdict-hints.json's format); what it accepts answers
 * every bound class without reading past its buffers. */
#include <string.h>

#include "fuzz-common.h"
#include "rooftime/core/hints.h"
#include "rooftime/formats/hints-json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rt_verdict_hints h;
    rt_error err;
    if (rt_verdict_hints_parse((const char *)data, size, "fuzz", &h, &err) != 0)
        return 0;
    static const struct {
        rt_bound bound;
        bool zero_ai;
        const char *label;
    } cases[] = {{RT_BOUND_OVERHEAD, false, "overhead"},
                 {RT_BOUND_BANDWIDTH, true, "bandwidth:DRAM"},
                 {RT_BOUND_BANDWIDTH, false, "bandwidth:L2"},
                 {RT_BOUND_COMPUTE, false, "compute:fp32"},
                 {RT_BOUND_NONE, false, "none"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        rt_verdict v = {
            .bound = cases[i].bound, .zero_ai = cases[i].zero_ai, .bound_label = cases[i].label};
        char buf[64]; /* small: long hints are cut, never overrun */
        rt_verdict_hint_for(&h, &v, buf, sizeof buf);
        if (strlen(buf) >= sizeof buf)
            abort();
    }
    rt_verdict_hints_release(&h);
    return 0;
}
