/* libFuzzer target: the hint rule table (data/torch/hints.json), evaluated on a small run with
 * and without a machine. */
#include <string.h>

#include "fuzz-common.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/hints-json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static rt_machine *m;
    static rt_profile *p;
    rt_error err;
    if (!p) {
        if (rt_machine_resolve("a100", &m, &err) != 0)
            abort(); /* the shipped preset must load (ROOFTIME_DATADIR) */
        p = rt_profile_new();
        static const char *names[] = {"reorder jit:uni f32 2x3", "aten::add_ [[4,5],[4,5],[]]",
                                      "aten::copy_ [[4],[4],[]]", "aten::mm [[4,4],[4,4]]"};
        for (size_t i = 0; i < 4; i++) {
            rt_kernel *k = rt_profile_add_kernel(p, names[i]);
            k->invocations = 10;
            k->time = 1e-3 * (double)(i + 1);
            rt_values_set(&k->bytes, "HBM", 1e6);
            if (i == 3)
                rt_values_set(&k->flops, "fp32", 1e9);
            if (i == 2)
                rt_tags_set(&k->tags, "convert", "float->c10::BFloat16");
        }
    }
    char path[64];
    int fd = fuzz_memfile(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    rt_hints *h = NULL;
    if (rt_hints_load(path, &h, &err) == 0) {
        rt_warnings w = {0};
        rt_hints_eval(h, m, RT_MODE_SINGLE, &p, 1, &w);
        rt_hints_eval(h, NULL, RT_MODE_HIER, &p, 1, &w);
        rt_warnings_release(&w);
        rt_hints_free(h);
    }
    close(fd);
    return 0;
}
