/* `rooftime analyze --across rank FILES...|DIR...`: the profiles of a job's ranks folded one at a
 * time into distributions per kernel and config, stragglers named. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli-across.h"
#include "cli-mpi.h"
#include "cli-output.h"
#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/core/across.h"
#include "rooftime/core/machine.h"
#include "rooftime/formats/across-format.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/render/across-html.h"
#include "rooftime/render/chart-across.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The inputs: files as given, directories as their *.json files in name order. */
static int expand_inputs(char **args, size_t n_args, char ***out, size_t *n_out)
{
    char **v = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < n_args; i++) {
        struct stat st;
        if (stat(args[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
            if (n == cap)
                v = rt_xrealloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
            v[n++] = rt_strdup(args[i]);
            continue;
        }
        DIR *d = opendir(args[i]);
        if (!d) {
            cli_error("cannot read '%s': %s", args[i], strerror(errno));
            rt_free_list(v, n);
            return -1;
        }
        size_t first = n;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            size_t len = strlen(e->d_name);
            if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0 || e->d_name[0] == '.')
                continue;
            if (n == cap)
                v = rt_xrealloc(v, (cap = cap ? 2 * cap : 64) * sizeof *v);
            v[n++] = rt_asprintf("%s/%s", args[i], e->d_name);
        }
        closedir(d);
        if (n == first) {
            cli_error("'%s' holds no .json profile", args[i]);
            rt_free_list(v, n);
            return -1;
        }
        qsort(v + first, n - first, sizeof *v, cmp_str);
    }
    *out = v;
    *n_out = n;
    return 0;
}

char *cli_across_section(rt_profile *const *ps, char *const *paths, size_t n, const rt_machine *m)
{
    rt_across *a = rt_across_new(NULL);
    rt_error err;
    char *html = NULL;
    for (size_t i = 0; i < n; i++) {
        long rank;
        if (rt_across_rank_of(ps[i], paths[i], &rank, &err) != 0 ||
            rt_across_add(a, ps[i], rank, paths[i], &err) != 0) {
            cli_error("%s", err.msg);
            goto out;
        }
    }
    rt_across_finish(a);
    if (!(html = rt_across_section_html(a, m, 50, &err)))
        cli_error("%s", err.msg);
out:
    rt_across_free(a);
    return html;
}

int cli_across_fold(char *const *paths, size_t n, size_t first, size_t step, rt_across *a)
{
    for (size_t i = first; i < n; i += step) {
        rt_profile *p;
        rt_error err;
        if (rt_profile_load(paths[i], &p, &err) != 0) {
            cli_error("%s", err.msg);
            return -1;
        }
        if (cli_comm_tag(p) != 0) {
            rt_profile_free(p);
            return -1;
        }
        long rank;
        int rc = rt_across_rank_of(p, paths[i], &rank, &err) != 0 ||
                 rt_across_add(a, p, rank, paths[i], &err) != 0;
        rt_profile_free(p);
        if (rc != 0) {
            cli_error("%s", err.msg);
            return -1;
        }
    }
    return 0;
}

int cli_across_write(const rt_across *a, const cli_across_opts *o, char *const *inputs,
                     size_t n_inputs)
{
    rt_machine *m = NULL;
    rt_error err;
    if (o->machine && rt_machine_resolve(o->machine, &m, &err) != 0) {
        cli_error("%s", err.msg);
        return RT_EXIT_FAIL;
    }
    int rc = RT_EXIT_OK;
    if (o->chart) {
        if (rt_chart_across_write(a, m, o->chart, &err) != 0) {
            cli_error("%s", err.msg);
            rc = RT_EXIT_FAIL;
        } else {
            fprintf(stderr, "rooftime: analyze: wrote %s\n", o->chart);
        }
    }
    cli_output out;
    if (rc == RT_EXIT_OK &&
        (rc = cli_output_open(&out, "analyze", o->output, inputs, n_inputs)) == 0) {
        int bad;
        if (o->json) {
            bad = rt_across_write_json(a, out.fp) != 0;
        } else {
            bad = rt_across_write_text(a, o->top, out.fp) != 0;
        }
        rc = cli_output_close(&out, bad);
    }
    rt_machine_free(m);
    return rc;
}

int cli_analyze_across(int argc, char **argv)
{
    static const struct option opts[] = {
        {"across", required_argument, NULL, 'A'},  {"machine", required_argument, NULL, 'm'},
        {"format", required_argument, NULL, 'f'},  {"output", required_argument, NULL, 'o'},
        {"top", required_argument, NULL, 't'},     {"straggler", required_argument, NULL, 's'},
        {"slowest", required_argument, NULL, 'k'}, {"chart", required_argument, NULL, 'c'},
        {"mpi", no_argument, NULL, 'P'},           {0}};
    cli_across_opts o = {.top = 20};
    rt_across_opts ao = RT_ACROSS_DEFAULTS;
    bool mpi = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:f:o:", opts, NULL)) != -1) {
        long v;
        switch (c) {
        case 'A':
            if (strcmp(optarg, "rank") != 0)
                return cli_usage_error("analyze", "--across takes 'rank', not '%s'", optarg);
            break;
        case 'm':
            o.machine = optarg;
            break;
        case 'f':
            if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0)
                return cli_usage_error("analyze", "--across writes text or json, not '%s'", optarg);
            o.json = strcmp(optarg, "json") == 0;
            break;
        case 'o':
            o.output = optarg;
            break;
        case 'c':
            o.chart = optarg;
            break;
        case 't':
            if (cli_parse_long(optarg, 0, LONG_MAX, &v) != 0)
                return cli_usage_error("analyze", "--top takes a whole number >= 0, not '%s'",
                                       optarg);
            o.top = (size_t)v;
            break;
        case 'k':
            if (cli_parse_long(optarg, 1, 1000, &v) != 0)
                return cli_usage_error("analyze",
                                       "--slowest takes a whole number from 1 to 1000, "
                                       "not '%s'",
                                       optarg);
            ao.slowest = (size_t)v;
            break;
        case 's':
            if (!rt_parse_double(optarg, &ao.straggler) || !(ao.straggler > 0) ||
                ao.straggler > 100)
                return cli_usage_error("analyze",
                                       "--straggler takes a fraction > 0 (0.2: 20%% above the "
                                       "median), not '%s'",
                                       optarg);
            break;
        case 'P':
            mpi = true;
            break;
        default:
            return cli_option_error("analyze", "analyze --across", c, argv, opts);
        }
    }
    if (optind >= argc)
        return cli_usage_error("analyze", "no profile or directory given");
    char **paths;
    size_t n;
    char *chart = (char *)o.chart, *machine = (char *)o.machine;
    int rc;
    if ((rc = cli_output_check("analyze", o.output, argv + optind, (size_t)(argc - optind))) != 0 ||
        (rc = cli_output_check("analyze", o.chart, argv + optind, (size_t)(argc - optind))) != 0 ||
        (rc = cli_output_check("analyze", o.output, &chart, o.chart ? 1 : 0)) != 0 ||
        (rc = cli_output_check("analyze", o.output, &machine, 1)) != 0 ||
        (rc = cli_output_check("analyze", o.chart, &machine, 1)) != 0)
        return rc;
    if (expand_inputs(argv + optind, (size_t)(argc - optind), &paths, &n) != 0)
        return RT_EXIT_FAIL;
    /* A directory's profiles are inputs too: neither output may be one of them. */
    if ((rc = cli_output_check("analyze", o.output, paths, n)) != 0 ||
        (rc = cli_output_check("analyze", o.chart, paths, n)) != 0) {
        rt_free_list(paths, n);
        return rc;
    }
    if (mpi) {
        rc = cli_across_mpi(paths, n, &ao, &o);
        rt_free_list(paths, n);
        return rc;
    }
    rt_across *a = rt_across_new(&ao);
    rc = RT_EXIT_FAIL;
    if (cli_across_fold(paths, n, 0, 1, a) == 0) {
        rt_across_finish(a);
        rc = cli_across_write(a, &o, paths, n);
    }
    rt_across_free(a);
    rt_free_list(paths, n);
    return rc;
}
