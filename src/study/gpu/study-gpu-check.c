/* The GPU study's correctness check: the direct NVRTC convolution (probe's gpu-conv.c) on each
 * check point, against every client output file present in the check directory. */
#define _GNU_SOURCE
#include "rooftime/study/study-gpu-check.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rooftime/probe/gpu-conv.h"
#include "rooftime/util/strings.h"

/* More files than this in the check directory is not a check directory. */
#define MAX_FILES 4096

double rt_study_gpu_check_tolerance(const char *precision)
{
    static const struct {
        const char *name;
        double tol;
    } tols[] = {{"fp32", 1e-5}, {"tf32", 2e-3}, {"fp16", 1e-2}, {"bf16", 1e-2}};
    for (size_t i = 0; precision && i < sizeof tols / sizeof *tols; i++)
        if (strcmp(precision, tols[i].name) == 0)
            return tols[i].tol;
    return -1;
}

float rt_study_gpu_check_input(uint64_t i, uint32_t seed, double div)
{
    uint32_t h = (uint32_t)(i * 2654435761u) + seed; /* both wrap mod 2^32 */
    return (float)(((double)h / 4294967296.0 - 0.5) / div);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The file's floats, little-endian, into a malloc'd array of exactly n; a FAIL line otherwise. */
static float *read_values(const char *path, size_t n, char **line)
{
    const char *name = base_name(path);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        *line = rt_asprintf("%s: FAIL: missing (%s)", name, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        *line = rt_asprintf("%s: FAIL: not a regular file", name);
        fclose(fp);
        return NULL;
    }
    if ((unsigned long long)st.st_size != (unsigned long long)n * 4) {
        *line = rt_asprintf("%s: FAIL: %s: %lld bytes, %zu float32 values expected (%zu bytes)",
                            name, (unsigned long long)st.st_size < n * 4 ? "short" : "long",
                            (long long)st.st_size, n, n * 4);
        fclose(fp);
        return NULL;
    }
    float *v = rt_xmalloc((n ? n : 1) * sizeof *v);
    unsigned char b[4];
    for (size_t i = 0; i < n; i++) {
        if (fread(b, 1, 4, fp) != 4) {
            *line = rt_asprintf("%s: FAIL: short: read stopped at value %zu of %zu", name, i, n);
            free(v);
            fclose(fp);
            return NULL;
        }
        uint32_t u =
            (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        memcpy(&v[i], &u, 4);
    }
    fclose(fp);
    return v;
}

int rt_study_gpu_check_compare(const float *ref, size_t n, const char *path, const char *precision,
                               char **line, double *rel_err, rt_error *err)
{
    *line = NULL;
    if (rel_err)
        *rel_err = -1;
    double tol = rt_study_gpu_check_tolerance(precision);
    if (tol < 0) {
        rt_error_set(err, "%s: unknown precision '%s' (fp32, tf32, fp16 or bf16)", path,
                     precision ? precision : "");
        return -1;
    }
    float *y = read_values(path, n, line);
    if (!y)
        return 1;
    const char *name = base_name(path);
    double d2 = 0, r2 = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(y[i])) {
            *line = rt_asprintf("%s: FAIL: value %zu is %g", name, i, (double)y[i]);
            free(y);
            return 1;
        }
        double d = (double)y[i] - (double)ref[i];
        d2 += d * d;
        r2 += (double)ref[i] * ref[i];
    }
    free(y);
    double rel = r2 > 0 ? sqrt(d2 / r2) : d2 > 0 ? INFINITY : 0;
    if (rel_err)
        *rel_err = rel;
    int ok = rel <= tol;
    *line = rt_asprintf("%s: %s: relative L2 error %.3g, tolerance %g (%s), %zu values", name,
                        ok ? "pass" : "FAIL", rel, tol, precision, n);
    return ok ? 0 : 1;
}

/* The .f32 files of dir; -1 with err when dir cannot be read or holds too many. */
static int list_files(const char *dir, char ***names, size_t *count, rt_error *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        rt_error_set(err, "%s: cannot open the check directory: %s", dir, strerror(errno));
        return -1;
    }
    size_t n = 0;
    char **v = rt_xmalloc(MAX_FILES * sizeof *v);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".f32") != 0)
            continue;
        if (n == MAX_FILES) {
            rt_error_set(err, "%s: more than %d .f32 files: not a check directory", dir, MAX_FILES);
            rt_free_list(v, n);
            closedir(d);
            return -1;
        }
        v[n++] = rt_strdup(e->d_name);
    }
    closedir(d);
    *names = v;
    *count = n;
    return 0;
}

/* <framework>-<precision>-<variant>-<index>.f32: the group (all but the index, malloc'd), the
 * precision (malloc'd) and the index; -1 when the name is not one. */
static int parse_name(const char *name, char **group, char **precision, long *index)
{
    const char *end = name + strlen(name) - 4; /* the ".f32" */
    const char *dash1 = strchr(name, '-');
    const char *dash2 = dash1 ? strchr(dash1 + 1, '-') : NULL;
    const char *last = NULL;
    for (const char *p = name; p < end; p++)
        if (*p == '-')
            last = p;
    if (!dash1 || !dash2 || !last || last <= dash2 + 1 || dash1 == name || dash2 == dash1 + 1 ||
        last + 1 == end)
        return -1;
    long idx = 0;
    for (const char *p = last + 1; p < end; p++) {
        if (*p < '0' || *p > '9' || idx > 1000000)
            return -1;
        idx = idx * 10 + (*p - '0');
    }
    *group = rt_strndup(name, (size_t)(last - name));
    *precision = rt_strndup(dash1 + 1, (size_t)(dash2 - dash1 - 1));
    *index = idx;
    return 0;
}

typedef struct report {
    char *text;
    size_t len;
} report;

static void add_line(report *r, char *line)
{
    size_t k = strlen(line);
    r->text = rt_xrealloc(r->text, r->len + k + 2);
    memcpy(r->text + r->len, line, k);
    r->text[r->len + k] = '\n';
    r->len += k + 1;
    r->text[r->len] = 0;
    free(line);
}

/* One .f32 file of the check directory, its name parsed (group NULL: not a check file's name). */
typedef struct entry {
    char *name, *group, *precision;
    long index;
} entry;

/* Names that are no check file's first, then by group and index, so each group is one run. */
static int by_group(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    if (!a->group || !b->group)
        return a->group ? 1 : b->group ? -1 : strcmp(a->name, b->name);
    int c = strcmp(a->group, b->group);
    return c ? c : (a->index > b->index) - (a->index < b->index);
}

/* The missing points of the group that ends here. */
static int close_group(const char *group, const unsigned char *seen, size_t n, report *r)
{
    int failed = 0;
    for (size_t i = 0; group && i < n; i++)
        if (!seen[i]) {
            add_line(r, rt_asprintf("%s-%zu.f32: FAIL: missing (the client wrote other check "
                                    "points of %s)",
                                    group, i, group));
            failed = 1;
        }
    return failed;
}

/* One file against its point's reference: its line; 0 or 1. */
static int compare_one(float *const *ref, const size_t *n_ref, size_t n, const char *dir,
                       const entry *e, report *r)
{
    if (!e->group) {
        add_line(r, rt_asprintf("%s: FAIL: not a check file name "
                                "(<framework>-<precision>-<variant>-<index>.f32)",
                                e->name));
        return 1;
    }
    if ((size_t)e->index >= n) {
        add_line(r, rt_asprintf("%s: FAIL: no check point %ld (the plan has %zu)", e->name,
                                e->index, n));
        return 1;
    }
    char *path = rt_asprintf("%s/%s", dir, e->name), *line = NULL;
    rt_error err;
    int rc = rt_study_gpu_check_compare(ref[e->index], n_ref[e->index], path, e->precision, &line,
                                        NULL, &err);
    if (rc < 0)
        line = rt_asprintf("%s: FAIL: %s", e->name, err.msg);
    add_line(r, line);
    free(path);
    return rc != 0;
}

/* The files against the references; the groups' missing points named. 0 or 1. */
static int compare_all(float *const *ref, const size_t *n_ref, size_t n, const char *dir,
                       char **names, size_t count, report *r)
{
    entry *v = rt_xcalloc(count ? count : 1, sizeof *v);
    for (size_t f = 0; f < count; f++) {
        v[f].name = names[f];
        if (parse_name(names[f], &v[f].group, &v[f].precision, &v[f].index) != 0)
            v[f].group = v[f].precision = NULL;
    }
    qsort(v, count, sizeof *v, by_group);
    int failed = 0;
    unsigned char *seen = rt_xcalloc(n ? n : 1, 1);
    for (size_t f = 0; f < count; f++) {
        if (v[f].group && (f == 0 || !v[f - 1].group || strcmp(v[f - 1].group, v[f].group)))
            memset(seen, 0, n ? n : 1);
        if (v[f].group && v[f].index >= 0 && (size_t)v[f].index < n)
            seen[v[f].index] = 1;
        failed |= compare_one(ref, n_ref, n, dir, &v[f], r);
        if (v[f].group && (f + 1 == count || strcmp(v[f + 1].group, v[f].group)))
            failed |= close_group(v[f].group, seen, n, r);
    }
    for (size_t f = 0; f < count; f++) {
        free(v[f].group);
        free(v[f].precision);
    }
    free(v);
    free(seen);
    return failed;
}

int rt_study_gpu_check_dir(float *const *ref, const size_t *n_ref, size_t n, const char *dir,
                           char **report_out, rt_error *err)
{
    *report_out = NULL;
    char **names = NULL;
    size_t count = 0;
    if (list_files(dir, &names, &count, err))
        return -1;
    report r = {NULL, 0};
    if (count == 0)
        add_line(&r, rt_asprintf("%s: no client output files", dir));
    int rc = compare_all(ref, n_ref, n, dir, names, count, &r);
    rt_free_list(names, count);
    *report_out = r.text ? r.text : rt_strdup("");
    return rc;
}

int rt_study_gpu_check(int device, const rt_study_gpu_check_point *pts, size_t n, const char *dir,
                       char **report_out, rt_error *err)
{
    *report_out = NULL;
    rt_gpu_conv_shape *shapes = rt_xcalloc(n ? n : 1, sizeof *shapes);
    for (size_t i = 0; i < n; i++)
        shapes[i] = (rt_gpu_conv_shape){pts[i].batch,   pts[i].channels, pts[i].size,
                                        pts[i].filters, pts[i].kernel,   pts[i].stride};
    float **ref = rt_xcalloc(n ? n : 1, sizeof *ref);
    size_t *n_ref = rt_xcalloc(n ? n : 1, sizeof *n_ref);
    char device_name[256] = "", *files = NULL;
    int rc = -1;
    if (rt_gpu_conv_direct(device, shapes, n, ref, n_ref, device_name, sizeof device_name, err)) {
        rt_error_prefix(err, "the GPU study's reference convolution (conv-direct.cu)");
    } else if ((rc = rt_study_gpu_check_dir(ref, n_ref, n, dir, &files, err)) >= 0) {
        *report_out = rt_asprintf("reference: conv-direct.cu on GPU %d (%s), %zu check point%s\n%s",
                                  device, device_name, n, n == 1 ? "" : "s", files);
        free(files);
    }
    for (size_t i = 0; i < n; i++)
        free(ref[i]);
    free(ref);
    free(n_ref);
    free(shapes);
    return rc;
}
