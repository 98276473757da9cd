/* The inputs the commands share: comma lists, tags, the machine and the profiles, the analysis
 * options (--reference, --tau, --mode), warnings. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/comm.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/core/reference-ceiling.h"
#include "rooftime/formats/comm-json.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/util/format.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

int cli_comm_tag(rt_profile *p)
{
    static rt_comm_patterns patterns;
    static int state; /* 0 unread, 1 read, -1 failed */
    rt_error err;
    if (state == 0)
        state = rt_comm_patterns_load(NULL, &patterns, &err) == 0 ? 1 : -1;
    if (state < 0) {
        cli_error("communication kernel patterns: %s", err.msg);
        state = -2;
    }
    if (state < 0)
        return -1;
    rt_comm_tag_profile(&patterns, p);
    return 0;
}

int cli_load_profiles(char **paths, size_t n, rt_profile ***out)
{
    rt_profile **ps = rt_xcalloc(n ? n : 1, sizeof *ps);
    for (size_t i = 0; i < n; i++) {
        rt_error err;
        int bad = rt_profile_load(paths[i], &ps[i], &err) != 0;
        if (bad)
            cli_error("%s", err.msg);
        if (bad || cli_comm_tag(ps[i]) != 0) {
            cli_free_profiles(ps, i + !bad);
            return -1;
        }
    }
    *out = ps;
    return 0;
}

void cli_free_profiles(rt_profile **ps, size_t n)
{
    for (size_t i = 0; i < n; i++)
        rt_profile_free(ps[i]);
    free(ps);
}

bool cli_frees_at_exit(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return true;
#else
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#endif
#endif
    const char *e = getenv("ROOFTIME_FREE_AT_EXIT");
    return e && *e && strcmp(e, "0") != 0;
#endif
}

int cli_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int cli_tag_option(const char *cmd, const char *arg, rt_tags *tags)
{
    if (cli_parse_tag(arg, tags) != 0)
        return cli_usage_error(cmd, "--tag takes key=value, not '%s'", arg);
    return 0;
}

int cli_parse_tag(const char *arg, rt_tags *tags)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return -1;
    char *key = rt_strndup(arg, (size_t)(eq - arg));
    rt_tags_set(tags, key, eq + 1);
    free(key);
    return 0;
}

void cli_print_warnings(const rt_warnings *w, size_t max, const char *all)
{
    size_t shown = w->n < max ? w->n : max;
    for (size_t i = 0; i < shown; i++)
        cli_warning("%s", w->msg[i]);
    if (w->n > shown && all)
        cli_warning("%zu more warnings not shown (%s lists them all)", w->n - shown, all);
    else if (w->n > shown)
        cli_warning("%zu more warnings not shown", w->n - shown);
}

typedef struct input_id {
    dev_t dev;
    ino_t ino;
    size_t i; /* its place on the command line */
} input_id;

static int id_cmp(const void *a, const void *b)
{
    const input_id *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

int cli_inputs_distinct(const char *cmd, char *const *paths, size_t n)
{
    input_id *ids = rt_xcalloc(n ? n : 1, sizeof *ids);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0 && S_ISREG(st.st_mode)) /* the rest fail when loaded */
            ids[k++] = (input_id){st.st_dev, st.st_ino, i};
    }
    qsort(ids, k, sizeof *ids, id_cmp); /* n log n: a thousand rank files */
    int rc = 0;
    for (size_t j = 1; j < k && rc == 0; j++)
        if (ids[j].dev == ids[j - 1].dev && ids[j].ino == ids[j - 1].ino) {
            const char *a = paths[ids[j - 1].i], *b = paths[ids[j].i];
            rc = strcmp(a, b) == 0
                     ? cli_usage_error(cmd, "'%s' is given twice: its kernels would count twice", a)
                     : cli_usage_error(
                           cmd, "'%s' and '%s' are one file: its kernels would count twice", a, b);
        }
    free(ids);
    return rc;
}

int cli_load_inputs(const char *machine, char **paths, size_t n, rt_machine **m, rt_profile ***ps)
{
    rt_error err;
    *m = NULL;
    *ps = NULL;
    if (rt_machine_resolve(machine, m, &err) != 0) {
        cli_error("%s", err.msg);
        return -1;
    }
    if (cli_load_profiles(paths, n, ps) != 0) {
        rt_machine_free(*m);
        *m = NULL;
        return -1;
    }
    return 0;
}

int cli_analysis_option(cli_analysis_opts *o, int c, const char *arg)
{
    switch (c) {
    case 'm':
        o->machine = arg;
        return 1;
    case 'M':
        o->mode = arg;
        return 1;
    case 'g':
        rt_free_list(o->group, o->n_group);
        o->group = rt_split_list(arg, &o->n_group);
        return 1;
    case 'i':
        rt_free_list(o->ignore, o->n_ignore);
        o->ignore = rt_split_list(arg, &o->n_ignore);
        return 1;
    case CLI_OPT_REFERENCE:
        o->reference = arg;
        return 1;
    case CLI_OPT_TAU:
        o->tau = arg;
        return 1;
    }
    return 0;
}

int cli_analysis_apply(const cli_analysis_opts *o, const char *cmd, rt_machine *m, rt_profile **ps,
                       size_t n)
{
    rt_error err;
    if (rt_reference_tau_apply(m, ps, n, o->reference, o->tau, "--tau", &err) != 0)
        return cli_usage_error(cmd, "%s", err.msg);
    return 0;
}

int cli_analysis_finish(const cli_analysis_opts *o, const char *cmd, const char *default_mode,
                        rt_mode *mode, rt_group_opts *g)
{
    if (!o->machine)
        return cli_usage_error(cmd, "--machine is required");
    const char *m = o->mode ? o->mode : default_mode;
    rt_error err;
    if (rt_mode_parse(m, mode, &err) != 0)
        return cli_usage_error(cmd, "%s", err.msg);
    *g = (rt_group_opts){.keys = (const char *const *)o->group,
                         .n_keys = o->n_group,
                         .ignore = (const char *const *)o->ignore,
                         .n_ignore = o->n_ignore};
    return 0;
}

void cli_analysis_release(cli_analysis_opts *o)
{
    rt_free_list(o->group, o->n_group);
    rt_free_list(o->ignore, o->n_ignore);
    o->group = o->ignore = NULL;
    o->n_group = o->n_ignore = 0;
}
