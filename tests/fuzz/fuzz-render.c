/* libFuzzer target: charts of a fuzzed profile on the V100 preset; every view's SVG is written
 * (sanitizers watch the layout and the escaping). */
#include <string.h>

#include "fuzz-common.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/render/chart.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static rt_machine *m;
    rt_error err;
    if (!m && rt_machine_resolve("v100", &m, &err) != 0) {
        fprintf(stderr, "fuzz-render: %s (set ROOFTIME_DATADIR)\n", err.msg);
        abort();
    }
    if (size > 1 << 16)
        return 0; /* charts of huge profiles are the scale benchmark's job */
    json_error_t je;
    json_t *j = json_loadb((const char *)data, size, 0, &je);
    if (!j)
        return 0;
    rt_profile *p = NULL;
    if (rt_profile_from_json(j, "fuzz", &p, &err) == 0) {
        for (int mode = 0; mode < 2; mode++) {
            rt_analysis *a =
                rt_analysis_new(m, mode ? RT_MODE_HIER : RT_MODE_SINGLE, &p, 1, NULL, &err);
            if (!a)
                continue;
            for (int v = 0; v < RT_VIEW_N; v++) {
                rt_chart_spec spec = {.view = (rt_view)v};
                free(rt_chart_svg(&spec, a, &err));
            }
            rt_analysis_free(a);
        }
    }
    rt_profile_free(p);
    json_decref(j);
    return 0;
}
