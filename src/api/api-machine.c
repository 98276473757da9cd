/* The API's machines: presets, files, this machine measured. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>

#include "api-internal.h"
#include "rooftime/api/api.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/probe/measure-machine.h"

rt_machine *rt_api_machine_load(const char *name_or_path)
{
    api_begin();
    if (!name_or_path) {
        api_fail("no machine given (a preset name or a machine file)");
        return NULL;
    }
    rt_machine *m = NULL;
    rt_error err;
    if (rt_machine_resolve(name_or_path, &m, &err) != 0) {
        api_fail("%s", err.msg);
        return NULL;
    }
    return m;
}

rt_machine *rt_api_machine_measure_opts(int quick, const char *threads, const char *max_isa)
{
    api_begin();
    rt_isa isa;
    rt_error err;
    long n = 0;
    /* checked as `machine measure --threads N --max-isa ISA` checks them */
    if (threads) {
        char *end;
        errno = 0;
        n = strtol(threads, &end, 10);
        if (!*threads || *end || errno || n < 1 || n > 4096) {
            api_fail("--threads: expected a positive whole number, got '%s'", threads);
            return NULL;
        }
    }
    if (max_isa && rt_isa_parse(max_isa, &isa, &err) != 0) {
        api_fail("--max-isa: %s", err.msg);
        return NULL;
    }
    /* the rank, host and device `machine measure` records, read before it measures */
    rt_rank_identity *id = api_identity();
    if (!id)
        return NULL;
    rt_measure_opts mo = {.quick = quick, .max_threads = (int)n, .max_isa = max_isa};
    rt_machine *m = NULL;
    rt_warnings skipped = {0};
    int rc = rt_machine_measure(&mo, &m, &skipped, &err);
    api_keep_warnings(&skipped);
    rt_warnings_release(&skipped);
    if (rc != 0) {
        rt_rank_identity_free(id);
        api_fail("measurement failed: %s", err.msg);
        return NULL;
    }
    rt_rank_identity_free(m->identity);
    m->identity = id;
    return m;
}

rt_machine *rt_api_machine_measure(int quick)
{
    return rt_api_machine_measure_opts(quick, NULL, NULL);
}

static int write_machine(void *ctx, FILE *fp, rt_error *err)
{
    json_t *j = rt_machine_to_json(ctx);
    int rc = j && json_dumpf(j, fp, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) == 0 ? 0 : -1;
    json_decref(j);
    if (rc != 0)
        rt_error_set(err, "cannot write the machine as JSON");
    return rc;
}

char *rt_api_machine_json(const rt_machine *m)
{
    api_begin();
    if (!m) {
        api_fail("no machine");
        return NULL;
    }
    return api_capture(write_machine, (void *)m);
}

int rt_api_machine_save(const rt_machine *m, const char *path)
{
    api_begin();
    rt_error err;
    if (!m || !path) {
        api_fail("no machine or no path");
        return -1;
    }
    if (rt_machine_save(m, path, &err) != 0) {
        api_fail("%s", err.msg);
        return -1;
    }
    return 0;
}

const char *rt_api_machine_name(const rt_machine *m)
{
    return m && m->name ? m->name : "";
}

void rt_api_machine_free(rt_machine *m)
{
    rt_machine_free(m);
}
