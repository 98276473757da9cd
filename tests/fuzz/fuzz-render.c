/* libFuzzer target: charts and the HTML report of a fuzzed profile on the V100 preset. Every view's
 * SVG in hier mode, and the report in single mode (each view, split by a tag, styled by others, and
 * the hierarchical roofline: its page and its chart files) written into a directory of this
 * process's own, emptied after each input and removed at exit. Sanitizers watch the layout and the
 * escaping; a report leaves only report.html and its SVGs, or nothing. About half the executions a
 * second of the charts alone, for a third more coverage. */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz-common.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/machine.h"
#include "rooftime/formats/analysis-format.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/render/chart.h"
#include "rooftime/render/report.h"

static char *report_dir; /* <tmp>/fuzz-render.XXXXXX, this process's */
static char *report_out; /* report_dir/r: the report's DIR, absent between inputs */

/* Remove dir and its files; -1 when something else (a directory) was in it. */
static int remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0)
            rc = -1;
    }
    closedir(d);
    return rmdir(dir) == 0 ? rc : -1;
}

static void remove_report_dir(void)
{
    remove_dir(report_out);
    rmdir(report_dir);
}

/* A temporary directory on tmpfs where there is one: the report writes a dozen files an input. */
static void make_report_dir(void)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    size_t n = strlen(base) + 32;
    report_dir = malloc(n);
    report_out = malloc(n + 2);
    snprintf(report_dir, n, "%s/fuzz-render.XXXXXX", base);
    if (!mkdtemp(report_dir)) {
        perror("fuzz-render: mkdtemp");
        abort();
    }
    snprintf(report_out, n + 2, "%s/r", report_dir);
    atexit(remove_report_dir);
}

/* Only report.html and SVG files, or no directory at all after a failure. */
static void check_report_dir(int ok)
{
    DIR *d = opendir(report_out);
    if (!d) {
        if (ok) {
            fprintf(stderr, "fuzz-render: the report succeeded but wrote no directory\n");
            abort();
        }
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *s = e->d_name;
        size_t len = strlen(s);
        if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0 || (ok && strcmp(s, "report.html") == 0) ||
            (ok && len > 4 && s[0] != '.' && strcmp(s + len - 4, ".svg") == 0))
            continue;
        fprintf(stderr, "fuzz-render: the report %s left '%s' behind\n",
                ok ? "succeeded" : "failed", s);
        abort();
    }
    closedir(d);
}

/* analyze --format json of the analysis: whatever the fuzzed profile holds, JSON that parses. */
static void check_json(const rt_analysis *a)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    rt_error err;
    int rc = fp ? rt_analysis_write(a, RT_FORMAT_JSON, fp, NULL, &err) : -1;
    if (fp)
        fclose(fp);
    json_error_t je;
    json_t *back = rc == 0 ? json_loadb(text, len, 0, &je) : NULL;
    if (!back) {
        fprintf(stderr, "fuzz-render: analyze --format json wrote %s\n",
                rc == 0 ? je.text : "nothing (an error)");
        abort();
    }
    json_decref(back);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static rt_machine *m;
    rt_error err;
    if (!m && rt_machine_resolve("v100", &m, &err) != 0) {
        fprintf(stderr, "fuzz-render: %s (set ROOFTIME_DATADIR)\n", err.msg);
        abort();
    }
    if (!report_dir)
        make_report_dir();
    if (size > 1 << 16)
        return 0; /* charts of huge profiles are the scale benchmark's job */
    json_error_t je;
    json_t *j = json_loadb((const char *)data, size, 0, &je);
    if (!j)
        return 0;
    rt_profile *p = NULL;
    if (rt_profile_from_json(j, RT_JSON_NAMED("fuzz"), &p, &err) == 0) {
        rt_analysis *a[2] = {NULL, NULL};
        for (int mode = 0; mode < 2; mode++) {
            a[mode] = rt_analysis_new(m, mode ? RT_MODE_HIER : RT_MODE_SINGLE, &p, 1, NULL, &err);
            if (!a[mode])
                continue;
            check_json(a[mode]);
            /* The report below draws every view of the single mode: here only the hier mode's. */
            for (int v = 0; mode && v < RT_VIEW_N; v++) {
                rt_chart_spec spec = {.view = (rt_view)v};
                free(rt_chart_svg(&spec, a[mode], &err));
            }
        }
        if (a[0]) {
            /* Styling and splitting by tags the fuzzed profile may carry. */
            static const char *const split[] = {"pass"};
            rt_report_opts o = {.title = "fuzz <&>",
                                .split_by = split,
                                .n_split_by = 1,
                                .series_by = "framework",
                                .marker_by = "batch",
                                .fill_by = "precision"};
            int ok = rt_report_write(a[0], a[1], &p, 1, &o, report_out, &err) == 0;
            check_report_dir(ok);
            if (remove_dir(report_out) != 0) {
                fprintf(stderr, "fuzz-render: cannot empty %s\n", report_out);
                abort();
            }
        }
        rt_analysis_free(a[0]);
        rt_analysis_free(a[1]);
    }
    rt_profile_free(p);
    json_decref(j);
    return 0;
}
