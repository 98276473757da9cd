/* What `study` and `study --gpu` (cmd-study.c, cmd-study-gpu.c) share: their options, parsed in one
 * place, and the writing of their analysis files, findings and report. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli-study.h"
#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/core/analysis-findings.h"
#include "rooftime/core/hints.h"
#include "rooftime/formats/findings-text.h"
#include "rooftime/formats/hints-json.h"
#include "rooftime/study/study-gpu-plan.h"
#include "rooftime/study/study-impls.h"
#include "rooftime/study/study-run.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/strings.h"

int cli_study_flags(const char *opt, const char *list, bool *flags, int n,
                    int (*parse)(const char *, int *, rt_error *))
{
    size_t m;
    char **names = rt_split_list(list, &m);
    for (int i = 0; i < n; i++)
        flags[i] = false;
    int rc = m ? 0 : -1;
    rt_error err = {{0}};
    if (!m) {
        parse("", &(int){0}, &err); /* its message lists the known names */
        const char *known = strstr(err.msg, "(known:");
        cli_usage_error("study", "%s: expected a comma-separated list %s", opt, known ? known : "");
    }
    for (size_t i = 0; i < m && rc == 0; i++) {
        int v;
        if (parse(names[i], &v, &err) < 0) {
            cli_usage_error("study", "%s: %s", opt, err.msg);
            rc = -1;
        } else {
            flags[v] = true;
        }
    }
    rt_free_list(names, m);
    return rc;
}

int cli_study_op_flag(const char *s, int *v, rt_error *err)
{
    rt_study_op x = 0;
    int rc = rt_study_op_parse(s, &x, err);
    *v = (int)x;
    return rc;
}

static int p_impl(const char *s, int *v, rt_error *err)
{
    rt_study_impl x = 0;
    int rc = rt_study_impl_parse(s, &x, err);
    *v = (int)x;
    return rc;
}

static int p_prec(const char *s, int *v, rt_error *err)
{
    rt_precision x = 0;
    int rc = rt_precision_parse(s, &x, err);
    *v = (int)x;
    return rc;
}

static int p_fw(const char *s, int *v, rt_error *err)
{
    rt_gpu_framework x = 0;
    int rc = rt_gpu_framework_parse(s, &x, err);
    *v = (int)x;
    return rc;
}

static int p_gpu_prec(const char *s, int *v, rt_error *err)
{
    rt_gpu_prec x = 0;
    int rc = rt_gpu_prec_parse(s, &x, err);
    *v = (int)x;
    return rc;
}

enum { STUDY_CPU = 1, STUDY_GPU = 2, STUDY_BOTH = 3 };

/* Every option of `study`, and which of its two forms takes it. */
static const struct {
    struct option o;
    int forms;
} study_opts[] = {{{"gpu", no_argument, NULL, 'g'}, STUDY_GPU},
                  {{"output", required_argument, NULL, 'o'}, STUDY_BOTH},
                  {{"quick", no_argument, NULL, 'q'}, STUDY_BOTH},
                  {{"machine", required_argument, NULL, 'm'}, STUDY_BOTH},
                  {{"impl", required_argument, NULL, 'I'}, STUDY_CPU},
                  {{"framework", required_argument, NULL, 'F'}, STUDY_GPU},
                  {{"op", required_argument, NULL, 'O'}, STUDY_BOTH},
                  {{"precision", required_argument, NULL, 'P'}, STUDY_BOTH},
                  {{"iters", required_argument, NULL, 'n'}, STUDY_BOTH},
                  {{"warmup", required_argument, NULL, 'w'}, STUDY_BOTH},
                  {{"mode", required_argument, NULL, 'M'}, STUDY_BOTH},
                  {{"scale", required_argument, NULL, 's'}, STUDY_BOTH},
                  {{"dry-run", no_argument, NULL, 'D'}, STUDY_GPU},
                  {{"no-ncu", no_argument, NULL, 'N'}, STUDY_GPU},
                  {{"from", required_argument, NULL, 'R'}, STUDY_GPU},
                  {{"client-timeout", required_argument, NULL, 'T'}, STUDY_GPU},
                  {{"ncu-clock-control", required_argument, NULL, 'K'}, STUDY_GPU}};
#define N_STUDY_OPTS (sizeof study_opts / sizeof study_opts[0])

/* --iters N or --warmup N into *out; 0, or the exit code of the usage error. */
static int parse_count(const char *opt, const char *s, int lo, int hi, int *out)
{
    long v;
    if (cli_parse_long(s, lo, hi, &v) != 0)
        return cli_usage_error("study", "%s: expected a whole number from %d to %d, got '%s'", opt,
                               lo, hi, s);
    *out = (int)v;
    return 0;
}

/* A list option: the form's own (--impl, --framework, --precision) or --op. */
static int parse_list(int c, const char *arg, cli_study_args *a)
{
    rt_study_opts *cpu = a->cpu;
    rt_study_gpu_opts *gpu = a->gpu;
    int rc;
    if (c == 'I') {
        rc = cli_study_flags("--impl", arg, cpu->impls, RT_IMPL_COUNT, p_impl);
        cpu->pytorch_optional = false; /* asked for by name: it must run */
    } else if (c == 'F') {
        rc = cli_study_flags("--framework", arg, gpu->frameworks, RT_GPU_FW_COUNT, p_fw);
    } else if (c == 'O') {
        rc =
            cli_study_flags("--op", arg, cpu ? cpu->ops : gpu->ops, RT_OP_COUNT, cli_study_op_flag);
    } else if (cpu) {
        rc = cli_study_flags("--precision", arg, cpu->precisions, RT_PREC_COUNT, p_prec);
        cpu->emulated_optional = false; /* asked for by name: an emulated one runs too */
    } else {
        rc = cli_study_flags("--precision", arg, gpu->precisions, RT_GPU_PREC_COUNT, p_gpu_prec);
    }
    return rc < 0 ? RT_EXIT_USAGE : 0;
}

/* One option of either form; 0, or the exit code of the usage error it printed. */
static int study_option(int c, const char *arg, cli_study_args *a)
{
    rt_study_opts *cpu = a->cpu;
    rt_study_gpu_opts *gpu = a->gpu;
    long v;
    switch (c) {
    case 'g':
        return 0;
    case 'o':
        a->dir = arg;
        return 0;
    case 'q':
        *(cpu ? &cpu->quick : &gpu->quick) = true;
        return 0;
    case 'm':
        a->machine = arg;
        return 0;
    case 'M':
        a->mode = arg;
        return 0;
    case 'D':
        a->dry_run = true;
        return 0;
    case 'N':
        a->no_ncu = true;
        return 0;
    case 'R':
        a->from = arg;
        return 0;
    case 'T':
        if (cli_parse_long(arg, 0, 86400, &v) != 0)
            return cli_usage_error(
                "study", "--client-timeout: expected seconds from 0 to 86400, got '%s'", arg);
        a->client_timeout = (double)v;
        return 0;
    case 'K':
        if (strcmp(arg, "base") != 0 && strcmp(arg, "none") != 0)
            return cli_usage_error("study", "--ncu-clock-control: base or none, got '%s'", arg);
        a->ncu_clock = arg;
        return 0;
    case 'n':
        return parse_count("--iters", arg, 1, 100000, cpu ? &cpu->iters : &gpu->iters);
    case 'w':
        return parse_count("--warmup", arg, 0, 1000, cpu ? &cpu->warmup : &gpu->warmup);
    case 's': {
        char *end;
        double *scale = cpu ? &cpu->scale : &gpu->scale;
        *scale = strtod(arg, &end);
        if (*arg == '\0' || *end != '\0' || !(*scale > 0 && *scale <= 1))
            return cli_usage_error("study", "--scale: expected a number in (0, 1], got '%s'", arg);
        return 0;
    }
    default:
        return parse_list(c, arg, a);
    }
}

int cli_study_options(int argc, char **argv, cli_study_args *a)
{
    int form = a->cpu ? STUDY_CPU : STUDY_GPU;
    struct option opts[N_STUDY_OPTS + 1];
    size_t n = 0;
    for (size_t i = 0; i < N_STUDY_OPTS; i++)
        if (study_opts[i].forms & form)
            opts[n++] = study_opts[i].o;
    opts[n] = (struct option){0};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:m:", opts, NULL)) != -1) {
        if (c == '?' || c == ':')
            return cli_option_error("study", a->cpu ? NULL : "study --gpu", c, argv, opts);
        int rc = study_option(c, optarg, a);
        if (rc != 0)
            return rc;
    }
    long v;
    if (a->cpu && optind != argc)
        return cli_usage_error("study", "unexpected argument '%s'", argv[optind]);
    if (!a->cpu && optind < argc) {
        if (optind + 1 < argc || cli_parse_long(argv[optind], 0, 1023, &v) != 0)
            return cli_usage_error("study", "--gpu takes one device INDEX (0 to 1023), got '%s'",
                                   argv[optind]);
        a->gpu->device = (int)v;
    }
    return 0;
}

int cli_study_write_analysis(const rt_analysis *a, rt_format fmt, const char *path)
{
    rt_atomic_file af = {0};
    rt_error err;
    rt_warnings warn = {0};
    int wr =
        rt_atomic_open(&af, path, &err) == 0 ? rt_analysis_write(a, fmt, af.fp, &warn, &err) : -1;
    cli_print_warnings(&warn, 10, NULL);
    rt_warnings_release(&warn);
    if (wr != 0) {
        if (af.fp)
            rt_atomic_abort(&af);
        cli_error("%s", err.msg);
        return -1;
    }
    if (rt_atomic_commit(&af, &err) != 0) {
        cli_error("%s", err.msg);
        return -1;
    }
    return 0;
}

int cli_study_write_analyses(const rt_analysis *a, const char *dir)
{
    char *path = rt_asprintf("%s/analysis.json", dir);
    cli_print_warnings(&a->warnings, 5, path);
    free(path);
    path = rt_asprintf("%s/analysis.txt", dir);
    int rc = cli_study_write_analysis(a, RT_FORMAT_TEXT, path);
    free(path);
    if (rc != 0)
        return -1;
    path = rt_asprintf("%s/analysis.json", dir);
    rc = cli_study_write_analysis(a, RT_FORMAT_JSON, path);
    free(path);
    return rc != 0 ? -1 : 0;
}

char *cli_study_write_report(const rt_machine *m, rt_mode mode, const rt_analysis *a,
                             rt_profile *const *profiles, size_t n, const rt_group_opts *g,
                             const rt_findings *findings, rt_report_opts *ro, const char *dir)
{
    rt_error err = {{0}};
    rt_analysis *hier = NULL;
    rt_findings *callouts = NULL, *summary = NULL;
    rt_verdict_hints hints = {0};
    char *text = rt_findings_text(findings), *path = rt_asprintf("%s/findings.txt", dir);
    int rc = -1;
    if (rt_write_file_atomic(path, text, strlen(text), &err) != 0) {
        cli_error("%s", err.msg);
        goto done;
    }
    /* The report reads the analysis computed above (and, beside a single-mode one, the same
     * profiles in hier mode for the hierarchical roofline): nothing is analysed twice. */
    if (mode != RT_MODE_HIER && !(hier = rt_analysis_new(m, RT_MODE_HIER, profiles, n, g, &err))) {
        cli_error("analysis failed: %s", err.msg);
        goto done;
    }
    callouts = rt_analysis_findings(a);
    if (rt_verdict_hints_load(NULL, &hints, &err) != 0) {
        cli_error("%s", err.msg);
        goto done;
    }
    summary = rt_analysis_summary(a, &hints);
    ro->findings = findings;
    ro->callouts = callouts;
    ro->summary = summary;
    if (rt_report_write(a, hier, profiles, n, ro, dir, &err) != 0) {
        cli_error("cannot write the report: %s", err.msg);
        goto done;
    }
    rc = 0;
done:
    ro->callouts = ro->summary = NULL;
    free(path);
    rt_findings_free(callouts);
    rt_findings_free(summary);
    rt_verdict_hints_release(&hints);
    rt_analysis_free(hier);
    if (rc != 0) {
        free(text);
        return NULL;
    }
    return text;
}
