/* The API's profiles: rooftime files, the torch runner's trace, JSON and saving (the importers of
 * `rooftime import`: api-import.c). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api-internal.h"
#include "rooftime/api/api.h"
#include "rooftime/core/comm.h"
#include "rooftime/core/coverage.h"
#include "rooftime/core/kernel-name-key.h"
#include "rooftime/formats/comm-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/import/torch-cost.h"
#include "rooftime/import/torch.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/util/strings.h"

/* Tag the communication kernels as the commands do when they load a profile (cli_comm_tag). */
static int comm_tag(rt_profile *p)
{
    rt_comm_patterns patterns = {0};
    rt_error err;
    if (rt_comm_patterns_load(NULL, &patterns, &err) != 0) {
        api_fail("communication kernel patterns: %s", err.msg);
        return -1;
    }
    rt_comm_tag_profile(&patterns, p);
    rt_comm_patterns_release(&patterns);
    return 0;
}

rt_profile *rt_api_profile_load(const char *path)
{
    api_begin();
    rt_profile *p = NULL;
    rt_error err;
    if (!path) {
        api_fail("no profile path given");
        return NULL;
    }
    if (rt_profile_load(path, &p, &err) != 0) {
        api_fail("%s", err.msg);
        return NULL;
    }
    if (comm_tag(p) != 0) {
        rt_profile_free(p);
        return NULL;
    }
    return p;
}

rt_profile *rt_api_profile_torch_trace(const char *trace, double wall, const char *command)
{
    api_begin();
    rt_torch_ops *ops = NULL;
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    if (!trace) {
        api_fail("no trace given");
        return NULL;
    }
    if (rt_torch_ops_load(NULL, &ops, &err) != 0) {
        api_fail("%s", err.msg);
        return NULL;
    }
    /* the scratch trace is gone when the warnings are read: they name the run */
    rt_torch_options to = {.ops = ops,
                           .conv = RT_CONV_TAPS,
                           .by_source = 1,
                           .origin = command && *command ? command : NULL};
    int rc = rt_import_torch_opts(trace, &to, &p, &w, &err);
    rt_torch_ops_free(ops);
    api_keep_warnings(&w);
    rt_warnings_release(&w);
    if (rc != 0) {
        api_fail("nothing profiled: the block left no readable PyTorch trace (did it run PyTorch "
                 "operators?): %s",
                 err.msg);
        return NULL;
    }
    /* the identity and notes `profile --torch` records (cmd-profile-torch.c) */
    rt_rank_identity *id = api_identity();
    if (!id) {
        rt_profile_free(p);
        return NULL;
    }
    rt_rank_identity_free(p->identity);
    p->identity = id;
    char buf[512];
    rt_profile_note_run(p, command ? command : "python (in process)", wall, buf, sizeof buf);
    p->machine = rt_cpu_describe();
    return p;
}

static int write_profile(void *ctx, FILE *fp, rt_error *err)
{
    int rc = rt_profile_write_json(ctx, fp);
    if (rc != 0)
        rt_error_set(err, "cannot write the profile as JSON");
    return rc;
}

char *rt_api_profile_json(const rt_profile *p)
{
    api_begin();
    if (!p) {
        api_fail("no profile");
        return NULL;
    }
    return api_capture(write_profile, (void *)p);
}

int rt_api_profile_save(const rt_profile *p, const char *path)
{
    api_begin();
    rt_error err;
    if (!p || !path) {
        api_fail("no profile or no path");
        return -1;
    }
    if (rt_profile_save(p, path, &err) != 0) {
        api_fail("%s", err.msg);
        return -1;
    }
    return 0;
}

char *rt_api_kernel_name_key(const char *name)
{
    api_begin();
    if (!name) {
        api_fail("no kernel name");
        return NULL;
    }
    return rt_kernel_name_key(name);
}

size_t rt_api_profile_kernels(const rt_profile *p)
{
    return p ? p->n_kernels : 0;
}

void rt_api_profile_free(rt_profile *p)
{
    rt_profile_free(p);
}
