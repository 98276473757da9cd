/* The API's profiles: rooftime files, the importers of `rooftime import`, the torch runner's trace.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api-internal.h"
#include "rooftime/api/api.h"
#include "rooftime/core/comm.h"
#include "rooftime/core/coverage.h"
#include "rooftime/formats/comm-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/import/conv-flops.h"
#include "rooftime/import/cupti.h"
#include "rooftime/import/ncu.h"
#include "rooftime/import/onednn.h"
#include "rooftime/import/table.h"
#include "rooftime/import/torch-cost.h"
#include "rooftime/import/torch.h"
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

static int one_path(const char *kind, size_t n)
{
    if (n == 1)
        return 0;
    api_fail(n == 0 ? "import %s: no input given" : "import %s reads one input at a time", kind);
    return -1;
}

rt_profile *rt_api_import(const char *kind, const char *const *paths, size_t n, const char *ai_file,
                          const char *conv_name)
{
    api_begin();
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    rt_conv_flops conv = RT_CONV_TAPS;
    int rc = -1;
    for (size_t i = 0; i < n; i++)
        if (!paths[i]) {
            api_fail("import: input %zu is not a path", i + 1);
            return NULL;
        }
    if (!kind) {
        api_fail("import: no kind given (ncu, table, torch, onednn or cupti)");
    } else if (conv_name && rt_conv_flops_parse(conv_name, &conv, &err) != 0) {
        api_fail("conv_flops: %s", err.msg);
    } else if (strcmp(kind, "ncu") == 0) {
        rt_ncu_options o = {0};
        if (n == 0)
            api_fail("import ncu: no ncu output file given");
        else if ((rc = rt_import_ncu(paths, n, &o, &p, &w, &err)) != 0)
            api_fail("%s", err.msg);
    } else if (strcmp(kind, "table") == 0) {
        rt_table_options o = {.ai_file = ai_file};
        if (one_path(kind, n) == 0 && (rc = rt_import_table(paths[0], &o, &p, &w, &err)) != 0)
            api_fail("%s", err.msg);
    } else if (strcmp(kind, "onednn") == 0) {
        if (one_path(kind, n) == 0 &&
            (rc = rt_import_onednn_conv(paths[0], conv, &p, &w, &err)) != 0)
            api_fail("%s", err.msg);
    } else if (strcmp(kind, "torch") == 0) {
        rt_torch_ops *ops = NULL;
        if (one_path(kind, n) != 0) {
        } else if (rt_torch_ops_load(NULL, &ops, &err) != 0) {
            api_fail("%s", err.msg);
        } else {
            rt_torch_options to = {.ops = ops, .conv = conv, .by_source = 1};
            if ((rc = rt_import_torch_opts(paths[0], &to, &p, &w, &err)) != 0)
                api_fail("%s", err.msg);
        }
        rt_torch_ops_free(ops);
    } else if (strcmp(kind, "cupti") == 0) {
        rt_cupti_options o = {0};
        if (one_path(kind, n) == 0 && (rc = rt_import_cupti(paths[0], &o, &p, &w, &err)) != 0)
            api_fail("%s", err.msg);
    } else {
        api_fail("import: unknown kind '%s' (ncu, table, torch, onednn or cupti)", kind);
    }
    api_keep_warnings(&w);
    rt_warnings_release(&w);
    if (rc != 0) {
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
    rt_torch_options to = {.ops = ops, .conv = RT_CONV_TAPS, .by_source = 1};
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
    /* the notes `profile --torch` records (cmd-profile-torch.c) */
    char buf[512];
    rt_profile_note_run(p, command ? command : "python (in process)", wall, buf, sizeof buf);
    return p;
}

static int write_profile(void *ctx, FILE *fp, rt_error *err)
{
    json_t *j = rt_profile_to_json(ctx);
    int rc = j && json_dumpf(j, fp, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) == 0 ? 0 : -1;
    json_decref(j);
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

size_t rt_api_profile_kernels(const rt_profile *p)
{
    return p ? p->n_kernels : 0;
}

void rt_api_profile_free(rt_profile *p)
{
    rt_profile_free(p);
}
