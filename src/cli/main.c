/* `rooftime`: dispatches subcommands from one table. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "rooftime-config.h"
#include "rooftime/import/ncu-metric-list.h"

/* `rooftime help`: name, entry point, summary and usage (main.c lists it). */
const rt_command rt_cmd_help = {"help", cmd_help, "show help for rooftime or one command",
                                "rooftime help [COMMAND]",
                                "  rooftime help import       # import's options on standard "
                                "output, as `rooftime import --help`\n"};

/* The one table of subcommands: help, usage errors and completion all read it. Each command
 * defines its entry (name, summary, usage) in its own cmd-<name>.c. */
/* clang-format off */
const rt_command *const rt_commands[] = {
    &rt_cmd_help,
    &rt_cmd_machine,
    &rt_cmd_analyze,
    &rt_cmd_import,
    &rt_cmd_profile,
    &rt_cmd_diff,
    &rt_cmd_ncu_metrics,
    &rt_cmd_plot,
    &rt_cmd_report,
    &rt_cmd_completion,
    &rt_cmd_study,
};
/* clang-format on */
const size_t rt_n_commands = sizeof rt_commands / sizeof rt_commands[0];

static const rt_command *find_command(const char *name)
{
    for (size_t i = 0; i < rt_n_commands; i++)
        if (strcmp(rt_commands[i]->name, name) == 0)
            return rt_commands[i];
    return NULL;
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("rooftime: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void cli_warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("rooftime: warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* A command's usage, with @GPU_ARCHS@ replaced by the GPU generations rooftime knows (the table
 * of data/gpu/architectures.json, not a list kept by hand). */
static void print_usage_text(FILE *fp, const char *usage)
{
    const char *at = strstr(usage, "@GPU_ARCHS@");
    if (!at) {
        fprintf(fp, "%s\n", usage);
        return;
    }
    char names[256];
    rt_ncu_arch_names(names, sizeof names, ", ");
    fprintf(fp, "%.*s%s%s\n", (int)(at - usage), usage, names, at + strlen("@GPU_ARCHS@"));
}

void cli_print_usage(const char *name, FILE *fp)
{
    const rt_command *c = find_command(name);
    if (c) {
        fputs("usage: ", fp);
        print_usage_text(fp, c->usage);
    }
}

/* After a usage error, the command's synopsis (its usage up to the first blank line) and where
 * the rest is: the error stays on the screen, not above the whole help. */
static void print_synopsis(const char *name, FILE *fp)
{
    const rt_command *c = find_command(name);
    if (!c)
        return;
    const char *end = strstr(c->usage, "\n\n");
    fprintf(fp, "usage: %.*s\n", end ? (int)(end - c->usage) : (int)strlen(c->usage), c->usage);
    if (end)
        fprintf(fp, "(`rooftime %s --help` for the options)\n", c->name);
}

int cli_usage_error(const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("rooftime: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    print_synopsis(name, stderr);
    return RT_EXIT_USAGE;
}

int cli_option_error(const char *name, const char *sub, int c, char *const *argv,
                     const struct option *longopts)
{
    /* The element getopt_long stopped at: a long option and one that lacks its value are always
     * the last it passed; an unknown short option may sit inside a cluster ("-dash.json"), which
     * only optopt names. */
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    size_t len = strcspn(arg, "=");
    int is_long = strncmp(arg, "--", 2) == 0 && len > 2;
    char sub_text[96] = "";
    if (sub)
        snprintf(sub_text, sizeof sub_text, " for '%s'", sub);
    if (c == ':') {
        if (is_long)
            return cli_usage_error(name, "option '%.*s' needs a value", (int)len, arg);
        return cli_usage_error(name, "option '-%c' needs a value", optopt);
    }
    if (optopt == 0) { /* a long option none of the command's names, or a prefix of several */
        char several[256] = "";
        size_t n = 0, used = 0;
        for (const struct option *o = longopts; is_long && o && o->name; o++)
            if (strncmp(o->name, arg + 2, len - 2) == 0 && used < sizeof several)
                used += (size_t)snprintf(several + used, sizeof several - used, "%s--%s",
                                         n++ ? ", " : "", o->name);
        if (n > 1)
            return cli_usage_error(name, "option '%.*s' is ambiguous (%s)", (int)len, arg, several);
        return cli_usage_error(name, "unknown option '%.*s'%s", (int)len, arg, sub_text);
    }
    if (is_long && arg[len] == '=') {
        /* "--hints=x": a known option that takes no value, if its name is the one passed */
        for (const struct option *o = longopts; o && o->name; o++)
            if (o->val == optopt && strncmp(o->name, arg + 2, len - 2) == 0)
                return cli_usage_error(name, "option '--%s' takes no value", o->name);
    }
    if (optopt > ' ' && optopt < 127) {
        /* "-dash.json": a file name read as options */
        const char *hint = "";
        for (int i = 1; argv[i] && strcmp(argv[i], "--") != 0; i++)
            if (argv[i][0] == '-' && argv[i][1] != '-' && strchr(argv[i], optopt) &&
                strpbrk(argv[i], "./"))
                hint = " (a file whose name starts with '-' goes after --, or as ./NAME)";
        return cli_usage_error(name, "unknown option '-%c'%s%s", optopt, sub_text, hint);
    }
    return cli_usage_error(name, "unknown option '%s'%s", arg, sub_text);
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    }
    return 0;
}

static void print_overview(FILE *fp)
{
    fprintf(fp, "rooftime %s: the time-based hierarchical roofline\n\n", RT_VERSION);
    fprintf(fp, "usage: rooftime COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < rt_n_commands; i++)
        fprintf(fp, "  %-12s %s\n", rt_commands[i]->name, rt_commands[i]->summary);
    fprintf(fp, "\n`rooftime help COMMAND` or `rooftime COMMAND --help` for one command.\n"
                "Exit codes: 0 ok, 1 bad data or a failed run, 2 usage.\n");
}

/* `rooftime help NAME` and `rooftime NAME --help`: the summary, the usage, the examples. */
static void print_help(const rt_command *c)
{
    printf("rooftime %s: %s\n\nusage: ", c->name, c->summary);
    print_usage_text(stdout, c->usage);
    if (c->examples)
        printf("\nexamples:\n%s", c->examples);
}

int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stdout);
        return RT_EXIT_OK;
    }
    /* `rooftime help --help`: help's own usage */
    int self = strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0;
    const rt_command *c = self ? &rt_cmd_help : find_command(argv[1]);
    if (!c)
        return cli_usage_error("help", "unknown command '%s'", argv[1]);
    print_help(c);
    return RT_EXIT_OK;
}

int main(int argc, char **argv)
{
    int rc;
    if (argc < 2) {
        print_overview(stderr);
        return RT_EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        print_overview(stdout);
        rc = RT_EXIT_OK;
    } else if (strcmp(argv[1], "--version") == 0) {
        printf("rooftime %s\n", RT_VERSION);
        rc = RT_EXIT_OK;
    } else {
        const rt_command *c = find_command(argv[1]);
        if (!c) {
            cli_error("unknown command '%s' (see `rooftime help`)", argv[1]);
            return RT_EXIT_USAGE;
        }
        if (c->run != cmd_help && cli_wants_help(argc - 1, argv + 1)) {
            print_help(c);
            rc = RT_EXIT_OK;
        } else {
            rc = c->run(argc - 1, argv + 1);
        }
    }
    /* A full disk is an error too. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("cannot write to standard output");
        return RT_EXIT_FAIL;
    }
    return rc;
}
