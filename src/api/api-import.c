/* The API's `rooftime import KIND`: each importer's options as name/value pairs, named and checked
 * by the row of the importers' table the command reads (rooftime/import/importers.h), then the
 * same reader. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api-internal.h"
#include "rooftime/api/api.h"
#include "rooftime/import/importers.h"
#include "rooftime/util/strings.h"

/* Each row's options as rt_api_import_options lists them, built once from the table. */
enum { SPEC_MAX = 1024, ROWS_MAX = 32 };
static char specs[ROWS_MAX][SPEC_MAX];
static pthread_once_t specs_once = PTHREAD_ONCE_INIT;

static void specs_build(void)
{
    if (rt_n_importers > ROWS_MAX)
        abort(); /* a table larger than this file allows: a build mistake, caught by test-api */
    for (size_t i = 0; i < rt_n_importers; i++) {
        const rt_importer *im = rt_importers[i];
        size_t n = 0;
        for (size_t k = 0; k < im->n_options; k++) {
            rt_import_arg a = im->options[k].arg;
            n += (size_t)snprintf(specs[i] + n, SPEC_MAX - n, "%s%s\n", im->options[k].name,
                                  a == RT_IMPORT_FLAG   ? ""
                                  : a == RT_IMPORT_LIST ? "=*"
                                                        : "=");
        }
        n += (size_t)snprintf(specs[i] + n, SPEC_MAX - n, "tag=*\n");
        if (n >= SPEC_MAX)
            abort();
    }
}

/* The row of kind, or NULL with the error set; *spec its options as listed. */
static const rt_importer *importer(const char *kind, const char **spec)
{
    pthread_once(&specs_once, specs_build);
    for (size_t i = 0; kind && i < rt_n_importers; i++)
        if (strcmp(kind, rt_importers[i]->name) == 0) {
            *spec = specs[i];
            return rt_importers[i];
        }
    char list[256] = "";
    for (size_t i = 0, at = 0; i < rt_n_importers && at < sizeof list; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s",
                               i == 0                   ? ""
                               : i + 1 < rt_n_importers ? ", "
                                                        : " or ",
                               rt_importers[i]->name);
    api_fail("import: unknown kind '%s' (%s)", kind ? kind : "(none)", list);
    return NULL;
}

const char *rt_api_import_options(const char *kind)
{
    api_begin();
    const char *spec = NULL;
    return importer(kind, &spec) ? spec : NULL;
}

/* --tag, which every importer takes: 0, or -1 with the error set as the command words it. */
static int apply_tag(const char *kind, rt_tags *tags, const char *v)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v) {
        api_fail("import %s: --tag takes key=value, not '%s'", kind, v);
        return -1;
    }
    char *key = rt_strndup(v, (size_t)(eq - v));
    rt_tags_set(tags, key, eq + 1);
    free(key);
    return 0;
}

/* The name/value pairs through the row's apply, each checked as the command checks it. */
static int parse(const rt_importer *im, const char *spec, void *state, rt_tags *tags,
                 const rt_api_option *opts, size_t n_opts)
{
    for (size_t i = 0; i < n_opts; i++) {
        const char *name = opts[i].name, *v = opts[i].value;
        int is_tag = name && strcmp(name, "tag") == 0;
        const rt_import_option *o = name && !is_tag ? rt_import_option_find(im, name) : NULL;
        if (!o && !is_tag) {
            char list[256];
            size_t at = 0;
            for (const char *c = spec; *c && at + 3 < sizeof list; c++)
                if (*c == '\n' && c[1]) {
                    list[at++] = ',';
                    list[at++] = ' ';
                } else if (*c != '\n' && *c != '=' && *c != '*') {
                    list[at++] = *c;
                }
            list[at] = '\0';
            api_fail("import %s: unknown option '%s' (it takes %s)", im->name,
                     name ? name : "(none)", list);
            return -1;
        }
        if (o && o->arg == RT_IMPORT_FLAG && v) {
            api_fail("import %s: --%s takes no value, not '%s'", im->name, name, v);
            return -1;
        }
        if ((!o || o->arg != RT_IMPORT_FLAG) && !v) {
            api_fail("import %s: --%s needs a value", im->name, name);
            return -1;
        }
        rt_error err = {{0}};
        if (is_tag ? apply_tag(im->name, tags, v) != 0 : im->apply(state, o, v, &err) != 0) {
            if (!is_tag)
                api_fail("import %s: %s", im->name, err.msg);
            return -1;
        }
    }
    return 0;
}

/* librooftime-cupti.so for --reevaluate, found beside librooftime.so (api-gpu.c). */
static char *cupti_lib(rt_error *err)
{
    char *lib = api_find_cupti_lib();
    if (!lib)
        rt_error_set(err, "%s", rt_api_error());
    return lib;
}

/* The row's checks and reader on the inputs: 0, or -1 with err set (or the API's error, err
 * empty). */
static int run(const rt_importer *im, void *state, const char *const *paths, size_t n,
               rt_profile **p, rt_warnings *w, rt_error *err)
{
    if (n == 0) {
        api_fail("import %s: no input given", im->name);
        return -1;
    }
    if (im->max_inputs && n > im->max_inputs) {
        api_fail("import %s reads one input at a time", im->name);
        return -1;
    }
    rt_import_run r = {paths, n, NULL, NULL, cupti_lib};
    rt_error cerr = {{0}};
    if (im->check && im->check(state, &r, &cerr) != 0) {
        api_fail("import %s: %s", im->name, cerr.msg);
        return -1;
    }
    return im->read(state, &r, p, w, err);
}

/* The identity the command records in every profile it writes (cli_save_profile): this process's,
 * or the rank a trace names (rt_rank_identity_stamp). */
static int stamp(rt_profile *p)
{
    rt_rank_identity *id = api_identity();
    if (!id)
        return -1;
    p->identity = rt_rank_identity_stamp(p->identity, id);
    rt_rank_identity_free(id);
    return 0;
}

rt_profile *rt_api_import_opts(const char *kind, const char *const *paths, size_t n,
                               const rt_api_option *opts, size_t n_opts)
{
    api_begin();
    const char *spec = NULL;
    const rt_importer *im = importer(kind, &spec);
    if (!im)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!paths || !paths[i]) {
            api_fail("import %s: input %zu is not a path", kind, i + 1);
            return NULL;
        }
    void *state = rt_xcalloc(1, im->state_size ? im->state_size : 1);
    rt_tags tags = {0};
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    int rc = -1;
    if ((n_opts == 0 || opts) && parse(im, spec, state, &tags, opts, n_opts) == 0) {
        if ((rc = run(im, state, paths, n, &p, &w, &err)) != 0 && err.msg[0])
            api_fail("%s", err.msg);
        else if (rc == 0 && (rc = stamp(p)) == 0)
            rt_tags_copy(&p->tags, &tags);
    } else if (n_opts && !opts) {
        api_fail("import %s: no options given", kind);
    }
    api_keep_warnings(&w);
    rt_warnings_release(&w);
    if (im->release)
        im->release(state);
    free(state);
    rt_tags_release(&tags);
    if (rc != 0) {
        rt_profile_free(p);
        return NULL;
    }
    return p;
}

rt_profile *rt_api_import(const char *kind, const char *const *paths, size_t n, const char *ai_file,
                          const char *conv)
{
    /* version 1's call: --ai-file of table, --conv-flops of torch and onednn */
    rt_api_option o[1];
    size_t k = 0;
    if (ai_file && kind && strcmp(kind, "table") == 0)
        o[k++] = (rt_api_option){"ai-file", ai_file};
    else if (conv && kind && (strcmp(kind, "torch") == 0 || strcmp(kind, "onednn") == 0))
        o[k++] = (rt_api_option){"conv-flops", conv};
    return rt_api_import_opts(kind, paths, n, o, k);
}
