/* The CUPTI collector checked against work known in advance (docs/gpu-measure.md, "Self-check"):
 * `machine measure --gpu --self-check` runs the probe's kernels (and, where PyTorch has CUDA,
 * torch.matmul at 8192^3) under `profile --gpu --counters`, then compares what the counters
 * report with what the kernels do. Two hidden subcommands carry it: `machine selfcheck-kernels`
 * (the child the collector is injected into) and `machine selfcheck-compare` (manifests against
 * profiles, usable on recorded runs). */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli-cupti.h"
#include "cli-output.h"
#include "cli-inputs.h"
#include "cli-profile.h"
#include "commands.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/gpu-arch-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/import/cupti-dir.h"
#include "rooftime/probe/gpu-measure.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "rooftime/util/spawn.h"
#include "rooftime/util/strings.h"

#define SC_MAX_ROWS 4096
#define SC_MAX_LINE 1024

/* One expectation: the profile's kernels named `kernel` ("*": all of them) must report
 * `quantity` within `bound` (relative) of `expected`. */
typedef struct sc_row {
    char kernel[256], quantity[64];
    double expected, bound;
} sc_row;

typedef struct sc_rows {
    sc_row *row;
    size_t n;
    /* "#!" lines: a kernel that computed a wrong result (selfcheck-kernels), each a failed check */
    char **broken;
    size_t n_broken;
} sc_rows;

static void rows_release(sc_rows *rows)
{
    for (size_t i = 0; i < rows->n_broken; i++)
        free(rows->broken[i]);
    free(rows->broken);
    free(rows->row);
}

/* flops.* within 1%, bytes.* within 5% unless the manifest names a bound */
static double default_bound(const char *quantity)
{
    return strncmp(quantity, "bytes.", 6) == 0 ? 0.05 : 0.01;
}

/* "KERNEL<TAB>QUANTITY<TAB>EXPECTED[<TAB>BOUND]" lines, '#' comments and blank lines skipped;
 * a "#! TEXT" line is a failure selfcheck-kernels saw (a wrong result), kept as a failed check. */
static int read_manifest(const char *path, sc_rows *rows, rt_error *err)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        rt_error_set(err, "cannot read manifest '%s': %s", path, strerror(errno));
        return -1;
    }
    char line[SC_MAX_LINE + 2];
    int ln = 0, rc = 0;
    while (fgets(line, sizeof line, fp)) {
        ln++;
        size_t len = strlen(line);
        if (len > SC_MAX_LINE && line[len - 1] != '\n') {
            rt_error_set(err, "%s: line %d: longer than %d bytes", path, ln, SC_MAX_LINE);
            rc = -1;
            break;
        }
        line[strcspn(line, "\r\n")] = 0;
        if (line[0] == '#' && line[1] == '!') {
            const char *t = line + 2 + strspn(line + 2, " \t");
            if (rows->n_broken >= SC_MAX_ROWS || !*t || !rt_utf8_valid(t)) {
                rt_error_set(err, "%s: line %d: a '#!' line needs text (UTF-8), at most %d", path,
                             ln, SC_MAX_ROWS);
                rc = -1;
                break;
            }
            rows->broken = rt_xrealloc(rows->broken, (rows->n_broken + 1) * sizeof *rows->broken);
            rows->broken[rows->n_broken++] = rt_strdup(t);
            continue;
        }
        if (line[0] == 0 || line[0] == '#')
            continue;
        if (rows->n >= SC_MAX_ROWS) {
            rt_error_set(err, "%s: line %d: more than %d checks", path, ln, SC_MAX_ROWS);
            rc = -1;
            break;
        }
        char *f[5] = {0};
        int nf = 0;
        for (char *s = line, *t; nf < 5 && s; s = t) {
            t = strchr(s, '\t');
            if (t)
                *t++ = 0;
            f[nf++] = s;
        }
        sc_row r = {{0}, {0}, 0, 0};
        char *end = NULL;
        if (nf < 3 || nf > 4 || !*f[0] || strlen(f[0]) >= sizeof r.kernel || !*f[1] ||
            strlen(f[1]) >= sizeof r.quantity ||
            (strncmp(f[1], "flops.", 6) != 0 && strncmp(f[1], "bytes.", 6) != 0)) {
            rt_error_set(err,
                         "%s: line %d: expected KERNEL, QUANTITY (flops.* or bytes.*), EXPECTED "
                         "and an optional BOUND, tab-separated",
                         path, ln);
            rc = -1;
            break;
        }
        r.expected = strtod(f[2], &end);
        if (*end || !isfinite(r.expected) || !(r.expected > 0)) {
            rt_error_set(err, "%s: line %d: field EXPECTED: '%s' is not a number > 0", path, ln,
                         f[2]);
            rc = -1;
            break;
        }
        r.bound = default_bound(f[1]);
        if (nf == 4) {
            r.bound = strtod(f[3], &end);
            if (*end || !(r.bound > 0 && r.bound <= 1)) {
                rt_error_set(err, "%s: line %d: field BOUND: '%s' is not in (0, 1]", path, ln,
                             f[3]);
                rc = -1;
                break;
            }
        }
        snprintf(r.kernel, sizeof r.kernel, "%s", f[0]);
        snprintf(r.quantity, sizeof r.quantity, "%s", f[1]);
        rows->row = rt_xrealloc(rows->row, (rows->n + 1) * sizeof *rows->row);
        rows->row[rows->n++] = r;
    }
    if (rc == 0 && ferror(fp)) {
        rt_error_set(err, "cannot read manifest '%s'", path);
        rc = -1;
    }
    fclose(fp);
    if (rc == 0 && rows->n == 0 && rows->n_broken == 0) {
        rt_error_set(err, "%s: no checks in it", path);
        rc = -1;
    }
    return rc;
}

/* The profile's figure for one row: *found 0 when no kernel matches, 1 when kernels match but
 * none has the quantity, 2 when it is there. */
static double figure_of(const rt_profile *p, const sc_row *r, int *found)
{
    const char *unit = r->quantity + 6;
    int bytes = strncmp(r->quantity, "bytes.", 6) == 0;
    double sum = 0;
    *found = 0;
    for (size_t i = 0; i < p->n_kernels; i++) {
        const rt_kernel *k = &p->kernels[i];
        if (strcmp(r->kernel, "*") != 0 && strcmp(k->name, r->kernel) != 0)
            continue;
        if (*found == 0)
            *found = 1;
        const rt_values *v = bytes ? &k->bytes : &k->flops;
        if (rt_values_has(v, unit)) {
            sum += rt_values_get(v, unit, 0);
            *found = 2;
        }
    }
    return sum;
}

/* Compare rows against profile; one JSON entry per row into checks; the failures counted. */
static int compare(const sc_rows *rows, const rt_profile *p, const char *profile_path,
                   json_t *checks)
{
    int failed = 0;
    for (size_t i = 0; i < rows->n_broken; i++) {
        printf("  FAIL %s\n", rows->broken[i]);
        json_array_append_new(checks,
                              json_pack("{s:s, s:n, s:n, s:b, s:s}", "check", rows->broken[i],
                                        "expected", "figure", "pass", 0, "note", rows->broken[i]));
        failed++;
    }
    for (size_t i = 0; i < rows->n; i++) {
        const sc_row *r = &rows->row[i];
        int found;
        double fig = figure_of(p, r, &found);
        double rel = found == 2 ? (fig - r->expected) / r->expected : NAN;
        int pass = found == 2 && fabs(rel) <= r->bound;
        char note[512] = "";
        if (found == 0)
            snprintf(note, sizeof note, "no kernel %s in %s", r->kernel, profile_path);
        else if (found == 1)
            snprintf(note, sizeof note,
                     "the profile has no %s for %s: the collector's metric list "
                     "(data/ncu/metrics.json) gives no formula for it on this GPU",
                     r->quantity, r->kernel);
        failed += !pass;
        char name[340];
        snprintf(name, sizeof name, "%s %s", r->kernel, r->quantity);
        printf("  %-4s %-40s expected %-12.6g counted %-12.6g", pass ? "pass" : "FAIL", name,
               r->expected, found == 2 ? fig : 0.0);
        if (found == 2)
            printf(" %+.3f%% (bound %g%%)\n", 100 * rel, 100 * r->bound);
        else
            printf(" (%s)\n", note);
        json_t *c = json_pack("{s:s, s:s, s:s, s:f, s:f, s:b}", "check", name, "kernel", r->kernel,
                              "quantity", r->quantity, "expected", r->expected, "bound", r->bound,
                              "pass", pass);
        if (found == 2) {
            json_object_set_new(c, "figure", json_real(fig));
            json_object_set_new(c, "relative_error", json_real(rel));
        } else {
            json_object_set_new(c, "figure", json_null());
            json_object_set_new(c, "note", json_string(note));
        }
        json_array_append_new(checks, c);
    }
    return failed;
}

/* Manifests against profiles, pairwise; the JSON report to output (NULL: none). skipped: a line
 * saying what was not checked; broken: the n_broken runs that failed, one failed check each.
 * Exit code. */
static int compare_all(const char *const *manifests, const char *const *profiles, size_t n,
                       const char *skipped, const char *const *broken, size_t n_broken,
                       const char *output)
{
    json_t *checks = json_array();
    int failed = 0, rc = RT_EXIT_FAIL;
    size_t total = 0;
    for (size_t i = 0; i < n_broken; i++) {
        printf("  FAIL %s\n", broken[i]);
        json_array_append_new(checks,
                              json_pack("{s:s, s:n, s:n, s:b, s:s}", "check", broken[i], "expected",
                                        "figure", "pass", 0, "note", broken[i]));
        failed++;
        total++;
    }
    for (size_t i = 0; i < n; i++) {
        sc_rows rows = {0};
        rt_profile *p = NULL;
        rt_error err;
        if (read_manifest(manifests[i], &rows, &err) != 0 ||
            rt_profile_load(profiles[i], &p, &err) != 0) {
            cli_error("%s", err.msg);
            rows_release(&rows);
            goto out;
        }
        printf("self-check: %s against %s\n", profiles[i], manifests[i]);
        failed += compare(&rows, p, profiles[i], checks);
        total += rows.n + rows.n_broken;
        rows_release(&rows);
        rt_profile_free(p);
    }
    printf("self-check: %zu of %zu checks pass\n", total - (size_t)failed, total);
    if (skipped)
        printf("self-check: skipped: %s\n", skipped);
    if (output) {
        cli_output out;
        int orc = cli_output_open(&out, "machine", output, NULL, 0);
        if (orc != 0) {
            rc = orc;
            goto out;
        }
        json_t *j =
            json_pack("{s:s, s:O, s:i, s:i, s:b}", "schema", "rooftime.gpu-selfcheck/1", "checks",
                      checks, "total", (int)total, "failed", failed, "pass", failed == 0);
        if (skipped)
            json_object_set_new(j, "skipped", json_string(skipped));
        int werr = json_dumpf(j, out.fp, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0 ||
                   fputc('\n', out.fp) == EOF;
        json_decref(j);
        if (cli_output_close(&out, werr) != RT_EXIT_OK)
            goto out;
    }
    if (failed)
        cli_error("self-check: %d of %zu checks failed", failed, total);
    rc = failed ? RT_EXIT_FAIL : RT_EXIT_OK;
out:
    json_decref(checks);
    return rc;
}

/* `machine selfcheck-compare MANIFEST PROFILE [MANIFEST PROFILE ...] [-o FILE]` */
int cmd_machine_selfcheck_compare(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'}, {0}};
    const char *output = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
        if (c == 'o')
            output = optarg;
        else
            return cli_option_error("machine", "machine selfcheck-compare", c, argv, opts);
    }
    int n = argc - optind;
    if (n < 2 || n % 2)
        return cli_usage_error("machine",
                               "selfcheck-compare takes pairs of MANIFEST and PROFILE files");
    const char *m[64], *p[64];
    if (n / 2 > 64)
        return cli_usage_error("machine", "selfcheck-compare: at most 64 pairs");
    for (int i = 0; i < n / 2; i++) {
        m[i] = argv[optind + 2 * i];
        p[i] = argv[optind + 2 * i + 1];
    }
    return compare_all(m, p, (size_t)(n / 2), NULL, NULL, 0, output);
}

/* `machine selfcheck-kernels --manifest FILE [--gpu N]`: the child the collector watches. */
int cmd_machine_selfcheck_kernels(int argc, char **argv)
{
    static const struct option opts[] = {
        {"manifest", required_argument, NULL, 'm'}, {"gpu", required_argument, NULL, 'g'}, {0}};
    const char *manifest = NULL;
    long device = 0;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == 'm')
            manifest = optarg;
        else if (c == 'g' && cli_parse_long(optarg, 0, 1023, &device) == 0)
            continue;
        else
            return cli_usage_error("machine", "selfcheck-kernels: bad option '%s'",
                                   argv[optind - 1]);
    }
    if (!manifest || optind != argc)
        return cli_usage_error("machine", "selfcheck-kernels takes --manifest FILE [--gpu N]");
    rt_error err;
    rt_gpu_archs archs; /* which kernels time which ceiling, and the counters' quantities */
    if (rt_gpu_archs_load(NULL, &archs, &err) != 0) {
        cli_error("%s", err.msg);
        return RT_EXIT_FAIL;
    }
    FILE *fp = fopen(manifest, "w");
    if (!fp) {
        cli_error("cannot write '%s': %s", manifest, strerror(errno));
        rt_gpu_archs_release(&archs);
        return RT_EXIT_FAIL;
    }
    int n = 0;
    int rc = rt_gpu_selfcheck_kernels((int)device, &archs, fp, &n, &err);
    rt_gpu_archs_release(&archs);
    if (fclose(fp) != 0 && rc == 0) {
        rt_error_set(&err, "cannot write '%s': %s", manifest, strerror(errno));
        rc = -1;
    }
    if (rc != 0) {
        cli_error("%s", err.msg);
        unlink(manifest);
        return RT_EXIT_FAIL;
    }
    fprintf(stderr, "rooftime: self-check: %d kernels run, expectations in %s\n", n, manifest);
    return RT_EXIT_OK;
}

/* Where PyTorch with CUDA is: 0, else a reason in why. */
static int torch_cuda(char *why, size_t n)
{
    char *argv[] = {(char *)rt_spawn_python(), "-c",
                    "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)", NULL};
    rt_spawn_opts so = {.stdout_path = "/dev/null", .stderr_path = "/dev/null", .close_fd = -1};
    rt_child ch;
    rt_error err;
    if (rt_spawn(argv, &so, &ch, &err) != 0) {
        snprintf(why, n, "%s", err.msg);
        return -1;
    }
    int st = rt_spawn_wait(&ch);
    if (st == 0)
        return 0;
    snprintf(why, n, "%s %s", argv[0],
             st == 3 ? "has PyTorch without CUDA" : "cannot import torch");
    return -1;
}

int cmd_machine_selfcheck_gpu(int device, const char *output, const char *keep_dir)
{
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) {
        cli_error("cannot find the rooftime binary (/proc/self/exe): %s", strerror(errno));
        return RT_EXIT_FAIL;
    }
    self[sl] = 0;
    char *dir = NULL;
    if (keep_dir) {
        if (mkdir(keep_dir, 0777) != 0) {
            cli_error("cannot create --keep-dir '%s': %s (it must not exist yet)", keep_dir,
                      strerror(errno));
            return RT_EXIT_FAIL;
        }
        dir = rt_strdup(keep_dir);
    } else {
        const char *tmp = getenv("TMPDIR");
        dir = rt_asprintf("%s/rooftime-selfcheck-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            cli_error("cannot create a directory '%s': %s", dir, strerror(errno));
            free(dir);
            return RT_EXIT_FAIL;
        }
    }
    char *man[2] = {rt_asprintf("%s/probe.tsv", dir), rt_asprintf("%s/matmul.tsv", dir)};
    char *prof[2] = {rt_asprintf("%s/probe.json", dir), rt_asprintf("%s/matmul.json", dir)};
    char *cdir[2] = {rt_asprintf("%s/probe.cupti", dir), rt_asprintf("%s/matmul.cupti", dir)};
    char dev[16], why[512] = "";
    snprintf(dev, sizeof dev, "%d", device);
    int rc = RT_EXIT_FAIL;
    /* the pairs to compare, and the runs that failed: each a failed check, the other run's checks
     * still made (a probe kernel that faults must not cost the torch.matmul checks) */
    const char *pm[2], *pp[2], *broken[2];
    size_t np = 0, nb = 0;
    cli_gpu_opts go = {.on = 1, .counters = 1, .keep_dir = cdir[0]};
    char *kcmd[] = {self, "machine", "selfcheck-kernels", "--manifest", man[0], "--gpu", dev, NULL};
    struct stat st;
    if (cli_profile_gpu(&go, kcmd, 7, prof[0], NULL) == RT_EXIT_OK) {
        pm[np] = man[0];
        pp[np++] = prof[0];
    } else if (lstat(cdir[0], &st) != 0) {
        goto out; /* it never ran (no driver, no device, no collector): its one line said why */
    } else {
        broken[nb++] =
            "the probe's kernels under the collector: the run failed (its error is above)";
    }
    char *script = rt_asprintf("%s/gpu/selfcheck-matmul.py", rt_datadir());
    if (torch_cuda(why, sizeof why) == 0) {
        char *mcmd[] = {(char *)rt_spawn_python(), script, "--manifest", man[1], NULL};
        go.keep_dir = cdir[1];
        fprintf(stderr, "rooftime: self-check: torch.matmul 8192^3 under the collector\n");
        if (cli_profile_gpu(&go, mcmd, 4, prof[1], NULL) == RT_EXIT_OK) {
            pm[np] = man[1];
            pp[np++] = prof[1];
        } else {
            broken[nb++] = "torch.matmul under the collector: the run failed (its error is above)";
        }
        why[0] = 0;
    } else {
        char tmp[600];
        snprintf(tmp, sizeof tmp, "torch.matmul checks: %s", why);
        snprintf(why, sizeof why, "%s", tmp);
    }
    free(script);
    rc = compare_all(pm, pp, np, why[0] ? why : NULL, broken, nb, output);
    if (keep_dir)
        fprintf(stderr, "rooftime: self-check: manifests, profiles and collector output in %s\n",
                dir);
out:
    if (!keep_dir) {
        for (int i = 0; i < 2; i++) {
            unlink(man[i]);
            unlink(prof[i]);
        }
        /* the collector directories go with the rest */
        for (int i = 0; i < 2; i++) {
            if (lstat(cdir[i], &st) == 0 && S_ISDIR(st.st_mode) &&
                rt_cupti_is_collector_dir(cdir[i]))
                rt_cupti_remove_dir(cdir[i]);
        }
        rmdir(dir);
    }
    for (int i = 0; i < 2; i++) {
        free(man[i]);
        free(prof[i]);
        free(cdir[i]);
    }
    free(dir);
    return rc;
}
