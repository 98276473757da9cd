/* `rooftime profile -- COMMAND`: run a command with oneDNN verbose on and profile what it ran. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-output.h"
#include "cli-inputs.h"
#include "cli-profile.h"
#include "commands.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/onednn.h"
#include "rooftime/probe/cpu-detect.h"
#include "rooftime/util/error.h"
#include "rooftime/util/line-reader.h"
#include "rooftime/util/spawn.h"
#include "rooftime/util/strings.h"

/* The options: as given, then (the paths) with their placeholders expanded. */
typedef struct profile_opts {
    const char *output, *keep, *steps, *conv, *keep_trace, *onednn_out;
    int torch;
    cli_gpu_opts gpu;
    rt_tags tags;
    char *out_path, *keep_path, *trace_path, *dn_path, *dir_path; /* expanded: freed at the end */
} profile_opts;

/* The options up to the command (argv + optind); 0 or the exit code. */
static int parse_options(int argc, char **argv, profile_opts *o)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"tag", required_argument, NULL, 't'},
                                         {"keep-log", required_argument, NULL, 'k'},
                                         {"torch", no_argument, NULL, 'T'},
                                         {"steps", required_argument, NULL, 'S'},
                                         {"conv-flops", required_argument, NULL, 'c'},
                                         {"keep-trace", required_argument, NULL, 'K'},
                                         {"onednn-output", required_argument, NULL, 'D'},
                                         {"gpu", no_argument, NULL, 'G'},
                                         {"counters", no_argument, NULL, 'C'},
                                         {"per-launch", no_argument, NULL, 'P'},
                                         {"keep-dir", required_argument, NULL, 'R'},
                                         {"no-keep-images", no_argument, NULL, 'I'},
                                         {0}};
    int rc, c;
    optind = 1;
    opterr = 0;
    /* "+": stop at the first non-option, so the command's own options stay its own. */
    while ((c = getopt_long(argc, argv, "+:o:t:", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            o->output = optarg;
            break;
        case 't':
            if ((rc = cli_tag_option("profile", optarg, &o->tags)) != 0)
                return rc;
            break;
        case 'k':
            o->keep = optarg;
            break;
        case 'T':
            o->torch = 1;
            break;
        case 'S':
            o->steps = optarg;
            break;
        case 'c':
            o->conv = optarg;
            break;
        case 'K':
            o->keep_trace = optarg;
            break;
        case 'D':
            o->onednn_out = optarg;
            break;
        case 'G':
            o->gpu.on = 1;
            break;
        case 'C':
            o->gpu.counters = 1;
            break;
        case 'P':
            o->gpu.per_launch = 1;
            break;
        case 'R':
            o->gpu.keep_dir = optarg;
            break;
        case 'I':
            o->gpu.no_keep_images = 1;
            break;
        default:
            return cli_option_error("profile", NULL, c, argv, opts);
        }
    }
    return 0;
}

/* -o (required, as import's) and the other paths with their placeholders expanded; 0 or the
 * exit code. */
static int expand_paths(profile_opts *o)
{
    int rc;
    if ((rc = cli_output_required("profile", o->output, &o->out_path)) != 0)
        return rc;
    o->output = o->out_path;
    if ((rc = cli_output_expand("profile", o->keep, &o->keep_path)) != 0)
        return rc;
    o->keep = o->keep_path;
    if ((rc = cli_output_expand("profile", o->keep_trace, &o->trace_path)) != 0 ||
        (rc = cli_output_expand("profile", o->onednn_out, &o->dn_path)) != 0)
        return rc;
    o->keep_trace = o->trace_path;
    o->onednn_out = o->dn_path;
    if ((rc = cli_output_expand("profile", o->gpu.keep_dir, &o->dir_path)) != 0)
        return rc;
    o->gpu.keep_dir = o->dir_path;
    return 0;
}

/* Options that do not go together, paths that name one file twice, and -o and --keep-log
 * writable; 0 or the exit code. */
static int check_options(const profile_opts *o)
{
    const cli_gpu_opts *gpu = &o->gpu;
    char **out = (char **)&o->output;
    if (!o->torch && (o->steps || o->conv || o->keep_trace || o->onednn_out))
        return cli_usage_error(
            "profile", "--steps, --conv-flops, --keep-trace and --onednn-output are for --torch");
    if (!gpu->on && (gpu->counters || gpu->per_launch || gpu->keep_dir || gpu->no_keep_images))
        return cli_usage_error("profile", "--counters, --per-launch, --keep-dir and "
                                          "--no-keep-images go with --gpu");
    if (gpu->no_keep_images && !gpu->counters)
        return cli_usage_error("profile", "--no-keep-images goes with --counters (the trace run "
                                          "keeps no raw images)");
    if (gpu->on && (o->torch || o->keep))
        return cli_usage_error("profile", "--gpu goes with neither --torch nor --keep-log (use "
                                          "--keep-dir)");
    if (o->torch && o->keep)
        return cli_usage_error("profile", "--keep-log is for oneDNN mode (without --torch)");
    if (o->onednn_out && cli_output_is_input(o->onednn_out, out, 1))
        return cli_usage_error("profile", "--onednn-output '%s' is also the profile (-o)",
                               o->onednn_out);
    if (o->keep_trace && cli_output_is_input(o->keep_trace, out, 1))
        return cli_usage_error("profile", "--keep-trace '%s' is also the profile (-o)",
                               o->keep_trace);
    if (o->keep_trace && o->onednn_out &&
        cli_output_is_input(o->keep_trace, (char **)&o->onednn_out, 1))
        return cli_usage_error("profile", "--keep-trace '%s' is also --onednn-output",
                               o->keep_trace);
    if (gpu->keep_dir && cli_output_is_input(gpu->keep_dir, out, 1))
        return cli_usage_error("profile", "--keep-dir '%s' is also the profile (-o)",
                               gpu->keep_dir);
    if (o->keep && cli_output_is_input(o->keep, out, 1))
        return cli_usage_error("profile", "--keep-log '%s' is also the profile (-o)", o->keep);
    /* Checked before the command runs: a bad path must not cost a whole run. */
    int rc = cli_output_check("profile", o->output, NULL, 0);
    return rc != 0 ? rc : cli_output_check("profile", o->keep, NULL, 0);
}

/* The oneDNN mode: run cmd with verbose on, import its records, save them to -o and the records
 * to --keep-log. Returns the exit code. */
static int profile_onednn(const profile_opts *o, char **cmd, int n_cmd)
{
    rt_warnings warnings = {0};
    rt_profile *p = NULL;
    rt_onednn_reader *r = NULL;
    FILE *log = NULL;
    char *tmp_log = NULL;
    int rc = RT_EXIT_FAIL;
    rt_error err = {{0}};
    if (o->keep) {
        /* Written beside its final name and renamed at the end, so a failed run leaves none. */
        tmp_log = rt_asprintf("%s.tmp.XXXXXX", o->keep);
        int lfd = mkstemp(tmp_log);
        if (lfd < 0 || !(log = fdopen(lfd, "w"))) {
            cli_error("cannot write '%s': %s", o->keep, strerror(errno));
            if (lfd >= 0)
                close(lfd);
            free(tmp_log);
            return rc;
        }
    }
    static const char *const verbose_env[] = {"ONEDNN_VERBOSE=1", "DNNL_VERBOSE=1", NULL};
    rt_spawn_opts so = {.env = verbose_env, .capture_stdout = true, .close_fd = -1};
    rt_child child;
    if (rt_spawn(cmd, &so, &child, &err) != 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    r = rt_onednn_reader_new("the command's output");
    cli_profile_route(child.out_fd, r, log);
    int status = rt_spawn_wait(&child);
    char *command = rt_spawn_command_text(n_cmd, cmd);
    int cmd_failed = status != 0;
    if (child.signal)
        fprintf(stderr, "rooftime: profile: '%s' was killed by signal %d (%s)\n", command,
                child.signal, strsignal(child.signal));
    else if (status >= 0)
        fprintf(stderr, "rooftime: profile: '%s' exited with code %d\n", command, status);
    size_t n_exec = rt_onednn_reader_n_exec(r);
    if (rt_onednn_reader_finish(r, &p, &warnings, &err) != 0) {
        cli_print_warnings(&warnings, 20, NULL);
        /* The reader's own question (was ONEDNN_VERBOSE=1 set?) is for a log: here rooftime set
         * it, so the command's output says only what it held. */
        if (n_exec == 0)
            cli_error("nothing to profile: '%s' printed no oneDNN verbose execution records "
                      "with ONEDNN_VERBOSE=1 and DNNL_VERBOSE=1 set (it may not use oneDNN, or not "
                      "on this path)",
                      command);
        else
            cli_error("%s", err.msg);
        free(command);
        goto out;
    }
    cli_print_warnings(&warnings, 20, NULL);
    free(p->command);
    p->command = rt_strdup_utf8(command);
    p->machine = rt_cpu_describe(); /* the machine it ran on: this one */
    free(command);
    if (cli_save_profile(p, &o->tags, o->output) != 0)
        goto out;
    if (log) {
        int bad = fclose(log) != 0;
        log = NULL;
        if (bad || rename(tmp_log, o->keep) != 0) {
            cli_error("cannot write '%s': %s", o->keep, strerror(errno));
            goto out;
        }
        free(tmp_log);
        tmp_log = NULL;
    }
    fprintf(stderr, "rooftime: profile: %s: %zu kernels from %zu oneDNN calls\n", o->output,
            p->n_kernels, rt_onednn_reader_n_exec(r));
    if (cmd_failed)
        cli_error("the command failed; the profile holds what it ran before");
    rc = cmd_failed ? RT_EXIT_FAIL : RT_EXIT_OK;
out:
    if (log)
        fclose(log);
    if (tmp_log) {
        unlink(tmp_log);
        free(tmp_log);
    }
    rt_onednn_reader_free(r);
    rt_profile_free(p);
    rt_warnings_release(&warnings);
    return rc;
}

int cmd_profile(int argc, char **argv)
{
    profile_opts o = {0};
    int rc = parse_options(argc, argv, &o);
    if (rc == 0)
        rc = expand_paths(&o);
    if (rc == 0 && optind >= argc)
        rc = cli_usage_error("profile", "no command given (put it after --)");
    if (rc == 0)
        rc = check_options(&o);
    char **cmd = argv + optind;
    int n_cmd = argc - optind;
    if (rc == 0)
        rc = o.gpu.on  ? cli_profile_gpu(&o.gpu, cmd, n_cmd, o.output, &o.tags)
             : o.torch ? cli_profile_torch(o.output, &o.tags, o.steps, o.conv, o.keep_trace,
                                           o.onednn_out, n_cmd, cmd)
                       : profile_onednn(&o, cmd, n_cmd);
    free(o.out_path);
    free(o.keep_path);
    free(o.dir_path);
    free(o.trace_path);
    free(o.dn_path);
    rt_tags_release(&o.tags);
    return rc;
}

/* `rooftime profile`: name, entry point, summary and usage (main.c lists it). */
const rt_command rt_cmd_profile = {
    "profile", cmd_profile,
    "run a command and profile it: oneDNN verbose, PyTorch (--torch) or CUDA (--gpu)",
    "rooftime profile [--tag KEY=VALUE]... [--keep-log FILE] -o PROFILE -- COMMAND [ARGS...]\n"
    "rooftime profile --torch [--steps FIRST:LAST] [--conv-flops taps|window] [--keep-trace FILE]\n"
    "                 [--tag KEY=VALUE]... -o PROFILE -- python3 SCRIPT.py [ARGS...]\n"
    "rooftime profile --gpu [--counters [--no-keep-images]] [--per-launch] [--keep-dir DIR]\n"
    "                 -o PROFILE -- COMMAND\n"
    "\n"
    "Runs COMMAND (no shell) with ONEDNN_VERBOSE=1 and DNNL_VERBOSE=1; its standard output is\n"
    "read line by line: oneDNN verbose records are imported (see `import onednn`), everything\n"
    "else is passed through unchanged; its standard error is left alone.\n"
    "  -o, --output FILE    the profile to write (required)\n"
    "  -t, --tag KEY=VALUE  tag the profile (repeatable)\n"
    "      --keep-log FILE  also keep the verbose records there\n"
    "The profile records the launcher's rank, the host and the device; in -o and --keep-log, %r "
    "is\n"
    "the rank, %l the local rank, %s the job size, %h the host, %% a '%' (one file per rank).\n"
    "\n"
    "--torch: profiles an unmodified PyTorch script from the outside: rooftime's runner\n"
    "(data/torch/runner, first on PYTHONPATH) starts torch's profiler (shapes, stacks, modules)\n"
    "before the script and writes its trace at exit; the trace is imported with the cost model\n"
    "(see `import torch`), operators tagged with the user's source line and nn.Module, and the\n"
    "command's wall time recorded with the share the operators explain.\n"
    "      --steps FIRST:LAST  only what runs after optimizer step FIRST ends up to the end of\n"
    "                       step LAST (steady state; FIRST 0: from the start)\n"
    "      --conv-flops taps|window  convolution and pooling FLOPs (default taps)\n"
    "      --keep-trace FILE  also keep the trace\n"
    "      --onednn-output FILE  also run with oneDNN verbose on and write the oneDNN profile of\n"
    "                       the same run there (its whole run; `diff` compares two of them)\n"
    "                       (--keep-trace and --onednn-output take the placeholders of -o)\n"
    "\n"
    "--gpu: CUDA kernels instead, collected in-process with CUPTI (librooftime-cupti.so through\n"
    "CUDA_INJECTION64_PATH): a trace run gives each kernel's time, grid, block, stream and\n"
    "launch call time.\n"
    "      --counters       and a second run with counters (Range Profiler, kernel replay) for\n"
    "                       FLOPs and bytes (the formulas of `import ncu`); needs profiling\n"
    "                       rights. The collector's directory, with the raw counter images\n"
    "                       (about 240 KB per launch on an H100), is kept beside the profile\n"
    "                       (run.cupti/ for -o run.json, replacing a previous run's) or in\n"
    "                       --keep-dir DIR, for `import cupti DIR --reevaluate`; the profile's\n"
    "                       provenance names it\n"
    "      --no-keep-images  with --counters: keep no raw images (nor run.cupti/)\n"
    "      --per-launch     one kernel per launch instead of per name\n"
    "      --keep-dir DIR   keep the collector's output there (`import cupti DIR` reads it;\n"
    "                       the placeholders of -o)\n"
    "Exit code 0 when the command succeeded and what it ran was profiled; 1 when the command\n"
    "could not start, left nothing to profile (no oneDNN records, no trace, no kernels), or\n"
    "failed (the profile of what it ran is still written); 2 usage. See\n"
    "docs/import-frameworks.md and docs/import-cupti.md.",
    "  rooftime profile --torch --steps 1:3 -o run.json -- python3 train.py   # into run.json\n"
    "  rooftime profile -o run.json -- ./my_onednn_app   # oneDNN's primitives; its output "
    "passes\n"
    "  rooftime profile --gpu --counters -o run.json -- python3 train.py   # and run.cupti/\n"};
