/* The API's `rooftime import KIND`: each importer's options as name/value pairs, named and checked
 * as the command names and checks them (src/cli/cmd-import-*.c), then the same importer. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api-internal.h"
#include "rooftime/api/api.h"
#include "rooftime/import/conv-flops.h"
#include "rooftime/import/cupti.h"
#include "rooftime/import/ncu-metric-list.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/import/ncu.h"
#include "rooftime/import/onednn.h"
#include "rooftime/import/table.h"
#include "rooftime/formats/comm-json.h"
#include "rooftime/import/torch-cost.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/strings.h"

/* Each importer's options, the long names of `rooftime import KIND --help`: "name" a flag,
 * "name=" one value (the last given wins, as on the command line), "name=*" repeatable. */
static const char *const kinds[][2] = {
    {"ncu", "metrics=\ntensor-factor=\narch=\nrecipe=\nallow-missing\nper-launch\ntag=*\n"},
    {"table", "ai-file=\nmap=*\nno-defaults\nname-column=*\ntime=\ntag=*\n"},
    {"onednn", "conv-flops=\nthreads=\ntag=*\n"},
    {"torch", "within=\nconv-flops=\nops=\nno-cost-model\nhost\nthreads=\ntag=*\n"},
    {"cupti", "reevaluate\nper-launch\nmetrics=\ntag=*\n"},
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

const char *rt_api_import_options(const char *kind)
{
    api_begin();
    for (size_t i = 0; kind && i < N_KINDS; i++)
        if (strcmp(kind, kinds[i][0]) == 0)
            return kinds[i][1];
    api_fail("import: unknown kind '%s' (ncu, table, torch, onednn or cupti)",
             kind ? kind : "(none)");
    return NULL;
}

/* What name is in spec: 'f' a flag, '=' a value, '*' repeatable; 0 when not an option of it. */
static char option_kind(const char *spec, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = spec; *s;) {
        const char *end = strchr(s, '\n');
        if (strncmp(s, name, n) == 0 && (s[n] == '\n' || s[n] == '='))
            return s[n] == '\n' ? 'f' : s[n + 1] == '*' ? '*' : '=';
        s = end + 1;
    }
    return 0;
}

/* The options given, in the importers' own structures. */
typedef struct import_state {
    const char *kind;
    rt_ncu_options ncu;
    rt_table_options table;
    rt_table_map *map;
    char **map_text; /* the QUANTITY=COLUMN values, split in copies */
    const char **names;
    size_t n_map, n_names;
    rt_cupti_options cupti;
    int reevaluate;
    const char *within, *ops_file;
    int no_model, host;
    rt_conv_flops conv;
    int threads; /* onednn, torch: what ran the kernels; 0 unknown */
    rt_tags tags;
} import_state;

/* One option (its name and kind checked): 0, or -1 with the error set as the command words it. */
static int apply(import_state *s, const char *name, const char *v)
{
    const char *k = s->kind;
    rt_error err = {{0}};
    if (strcmp(name, "metrics") == 0) {
        s->ncu.metrics_file = s->cupti.metrics_file = v;
    } else if (strcmp(name, "tensor-factor") == 0) {
        char *end;
        errno = 0;
        s->ncu.tensor_factor = strtod(v, &end);
        if (!*v || *end || errno || !(s->ncu.tensor_factor > 0)) {
            api_fail("import %s: --tensor-factor takes a number > 0, not '%s'", k, v);
            return -1;
        }
    } else if (strcmp(name, "arch") == 0) {
        if (rt_ncu_parse_arch(v) < 0) {
            char msg[512];
            rt_ncu_arch_message(msg, sizeof msg, v);
            api_fail("import %s: %s", k, msg);
            return -1;
        }
        s->ncu.arch = v;
    } else if (strcmp(name, "recipe") == 0) {
        s->ncu.recipe = v; /* checked against the mapping's recipes when it is loaded */
    } else if (strcmp(name, "allow-missing") == 0) {
        s->ncu.allow_missing = true;
    } else if (strcmp(name, "per-launch") == 0) {
        s->ncu.per_launch = s->cupti.per_launch = true;
    } else if (strcmp(name, "ai-file") == 0) {
        s->table.ai_file = v;
    } else if (strcmp(name, "map") == 0) {
        const char *eq = strchr(v, '=');
        if (!eq || eq == v || !eq[1]) {
            api_fail("import %s: --map takes quantity=column, not '%s'", k, v);
            return -1;
        }
        s->map = rt_xrealloc(s->map, (s->n_map + 1) * sizeof *s->map);
        s->map_text = rt_xrealloc(s->map_text, (s->n_map + 1) * sizeof *s->map_text);
        char *q = s->map_text[s->n_map] = rt_strdup(v);
        q[eq - v] = '\0';
        s->map[s->n_map++] = (rt_table_map){.quantity = q, .column = q + (eq - v) + 1};
    } else if (strcmp(name, "no-defaults") == 0) {
        s->table.no_defaults = true;
    } else if (strcmp(name, "name-column") == 0) {
        s->names = rt_xrealloc(s->names, (s->n_names + 1) * sizeof *s->names);
        s->names[s->n_names++] = v;
    } else if (strcmp(name, "time") == 0) {
        if (rt_time_kind_parse(v, &s->table.time_kind, &err) != 0) {
            api_fail("import %s: --time: %s", k, err.msg);
            return -1;
        }
    } else if (strcmp(name, "conv-flops") == 0) {
        if (rt_conv_flops_parse(v, &s->conv, &err) != 0) {
            api_fail("import %s: --conv-flops: %s", k, err.msg);
            return -1;
        }
    } else if (strcmp(name, "threads") == 0) {
        char *end;
        long t = strtol(v, &end, 10);
        if (end == v || *end || t < 1 || t > RT_MAX_THREADS) {
            api_fail("import %s: --threads: '%s' is not a thread count (1 to %d)", k, v,
                     RT_MAX_THREADS);
            return -1;
        }
        s->threads = (int)t;
    } else if (strcmp(name, "within") == 0) {
        s->within = v;
    } else if (strcmp(name, "ops") == 0) {
        s->ops_file = v;
    } else if (strcmp(name, "no-cost-model") == 0) {
        s->no_model = 1;
    } else if (strcmp(name, "host") == 0) {
        s->host = 1;
    } else if (strcmp(name, "reevaluate") == 0) {
        s->reevaluate = 1;
    } else if (strcmp(name, "tag") == 0) {
        const char *eq = strchr(v, '=');
        if (!eq || eq == v) {
            api_fail("import %s: --tag takes key=value, not '%s'", k, v);
            return -1;
        }
        char *key = rt_strndup(v, (size_t)(eq - v));
        rt_tags_set(&s->tags, key, eq + 1);
        free(key);
    }
    return 0;
}

static int parse(import_state *s, const char *spec, const rt_api_option *opts, size_t n_opts)
{
    for (size_t i = 0; i < n_opts; i++) {
        const char *name = opts[i].name, *v = opts[i].value;
        char kind = name ? option_kind(spec, name) : 0;
        if (!kind) {
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
            api_fail("import %s: unknown option '%s' (it takes %s)", s->kind,
                     name ? name : "(none)", list);
            return -1;
        }
        if (kind == 'f' && v) {
            api_fail("import %s: --%s takes no value, not '%s'", s->kind, name, v);
            return -1;
        }
        if (kind != 'f' && !v) {
            api_fail("import %s: --%s needs a value", s->kind, name);
            return -1;
        }
        if (apply(s, name, v) != 0)
            return -1;
    }
    return 0;
}

static void add_warning(void *ctx, const char *msg)
{
    rt_warnings_add(ctx, "%s", msg);
}

/* The scratch directory of --reevaluate and the files in it. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *p = rt_asprintf("%s/%s", dir, e->d_name);
        unlink(p);
        free(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* `import cupti --reevaluate`: dir's raw images evaluated again into a scratch directory (*out). */
static int reevaluate(const char *dir, char **out, rt_warnings *w)
{
    *out = NULL;
    if (rt_cupti_image_manifests(dir) == 0) {
        api_fail("import cupti: --reevaluate: '%s' holds no raw counter images (images.PID.csv): "
                 "`profile --gpu --counters` keeps them in run.cupti/ beside run.json, or in "
                 "--keep-dir DIR",
                 dir);
        return -1;
    }
    char *lib = api_find_cupti_lib();
    if (!lib) {
        char *why = rt_strdup(rt_api_error());
        api_fail("--reevaluate: %s", why);
        free(why);
        return -1;
    }
    int rc = -1;
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL); /* left loaded, as the command leaves it */
    rt_cupti_reevaluate_fn fn =
        h ? (rt_cupti_reevaluate_fn)dlsym(h, RT_CUPTI_REEVALUATE_SYMBOL) : NULL;
    if (!h) {
        api_fail("--reevaluate: cannot load %s: %s", lib, dlerror());
    } else if (!fn) {
        api_fail("--reevaluate: %s has no %s (a collector older than this rooftime?)", lib,
                 RT_CUPTI_REEVALUATE_SYMBOL);
    } else {
        const char *tmp = getenv("TMPDIR");
        char *s = rt_asprintf("%s/rooftime-reevaluate-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        char err[4096] = "";
        if (!mkdtemp(s)) {
            api_fail("--reevaluate: cannot create a directory '%s': %s", s, strerror(errno));
            free(s);
        } else if (fn(dir, s, add_warning, w, err, sizeof err) < 0) {
            api_fail("%s", err);
            remove_dir(s);
            free(s);
        } else {
            *out = s;
            rc = 0;
        }
    }
    free(lib);
    return rc;
}

/* The importer of s->kind on the inputs: 0, or -1 with err set (or the API's error, err empty). */
static int run(import_state *s, const char *const *paths, size_t n, rt_profile **p, rt_warnings *w,
               rt_error *err)
{
    const char *k = s->kind;
    if (n == 0) {
        api_fail("import %s: no input given", k);
        return -1;
    }
    if (strcmp(k, "ncu") == 0)
        return rt_import_ncu(paths, n, &s->ncu, p, w, err);
    if (n > 1) {
        api_fail("import %s reads one input at a time", k);
        return -1;
    }
    if (strcmp(k, "table") == 0) {
        s->table.map = s->map;
        s->table.n_map = s->n_map;
        s->table.name_columns = s->names;
        s->table.n_name_columns = s->n_names;
        return rt_import_table(paths[0], &s->table, p, w, err);
    }
    /* every importer checks its result (rt_import_check): values no profile may hold are an
     * error naming the input */
    if (strcmp(k, "onednn") == 0) {
        if (rt_import_onednn_conv(paths[0], s->conv, p, w, err) != 0)
            return -1;
        (*p)->threads = s->threads;
        return 0;
    }
    if (strcmp(k, "torch") == 0) {
        rt_torch_ops *ops = NULL;
        if (!s->no_model && rt_torch_ops_load(s->ops_file, &ops, err) != 0)
            return -1;
        rt_comm_patterns comm = {0}; /* a GPU trace's communication kernels carry no work */
        if (rt_comm_patterns_load(NULL, &comm, err) != 0) {
            rt_torch_ops_free(ops);
            return -1;
        }
        rt_torch_options to = {.within = s->within,
                               .ops = ops,
                               .conv = s->conv,
                               .by_source = 1,
                               .host = s->host,
                               .comm = &comm};
        int rc = rt_import_torch_opts(paths[0], &to, p, w, err);
        rt_torch_ops_free(ops);
        rt_comm_patterns_release(&comm);
        if (rc == 0)
            (*p)->threads = s->threads;
        return rc;
    }
    /* cupti */
    char *scratch = NULL;
    if (s->reevaluate && reevaluate(paths[0], &scratch, w) != 0)
        return -1;
    s->cupti.ranges_dir = scratch;
    int rc = rt_import_cupti(paths[0], &s->cupti, p, w, err);
    if (scratch)
        remove_dir(scratch);
    free(scratch);
    return rc;
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
    const char *spec = rt_api_import_options(kind); /* begins the call */
    if (!spec)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!paths || !paths[i]) {
            api_fail("import %s: input %zu is not a path", kind, i + 1);
            return NULL;
        }
    import_state s = {.kind = kind, .conv = RT_CONV_TAPS};
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    int rc = -1;
    if ((n_opts == 0 || opts) && parse(&s, spec, opts, n_opts) == 0) {
        if ((rc = run(&s, paths, n, &p, &w, &err)) != 0 && err.msg[0])
            api_fail("%s", err.msg);
        else if (rc == 0 && (rc = stamp(p)) == 0)
            rt_tags_copy(&p->tags, &s.tags);
    } else if (n_opts && !opts) {
        api_fail("import %s: no options given", kind);
    }
    api_keep_warnings(&w);
    rt_warnings_release(&w);
    for (size_t i = 0; i < s.n_map; i++)
        free(s.map_text[i]);
    free(s.map_text);
    free(s.map);
    free(s.names);
    rt_tags_release(&s.tags);
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
