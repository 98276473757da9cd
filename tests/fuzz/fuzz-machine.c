/* libFuzzer target: the machine loader; what it accepts writes the same JSON twice. */
#include <string.h>

#include "fuzz-common.h"
#include "rooftime/core/machine.h"
#include "rooftime/formats/machine-json.h"

static char *dump(const rt_machine *m)
{
    json_t *j = rt_machine_to_json(m);
    char *s = json_dumps(j, JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    json_decref(j);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *j = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        return 0;
    rt_machine *m = NULL;
    rt_error err;
    if (rt_machine_from_json(j, &(rt_json_src){"fuzz", (const char *)data, size}, &m, &err) == 0) {
        rt_machine_check(m, &err);
        char *a = dump(m);
        json_t *back = json_loads(a, 0, &je);
        rt_machine *m2 = NULL;
        if (!back || rt_machine_from_json(back, RT_JSON_NAMED("round trip"), &m2, &err) != 0) {
            fprintf(stderr, "accepted but does not load back: %s\n", back ? err.msg : je.text);
            abort();
        }
        char *b = dump(m2);
        if (strcmp(a, b) != 0) {
            fprintf(stderr, "changed on the round trip\n");
            abort();
        }
        free(a);
        free(b);
        json_decref(back);
        rt_machine_free(m2);
    }
    rt_machine_free(m);
    json_decref(j);
    return 0;
}
