/* `rooftime profile --gpu -- COMMAND`: run it under the CUPTI collector (a trace run, and with
 * --counters a counter run), then import the collector's directory; with --counters, the
 * directory, raw counter images included, is kept beside the profile (run.cupti/ for run.json). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli-cupti.h"
#include "cli-output.h"
#include "cli-inputs.h"
#include "cli-profile.h"
#include "commands.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/cupti-dir.h"
#include "rooftime/import/cupti.h"
#include "rooftime/util/error.h"
#include "rooftime/util/spawn.h"
#include "rooftime/util/strings.h"

/* A driver and a device, asked through libcuda.so.1 itself: CUPTI's chip queries crash without
 * one, so this is checked before anything runs. 0, or -1 with the reason in msg. */
/* Whether a CUDA device is there; the compute capabilities (70 for 7.0) of up to 16 devices into
 * sms, their number into *n_sms. */
static int check_driver(char *msg, size_t n, int *sms, size_t *n_sms)
{
    *n_sms = 0;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(msg, n,
                 "no CUDA driver: libcuda.so.1 cannot be loaded (%s); `profile --gpu` needs an "
                 "NVIDIA GPU and its driver",
                 dlerror());
        return -1;
    }
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
    int (*count)(int *) = (int (*)(int *))dlsym(h, "cuDeviceGetCount");
    int (*get)(int *, int) = (int (*)(int *, int))dlsym(h, "cuDeviceGet");
    int (*attr)(int *, int, int) = (int (*)(int *, int, int))dlsym(h, "cuDeviceGetAttribute");
    int rc = -1, devices = 0, r;
    if (!init || !count)
        snprintf(msg, n, "libcuda.so.1 lacks cuInit or cuDeviceGetCount");
    else if ((r = init(0)) != 0)
        snprintf(msg, n, "no usable GPU: cuInit failed with CUDA error %d", r);
    else if ((r = count(&devices)) != 0 || devices < 1)
        snprintf(msg, n, "no CUDA device (cuDeviceGetCount: error %d, %d devices)", r, devices);
    else
        rc = 0;
    /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR and _MINOR are 75 and 76. */
    for (int d = 0; rc == 0 && get && attr && d < devices && *n_sms < 16; d++) {
        int dev = 0, major = 0, minor = 0;
        if (get(&dev, d) == 0 && attr(&major, 75, dev) == 0 && attr(&minor, 76, dev) == 0)
            sms[(*n_sms)++] = major * 10 + minor;
    }
    dlclose(h);
    return rc;
}

/* One run of the command with the collector in the given mode; 1 when the command failed. */
static int run_once(char **cmd, const char *command, const char *lib, const char *dir,
                    const char *mode, const char *metrics, int keep)
{
    char *e_lib = rt_asprintf("CUDA_INJECTION64_PATH=%s", lib);
    /* The library's own path, for the command's rooftime_cupti_mark calls (cupti.h). */
    char *e_clib = rt_asprintf("ROOFTIME_CUPTI_LIB=%s", lib);
    char *e_dir = rt_asprintf("ROOFTIME_CUPTI_DIR=%s", dir);
    char *e_mode = rt_asprintf("ROOFTIME_CUPTI_MODE=%s", mode);
    char *e_met = rt_asprintf("ROOFTIME_CUPTI_METRICS=%s", metrics ? metrics : "");
    const char *env[] = {
        e_lib,  e_clib, e_dir,
        e_mode, e_met,  keep ? "ROOFTIME_CUPTI_KEEP_IMAGES=1" : "ROOFTIME_CUPTI_KEEP_IMAGES=0",
        NULL};
    int failed = -1;
    rt_spawn_opts so = {.env = env, .close_fd = -1};
    rt_child child;
    rt_error err;
    if (rt_spawn(cmd, &so, &child, &err) != 0) {
        cli_error("%s", err.msg);
    } else {
        int status = rt_spawn_wait(&child);
        failed = status != 0;
        if (child.signal)
            fprintf(stderr, "rooftime: profile: %s run: '%s' was killed by signal %d (%s)\n", mode,
                    command, child.signal, strsignal(child.signal));
        else
            fprintf(stderr, "rooftime: profile: %s run: '%s' exited with code %d\n", mode, command,
                    status);
    }
    free(e_lib);
    free(e_clib);
    free(e_dir);
    free(e_mode);
    free(e_met);
    return failed;
}

int cli_profile_gpu(const cli_gpu_opts *o, char **cmd, int n_cmd, const char *output,
                    const rt_tags *tags)
{
    char msg[1024];
    char *lib = NULL, *dir = NULL, *metrics = NULL, *command = NULL;
    char *image_dir = NULL; /* run.cupti for run.json: where the collector's directory goes */
    rt_profile *p = NULL;
    rt_warnings warnings = {0};
    int rc = RT_EXIT_FAIL, made_dir = 0;
    int keep_images = o->counters && !o->no_keep_images;
    int sms[16];
    size_t n_sms = 0;
    if (check_driver(msg, sizeof msg, sms, &n_sms) != 0) {
        cli_error("%s", msg);
        goto out;
    }
    if (!(lib = cli_cupti_library())) {
        cli_error(CLI_CUPTI_NOT_FOUND);
        goto out;
    }
    if (o->counters) {
        /* The metrics of the devices' architectures (data/ncu/metrics.json scopes them): those
         * every device's list names, so that one configuration builds on each. */
        rt_error err = {{0}};
        if (!(metrics = rt_cupti_metrics_for(sms, n_sms, &err))) {
            cli_error("%s", err.msg);
            goto out;
        }
    }
    if (o->keep_dir) {
        if (mkdir(o->keep_dir, 0777) != 0) {
            cli_error("cannot create --keep-dir '%s': %s (it must not exist yet)", o->keep_dir,
                      strerror(errno));
            goto out;
        }
        dir = rt_strdup(o->keep_dir);
    } else if (keep_images) {
        /* Collected beside run.cupti (the same file system) and moved there at the end, so a
         * failed run leaves the previous one's images alone. Checked before anything runs. */
        size_t ol = strlen(output);
        int json = ol > 5 && strcmp(output + ol - 5, ".json") == 0;
        image_dir = rt_asprintf("%.*s.cupti", (int)(json ? ol - 5 : ol), output);
        struct stat st;
        if (lstat(image_dir, &st) == 0 &&
            (!S_ISDIR(st.st_mode) || !rt_cupti_is_collector_dir(image_dir))) {
            cli_error("'%s' exists and is not a directory the collector wrote: the raw counter "
                      "images go there (remove it, or use --keep-dir DIR or --no-keep-images)",
                      image_dir);
            goto out;
        }
        dir = rt_asprintf("%s.tmp-XXXXXX", image_dir);
        if (!mkdtemp(dir)) {
            cli_error("cannot create a directory '%s': %s", dir, strerror(errno));
            goto out;
        }
        made_dir = 1;
    } else {
        const char *tmp = getenv("TMPDIR");
        dir = rt_asprintf("%s/rooftime-cupti-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            cli_error("cannot create a directory '%s': %s", dir, strerror(errno));
            goto out;
        }
        made_dir = 1;
    }
    command = rt_spawn_command_text(n_cmd, cmd);
    /* Times from a trace run; counters (which serialize and replay kernels) from a second. */
    int failed = run_once(cmd, command, lib, dir, "trace", NULL, 0);
    if (failed < 0)
        goto out;
    if (o->counters && !failed) {
        failed = run_once(cmd, command, lib, dir, "counters", metrics, keep_images);
        if (failed < 0)
            goto out;
    }
    rt_cupti_options io = {.per_launch = o->per_launch};
    rt_error err = {{0}};
    if (rt_import_cupti(dir, &io, &p, &warnings, &err) != 0) {
        cli_print_warnings(&warnings, 10, NULL);
        cli_error("%s", err.msg);
        goto out;
    }
    cli_print_warnings(&warnings, 20, NULL);
    free(p->command);
    p->command = rt_strdup_utf8(command);
    if (image_dir)
        cli_cupti_relocate(&p->provenance, dir, image_dir);
    if (cli_save_profile(p, tags, output) != 0)
        goto out;
    if (image_dir) {
        struct stat st;
        if (lstat(image_dir, &st) == 0 && S_ISDIR(st.st_mode) &&
            rt_cupti_is_collector_dir(image_dir))
            rt_cupti_remove_dir(image_dir); /* the previous run's */
        if (rename(dir, image_dir) != 0) {
            cli_error("cannot move the collector's directory to '%s': %s; it stays in '%s'",
                      image_dir, strerror(errno), dir);
            made_dir = 0;
            goto out;
        }
        made_dir = 0;
    }
    double n = 0;
    for (size_t i = 0; i < p->n_kernels; i++)
        n += p->kernels[i].invocations;
    const char *kept = o->keep_dir ? o->keep_dir : image_dir;
    fprintf(stderr, "rooftime: profile: %s: %zu kernels, %.0f launches%s%s%s\n", output,
            p->n_kernels, n, kept ? "; collector output in " : "", kept ? kept : "",
            keep_images && kept ? " (raw counter images: `import cupti DIR --reevaluate`)" : "");
    if (failed)
        cli_error("the command failed; the profile holds what it ran before");
    rc = failed ? RT_EXIT_FAIL : RT_EXIT_OK;
out:
    if (made_dir)
        rt_cupti_remove_dir(dir);
    free(dir);
    free(image_dir);
    free(lib);
    free(metrics);
    free(command);
    rt_profile_free(p);
    rt_warnings_release(&warnings);
    return rc;
}
