/* `rooftime analyze`: the verdict per kernel and per config. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli-util.h"
#include "commands.h"

int cmd_analyze(int argc, char **argv)
{
    const char *machine = NULL, *format = "text", *output = NULL, *mode_s = "hier";
    char **group = NULL, **ignore = NULL;
    size_t n_group = 0, n_ignore = 0, top = 20;
    int rc = RT_EXIT_USAGE;
    static const struct option opts[] = {
        {"machine", required_argument, NULL, 'm'}, {"mode", required_argument, NULL, 'M'},
        {"format", required_argument, NULL, 'f'},  {"group-by", required_argument, NULL, 'g'},
        {"ignore", required_argument, NULL, 'i'},  {"top", required_argument, NULL, 't'},
        {"output", required_argument, NULL, 'o'},  {0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "m:f:g:o:", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            machine = optarg;
            break;
        case 'M':
            mode_s = optarg;
            break;
        case 'f':
            format = optarg;
            break;
        case 'g':
            cli_free_list(group, n_group);
            group = cli_split_list(optarg, &n_group);
            break;
        case 'i':
            cli_free_list(ignore, n_ignore);
            ignore = cli_split_list(optarg, &n_ignore);
            break;
        case 't': {
            char *end;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 0 || errno) {
                rc =
                    cli_usage_error("analyze", "--top takes a whole number >= 0, not '%s'", optarg);
                goto out;
            }
            top = (size_t)v;
            break;
        }
        case 'o':
            output = optarg;
            break;
        default:
            rc = cli_usage_error("analyze", "unknown option '%s'", argv[optind - 1]);
            goto out;
        }
    }
    rt_format fmt;
    rt_mode mode;
    if (!machine) {
        rc = cli_usage_error("analyze", "--machine is required");
        goto out;
    }
    if (rt_format_parse(format, &fmt) != 0) {
        rc = cli_usage_error("analyze", "unknown format '%s' (text, csv or json)", format);
        goto out;
    }
    if (rt_mode_parse(mode_s, &mode) != 0) {
        rc = cli_usage_error("analyze", "unknown mode '%s' (single or hier)", mode_s);
        goto out;
    }
    if (optind >= argc) {
        rc = cli_usage_error("analyze", "no profile given");
        goto out;
    }

    rc = RT_EXIT_FAIL;
    rt_error err;
    rt_machine *m = NULL;
    rt_profile **ps = NULL;
    size_t n_ps = (size_t)(argc - optind);
    if (cli_load_inputs(machine, argv + optind, n_ps, &m, &ps) != 0)
        goto out;
    rt_group_opts g = {.keys = (const char *const *)group,
                       .n_keys = n_group,
                       .ignore = (const char *const *)ignore,
                       .n_ignore = n_ignore};
    rt_analysis *a = rt_analysis_new(m, mode, ps, n_ps, &g, &err);
    if (!a) {
        cli_error("%s", err.msg);
    } else {
        cli_print_warnings(&a->warnings, 10);
        rt_atomic_file af = {0};
        FILE *fp = stdout;
        if (output) {
            if (rt_atomic_open(&af, output, &err) != 0) {
                cli_error("%s", err.msg);
                goto done;
            }
            fp = af.fp;
        }
        int wr = fmt == RT_FORMAT_TEXT ? rt_analysis_write_text(a, top, fp)
                                       : rt_analysis_write(a, fmt, fp, &err);
        if (output) {
            if (wr != 0) {
                rt_atomic_abort(&af);
                cli_error("cannot write '%s'", output);
            } else if (rt_atomic_commit(&af, &err) != 0) {
                cli_error("%s", err.msg);
            } else {
                rc = RT_EXIT_OK;
            }
        } else {
            rc = wr == 0 ? RT_EXIT_OK : RT_EXIT_FAIL;
        }
    }
done:
    rt_analysis_free(a);
    cli_free_profiles(ps, n_ps);
    rt_machine_free(m);
out:
    cli_free_list(group, n_group);
    cli_free_list(ignore, n_ignore);
    return rc;
}
