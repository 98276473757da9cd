/* Tests of the Nsight Compute importer on data as other frameworks and people write it: one-metric
 * files whose launch orders differ (TensorFlow), failed launches, an edited export with a column
 * named twice. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/profile.h"
#include "rooftime/import/ncu.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static const rt_kernel *find_kernel(const rt_profile *p, const char *name)
{
    for (size_t i = 0; i < p->n_kernels; i++)
        if (strcmp(p->kernels[i].name, name) == 0)
            return &p->kernels[i];
    return NULL;
}

static const char *new_header =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
    "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric "
    "Unit\",\"Metric Value\"\n";

static const char *const deepcam_metrics[] = {
    "dram__bytes.sum",
    "l1tex__t_bytes.sum",
    "lts__t_bytes.sum",
    "sm__cycles_elapsed.avg",
    "sm__cycles_elapsed.avg.per_second",
    "sm__inst_executed_pipe_tensor.sum",
    "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hmul_pred_on.sum",
};
enum { DEEPCAM_FILES = sizeof deepcam_metrics / sizeof deepcam_metrics[0] };

/* Write a copy of a one-metric fixture file whose launches (one row each) are shuffled with seed
 * and renumbered 0, 1, ... as a run that launched them in that order would; drop_row >= 0 leaves
 * the row of that launch out. */
static void write_permuted(const char *src, const char *dst, unsigned seed, int drop_row)
{
    size_t len;
    char *text = tu_read_file(src, &len);
    assert_non_null(text);
    char *hdr = strstr(text, "\n\"ID\",\"Process ID\"");
    assert_non_null(hdr);
    hdr = strchr(hdr + 1, '\n') + 1; /* first data row */
    char **row = NULL;
    size_t n = 0;
    for (char *s = hdr; *s;) {
        char *e = strchr(s, '\n');
        assert_non_null(e); /* every row ends with a newline; names have none */
        *e = '\0';
        if (*s == '"') {
            row = rt_xrealloc(row, (n + 1) * sizeof *row);
            row[n++] = strchr(s + 1, '"') + 2; /* after "ID", */
        }
        s = e + 1;
    }
    unsigned r = seed;
    for (size_t i = n - 1; i > 0; i--) {
        r = r * 1103515245u + 12345u;
        size_t j = (r >> 8) % (i + 1);
        char *t = row[i];
        row[i] = row[j];
        row[j] = t;
    }
    hdr[0] = '\0';
    FILE *fp = fopen(dst, "w");
    assert_non_null(fp);
    fputs(text, fp);
    for (size_t i = 0, id = 0; i < n; i++)
        if ((int)i != drop_row)
            fprintf(fp, "\"%zu\",%s\n", id++, row[i]);
    assert_int_equal(fclose(fp), 0);
    free(row);
    free(text);
}

/* Permuted one-metric files import per kernel name exactly as the unpermuted fixture does; a
 * kernel whose launch count differs between files is an error naming it, both files and both
 * counts; --per-launch is refused. */
static void test_permuted_one_metric_files(void **state)
{
    (void)state;
    const char *fx = tu_fixture("ncu/deepcam-pytorch-fp32-fw");
    if (!fx)
        skip();
    char base[4096];
    snprintf(base, sizeof base, "%s", fx);
    char *dir = tu_tmpdir();
    char *orig[DEEPCAM_FILES], *perm[DEEPCAM_FILES];
    for (int i = 0; i < DEEPCAM_FILES; i++) {
        orig[i] = rt_asprintf("%s/out.%s", base, deepcam_metrics[i]);
        perm[i] = rt_asprintf("%s/out.%s", dir, deepcam_metrics[i]);
        write_permuted(orig[i], perm[i], 1000u + (unsigned)i, -1);
    }
    rt_profile *p0 = NULL, *p1 = NULL;
    rt_error err = {{0}};
    rt_warnings w0 = {0}, w1 = {0};
    if (rt_import_ncu((const char *const *)orig, DEEPCAM_FILES, NULL, &p0, &w0, &err) != 0)
        fail_msg("%s", err.msg);
    if (rt_import_ncu((const char *const *)perm, DEEPCAM_FILES, NULL, &p1, &w1, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p1->n_kernels, 35);
    assert_int_equal(p1->n_kernels, p0->n_kernels);
    assert_close(p1->provenance.launches, 633, 0);
    for (size_t i = 0; i < p0->n_kernels; i++) {
        const rt_kernel *a = &p0->kernels[i], *b = find_kernel(p1, a->name);
        assert_non_null(b);
        assert_close(b->invocations, a->invocations, 0);
        assert_close(b->time, a->time, 1e-12);
        const char *fl[] = {"fp32", "fp16", "tensor"}, *by[] = {"HBM", "L2", "L1"};
        for (int j = 0; j < 3; j++) {
            assert_close(rt_values_get(&b->flops, fl[j], -1), rt_values_get(&a->flops, fl[j], -2),
                         1e-12);
            assert_close(rt_values_get(&b->bytes, by[j], -1), rt_values_get(&a->bytes, by[j], -2),
                         1e-12);
        }
    }
    /* One warning says the join changed; the unpermuted import has none of it. */
    int said = 0;
    for (size_t i = 0; i < w1.n; i++)
        said += strstr(w1.msg[i], "joined per kernel name") != NULL;
    assert_int_equal(said, 1);
    for (size_t i = 0; i < w0.n; i++)
        assert_null(strstr(w0.msg[i], "joined per kernel name"));
    assert_string_equal(rt_tags_get(&p1->provenance.notes, "join"),
                        "per kernel name (the files' launch orders differ)");
    rt_profile_free(p1);
    p1 = NULL;

    /* --per-launch cannot match launches across differently ordered files. */
    rt_ncu_options o = {.per_launch = true};
    assert_int_equal(rt_import_ncu((const char *const *)perm, DEEPCAM_FILES, &o, &p1, NULL, &err),
                     -1);
    assert_null(p1);
    assert_non_null(strstr(err.msg, "--per-launch needs one launch order in every file"));

    /* One launch fewer in the dram file: the count mismatch names the kernel, files and counts. */
    write_permuted(orig[0], perm[0], 77u, 5);
    assert_int_equal(rt_import_ncu((const char *const *)perm, DEEPCAM_FILES, NULL, &p1, NULL, &err),
                     -1);
    assert_null(p1);
    assert_non_null(strstr(err.msg, "out.dram__bytes.sum"));
    assert_non_null(strstr(err.msg, "out.l1tex__t_bytes.sum"));
    assert_non_null(strstr(err.msg, "kernel '"));
    /* The counts: the dropped kernel's launches in the other files, and one fewer. */
    const char *k = strstr(err.msg, "kernel '") + 8;
    const char *q = strstr(k, "': ");
    assert_non_null(q);
    unsigned long na = 0, nb = 0;
    const rt_kernel *dk = NULL;
    for (size_t i = 0; i < p0->n_kernels && !dk; i++)
        if (strncmp(p0->kernels[i].name, k, (size_t)(q - k > 150 ? 150 : q - k)) == 0)
            dk = &p0->kernels[i];
    assert_non_null(dk);
    assert_int_equal(sscanf(q, "': %lu launch", &na), 1);
    const char *but = strstr(q, " but ");
    assert_non_null(but);
    assert_int_equal(sscanf(but, " but %lu in", &nb), 1);
    assert_int_equal(na + 1, (unsigned long)dk->invocations);
    assert_int_equal(nb, (unsigned long)dk->invocations);

    rt_profile_free(p0);
    rt_warnings_release(&w0);
    rt_warnings_release(&w1);
    for (int i = 0; i < DEEPCAM_FILES; i++) {
        free(orig[i]);
        free(perm[i]);
    }
    tu_rmtree(dir);
    free(dir);
}

/* A failed launch (every metric nan, grid (0, 0, 0)) is dropped with a warning that counts it,
 * in one file and joined across files by ID; a launch with nan metrics but a real grid is not. */
static void test_failed_launches(void **state)
{
    (void)state;
    static const char *const ms[] = {"sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg.per_second",
                                     "dram__bytes.sum"};
    static const char *const vs[] = {"1,000", "1,000", "64"};
    char *all = rt_strdup(new_header), *part[3];
    for (int m = 0; m < 3; m++)
        part[m] = rt_strdup(new_header);
    for (int id = 0; id < 5; id++) {
        int failed = id == 1 || id == 3;
        const char *kn = id == 3 ? "lone_kernel" : "k";
        for (int m = 0; m < 3; m++) {
            char *line = rt_asprintf(
                "\"%d\",\"7\",\"app\",\"host\",\"%s\",\"1\",\"7\",\"(128, 1, 1)\",\"%s\",\"0\","
                "\"7.0\",\"Command line profiler metrics\",\"%s\",\"%s\",\"%s\"\n",
                id, kn, failed ? "(0, 0, 0)" : "(80, 1, 1)", ms[m],
                m == 0 ? "cycle" : (m == 1 ? "cycle/usecond" : "byte"),
                failed || (id == 4 && m == 2) ? "nan" : vs[m]);
            char *a = rt_asprintf("%s%s", all, line), *b = rt_asprintf("%s%s", part[m], line);
            free(all);
            free(part[m]);
            all = a;
            part[m] = b;
            free(line);
        }
    }
    char *dir = tu_tmpdir();
    char *pall = rt_asprintf("%s/all.csv", dir), *pp[3];
    assert_int_equal(tu_write_file(pall, all), 0);
    for (int m = 0; m < 3; m++) {
        pp[m] = rt_asprintf("%s/out.%s", dir, ms[m]);
        assert_int_equal(tu_write_file(pp[m], part[m]), 0);
    }
    for (int split = 0; split < 2; split++) {
        rt_profile *p = NULL;
        rt_error err = {{0}};
        rt_warnings w = {0};
        const char *one[] = {pall};
        int rc = split ? rt_import_ncu((const char *const *)pp, 3, NULL, &p, &w, &err)
                       : rt_import_ncu(one, 1, NULL, &p, &w, &err);
        if (rc != 0)
            fail_msg("%s", err.msg);
        assert_int_equal(p->n_kernels, 1); /* lone_kernel only ever failed */
        assert_string_equal(p->kernels[0].name, "k");
        assert_close(p->kernels[0].invocations, 3, 0);
        assert_close(p->kernels[0].time, 3e-6, 1e-12);
        assert_close(rt_values_get(&p->kernels[0].bytes, "HBM", 0), 128, 1e-12);
        assert_close(p->provenance.launches, 3, 0);
        int said = 0;
        for (size_t i = 0; i < w.n; i++)
            said += strstr(w.msg[i], "2 failed launches dropped") != NULL;
        assert_int_equal(said, 1);
        rt_profile_free(p);
        rt_warnings_release(&w);
    }
    free(all);
    free(pall);
    for (int m = 0; m < 3; m++) {
        free(part[m]);
        free(pp[m]);
    }
    tu_rmtree(dir);
    free(dir);
}

/* A column the import reads, named twice (an edited export): an error naming both, not the
 * first one's values with the second's dropped. */
static void test_duplicate_columns(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *path = rt_asprintf("%s/dup.csv", dir);
    const char *paths[] = {path};
    char *s = rt_strdup("\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\","
                        "\"Metric Value\",\"Metric Value\"\n"
                        "\"0\",\"1\",\"k\",\"dram__bytes.sum\",\"byte\",\"1\",\"999\"\n");
    assert_int_equal(tu_write_file(path, s), 0);
    rt_profile *p = NULL;
    rt_error err = {{0}};
    rt_ncu_options o = {0};
    assert_int_equal(rt_import_ncu(paths, 1, &o, &p, NULL, &err), -1);
    if (!strstr(err.msg, "dup.csv: line 1: columns 6 and 7 are both named 'Metric Value'"))
        fail_msg("%s", err.msg);
    free(s);
    free(path);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_permuted_one_metric_files),
        cmocka_unit_test(test_failed_launches),
        cmocka_unit_test(test_duplicate_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
