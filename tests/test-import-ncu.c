/* Tests of the Nsight Compute importer: the DeepCAM fixture against the authors' own totals,
 * layouts, units. */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/profile.h"
#include "rooftime/import/csv-reader.h"
#include "rooftime/import/ncu-metrics.h"
#include "rooftime/import/ncu-units.h"
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

static int col_of(const rt_csv_row *h, const char *name)
{
    for (size_t i = 0; i < h->n; i++)
        if (strcmp(h->field[i], name) == 0)
            return (int)i;
    fail_msg("expected-per-kernel.csv has no column '%s'", name);
    return -1;
}

/* The 12 one-metric files of DeepCAM against the authors' pandas totals, kernel by kernel, with
 * their recipe (--recipe paper: 2 x hfma + hadd + hmul, their notebooks' half-precision FLOPs). */
static void test_deepcam_matches_expected(void **state)
{
    (void)state;
    const char *dir = tu_fixture("ncu/deepcam-pytorch-fp32-fw");
    if (!dir)
        skip();
    static const char *const metrics[] = {
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
    char *paths[12];
    char base[4096];
    snprintf(base, sizeof base, "%s", dir);
    for (int i = 0; i < 12; i++)
        paths[i] = rt_asprintf("%s/out.%s", base, metrics[i]);
    rt_warnings w = {0};
    rt_ncu_options o = {.recipe = "paper"};
    rt_profile *p = NULL;
    rt_error err = {{0}};
    int rc = rt_import_ncu((const char *const *)paths, 12, &o, &p, &w, &err);
    if (rc != 0)
        fail_msg("import failed: %s", err.msg);
    assert_int_equal(p->n_kernels, 35);
    assert_string_equal(rt_tags_get(&p->provenance.notes, "recipe"), "paper");

    char *exp_path = rt_asprintf("%s/expected-per-kernel.csv", base);
    rt_csv *c = rt_csv_open(exp_path, &err);
    assert_non_null(c);
    rt_csv_row h;
    assert_int_equal(rt_csv_next(c, &h, &err), 1);
    /* The header's fields are overwritten by the next row: keep the column numbers only. */
    int cn = col_of(&h, "Kernel Name"), cc = col_of(&h, "Count"), ct = col_of(&h, "Time"),
        ccf = col_of(&h, "CC FLOPs"), ctc = col_of(&h, "TC FLOPs"),
        cd = col_of(&h, "dram__bytes.sum"), cl2 = col_of(&h, "lts__t_bytes.sum"),
        cl1 = col_of(&h, "l1tex__t_bytes.sum");
    rt_csv_row r;
    int rows = 0;
    double launches = 0;
    while (rt_csv_next(c, &r, &err) == 1) {
        const rt_kernel *k = find_kernel(p, r.field[cn]);
        if (!k)
            fail_msg("kernel not imported: %.200s", r.field[cn]);
        double count = atof(r.field[cc]);
        assert_close(k->invocations, count, 1e-12);
        assert_close(k->time, atof(r.field[ct]), 1e-9);
        double ccflops =
            rt_values_get(&k->flops, "fp32", -1) + rt_values_get(&k->flops, "fp16", -1);
        assert_close(ccflops, atof(r.field[ccf]), 1e-9);
        assert_close(rt_values_get(&k->flops, "tensor", -1), atof(r.field[ctc]), 1e-9);
        assert_close(rt_values_get(&k->bytes, "HBM", -1), atof(r.field[cd]), 1e-9);
        assert_close(rt_values_get(&k->bytes, "L2", -1), atof(r.field[cl2]), 1e-9);
        assert_close(rt_values_get(&k->bytes, "L1", -1), atof(r.field[cl1]), 1e-9);
        launches += count;
        rows++;
    }
    assert_int_equal(rows, 35);
    assert_int_equal((int)launches, 633);
    /* Each kernel's spread: its launches' cycles / rate, one sample per launch. */
    size_t known = 0;
    for (size_t i = 0; i < p->n_kernels; i++) {
        const rt_kernel *k = &p->kernels[i];
        const rt_time_spread *sp = &k->spread;
        if (sp->n != k->invocations || !(sp->q1 <= sp->median && sp->median <= sp->q3) ||
            !(sp->median > 0))
            fail_msg("kernel '%.80s': %g launches, spread n %g: %g <= %g <= %g", k->name,
                     k->invocations, sp->n, sp->q1, sp->median, sp->q3);
        /* the launch times add up to provenance.kernel_time_sum: none is longer */
        assert_true(sp->median <= rt_values_get(&p->provenance.kernel_time_sum, k->name, -1));
        known += rt_time_spread_known(sp);
    }
    assert_true(known > 0);
    /* No fp64 counters in these files: said, not invented. */
    assert_false(rt_values_has(&p->kernels[0].flops, "fp64"));
    int said = 0;
    for (size_t i = 0; i < w.n; i++)
        said |= strstr(w.msg[i], "fp64") != NULL;
    assert_true(said);
    rt_csv_free(c);
    free(exp_path);
    for (int i = 0; i < 12; i++)
        free(paths[i]);
    rt_profile_free(p);
    rt_warnings_release(&w);
}

static void test_gpp_thousands_and_hz(void **state)
{
    (void)state;
    const char *path = tu_fixture("ncu/gpp-ncu2021/raw.csv");
    if (!path)
        skip();
    rt_profile *p = NULL;
    rt_error err = {{0}};
    const char *paths[] = {path};
    if (rt_import_ncu(paths, 1, NULL, &p, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p->n_kernels, 1);
    const rt_kernel *k = &p->kernels[0];
    assert_string_equal(k->name, "sigma_gpp_gpu_31");
    assert_close(k->time, 80919089043.0 / 1619895602.07, 1e-12);
    assert_close(rt_values_get(&k->flops, "fp64", 0),
                 280886167962.0 + 864630050101.0 + 2 * 1541986690884.0, 1e-12);
    assert_close(rt_values_get(&k->flops, "fp32", 0), 2 * 49081607860.0, 1e-12);
    assert_close(rt_values_get(&k->bytes, "L1", 0), 1288549677760.0, 1e-12);
    assert_close(rt_values_get(&k->bytes, "HBM", 0), 528014094848.0, 1e-12);
    rt_profile_free(p);
}

/* ---- synthetic inputs: the newer layout, two processes, scaled units, nan, several files ---- */

static const char *new_header =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
    "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric "
    "Unit\","
    "\"Metric Value\"\n";

static void add_row(char **buf, int id, int pid, const char *kernel, const char *cc,
                    const char *metric, const char *unit, const char *value)
{
    char *old = *buf;
    *buf =
        rt_asprintf("%s\"%d\",\"%d\",\"app\",\"host\",\"%s\",\"1\",\"7\",\"(128, 1, 1)\","
                    "\"(80, 1, 1)\",\"0\",\"%s\",\"Command line profiler metrics\",\"%s\",\"%s\","
                    "\"%s\"\n",
                    old, id, pid, kernel, cc, metric, unit, value);
    free(old);
}

/* Launches of a kernel whose name has commas and quotes, in two processes on an sm_80 device. */
static char *synthetic(const char *only_metric)
{
    char *s = rt_strdup("app output with a \"stray quote\n==PROF== Connected to process 11\n");
    char *h = rt_asprintf("%s%s", s, new_header);
    free(s);
    s = h;
    static const char *const kname[] = {"void gemm<float, 4>(Params<\"\"a,b\"\">)", "copy_kernel"};
    for (int launch = 0; launch < 4; launch++) {
        int pid = launch < 2 ? 11 : 12;
        int id = launch % 2;
        const char *k = kname[launch % 2];
        struct {
            const char *m, *u, *v;
        } rows[] = {
            {"sm__cycles_elapsed.avg", "cycle", "1,000,000"},
            {"sm__cycles_elapsed.avg.per_second", launch == 3 ? "Mhz" : "cycle/usecond",
             launch == 3 ? "1,250" : "1,000"},
            {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", "2,000"},
            {"sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst",
             launch == 1 ? "nan" : "10"},
            {"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "inst", "0"},
            {"sm__inst_executed_pipe_tensor.sum", "inst", "3"},
            {"dram__bytes.sum", launch == 2 ? "Mbyte" : "Kbyte", launch == 2 ? "0.5" : "500"},
            {"launch__waves_per_multiprocessor", "furlong", "7"}, /* unused: unit never read */
        };
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            if (!only_metric || strcmp(only_metric, rows[i].m) == 0)
                add_row(&s, id, pid, k, "8.0", rows[i].m, rows[i].u, rows[i].v);
    }
    return s;
}

static void test_synthetic_one_file(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *path = rt_asprintf("%s/all.csv", dir);
    char *text = synthetic(NULL);
    assert_int_equal(tu_write_file(path, text), 0);
    rt_profile *p = NULL;
    rt_error err = {{0}};
    rt_warnings w = {0};
    rt_ncu_options o = {0};
    const char *paths[] = {path};
    if (rt_import_ncu(paths, 1, &o, &p, &w, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p->n_kernels, 2);
    const rt_kernel *g = find_kernel(p, "void gemm<float, 4>(Params<\"a,b\">)");
    assert_non_null(g);
    assert_int_equal((int)g->invocations, 2);
    /* Both launches at 1 GHz: 2e6 cycles / 1e9 Hz. */
    assert_close(g->time, 2e-3, 1e-12);
    assert_close(rt_values_get(&g->flops, "fp32", 0), 2 * (4000 + 10), 1e-12);
    /* CC 8.0: tensor FLOPs come from the ops counters, which this input lacks; the instruction
     * count is for sm_70 and sm_75 only (without --tensor-factor). */
    assert_false(rt_values_has(&g->flops, "tensor"));
    assert_false(rt_values_has(&g->flops, "tensor_fp16"));
    int lack_said = 0;
    for (size_t i = 0; i < w.n; i++)
        lack_said |= strstr(w.msg[i], "flops.tensor_fp16 not imported: metric "
                                      "'sm__ops_path_tensor_src_fp16_dst_fp16.sum'") != NULL;
    assert_true(lack_said);
    assert_close(rt_values_get(&g->bytes, "HBM", 0), 1e6, 1e-12);
    const rt_kernel *c = find_kernel(p, "copy_kernel");
    assert_non_null(c);
    /* Rates 1 GHz and 1.25 GHz: the authors' time is 2e6 / 1.125e9, the per-launch sum differs. */
    assert_close(c->time, 2e6 / 1.125e9, 1e-12);
    assert_close(rt_values_get(&c->flops, "fp32", 0), 4000 + 4000 + 10, 1e-12); /* one nan */
    int nan_said = 0;
    for (size_t i = 0; i < w.n; i++)
        nan_said |= strstr(w.msg[i], "nan") != NULL;
    assert_true(nan_said);
    assert_close(rt_values_get(&p->provenance.kernel_time_sum, "copy_kernel", 0), 1e-3 + 0.8e-3,
                 1e-12);
    /* Spreads of the launch times: 1 ms twice; 1 ms and 0.8 ms. */
    assert_true(g->spread.n == 2);
    assert_close(g->spread.median, 1e-3, 1e-12);
    assert_close(g->spread.q1, 1e-3, 1e-12);
    assert_true(c->spread.n == 2);
    assert_close(c->spread.median, 0.9e-3, 1e-12);
    assert_close(c->spread.q1, 0.85e-3, 1e-12);
    assert_close(c->spread.q3, 0.95e-3, 1e-12);
    assert_int_equal(p->provenance.n_inputs, 1);
    rt_profile_free(p);
    p = NULL;

    /* Per launch, and a tensor factor given by the user: the instruction count on CC 8.0 too. */
    o.per_launch = true;
    o.tensor_factor = 512;
    if (rt_import_ncu(paths, 1, &o, &p, &w, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p->n_kernels, 4);
    assert_string_equal(rt_tags_get(&p->kernels[3].tags, "process"), "12");
    assert_string_equal(rt_tags_get(&p->kernels[3].tags, "launch"), "1");
    assert_close(p->kernels[3].time, 0.8e-3, 1e-12);
    assert_true(p->kernels[3].spread.n == 0); /* one launch per kernel: no spread */
    assert_close(rt_values_get(&p->kernels[0].flops, "tensor", 0), 3 * 512.0, 1e-12);
    rt_profile_free(p);
    rt_warnings_release(&w);
    free(text);
    free(path);
    tu_rmtree(dir);
    free(dir);
}

/* The same data split one metric per file gives the same profile; a missing launch names both
 * files. */
static void test_synthetic_split_files(void **state)
{
    (void)state;
    static const char *const ms[] = {"sm__cycles_elapsed.avg",
                                     "sm__cycles_elapsed.avg.per_second",
                                     "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
                                     "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
                                     "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
                                     "sm__inst_executed_pipe_tensor.sum",
                                     "dram__bytes.sum"};
    char *dir = tu_tmpdir();
    char *paths[7];
    for (int i = 0; i < 7; i++) {
        paths[i] = rt_asprintf("%s/out.%s", dir, ms[i]);
        char *text = synthetic(ms[i]);
        assert_int_equal(tu_write_file(paths[i], text), 0);
        free(text);
    }
    rt_profile *p = NULL;
    rt_error err = {{0}};
    if (rt_import_ncu((const char *const *)paths, 7, NULL, &p, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p->n_kernels, 2);
    const rt_kernel *c = find_kernel(p, "copy_kernel");
    assert_close(c->time, 2e6 / 1.125e9, 1e-12);
    assert_close(rt_values_get(&c->flops, "fp32", 0), 4000 + 4000 + 10, 1e-12);
    assert_false(rt_values_has(&c->flops, "tensor")); /* CC 8.0: no ops counters in the input */
    assert_close(rt_values_get(&c->bytes, "HBM", 0), 1e6, 1e-12);
    rt_profile_free(p);
    p = NULL;

    /* Drop the last launch from the dram file: an error naming both files, or a warning. */
    char *text = synthetic("dram__bytes.sum");
    char *last = strrchr(text, '\n');
    *last = '\0';
    last = strrchr(text, '\n');
    last[1] = '\0';
    assert_int_equal(tu_write_file(paths[6], text), 0);
    free(text);
    assert_int_equal(rt_import_ncu((const char *const *)paths, 7, NULL, &p, NULL, &err), -1);
    assert_null(p);
    assert_non_null(strstr(err.msg, "out.dram__bytes.sum"));
    assert_non_null(strstr(err.msg, "out.sm__cycles_elapsed.avg"));
    assert_non_null(strstr(err.msg, "launch 1 of process 12"));
    rt_warnings w = {0};
    rt_ncu_options o = {.allow_missing = true};
    if (rt_import_ncu((const char *const *)paths, 7, &o, &p, &w, &err) != 0)
        fail_msg("%s", err.msg);
    c = find_kernel(p, "copy_kernel");
    assert_int_equal((int)c->invocations, 2);
    assert_close(rt_values_get(&c->bytes, "HBM", 0), 5e5, 1e-12);
    assert_true(w.n >= 1);
    rt_warnings_release(&w);
    rt_profile_free(p);
    for (int i = 0; i < 7; i++)
        free(paths[i]);
    tu_rmtree(dir);
    free(dir);
}

/* Files that list launches in different orders still join (the pending table grows and drains). */
static void test_shuffled_order(void **state)
{
    (void)state;
    enum { N = 300 };
    int order[N];
    for (int i = 0; i < N; i++)
        order[i] = i;
    unsigned r = 12345;
    for (int i = N - 1; i > 0; i--) {
        r = r * 1103515245u + 12345u;
        int j = (int)((r >> 8) % (unsigned)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    char *a = rt_asprintf("%s", new_header), *b = rt_asprintf("%s", new_header),
         *all = rt_asprintf("%s", new_header);
    char kn[32], v[32];
    for (int i = 0; i < N; i++) {
        snprintf(kn, sizeof kn, "k%d<int, %d>", i % 7, i % 3);
        snprintf(v, sizeof v, "%d", 1000 + i);
        add_row(&a, i, 5, kn, "7.0", "sm__cycles_elapsed.avg", "cycle", v);
        add_row(&a, i, 5, kn, "7.0", "sm__cycles_elapsed.avg.per_second", "cycle/second",
                "1000000");
        add_row(&all, i, 5, kn, "7.0", "sm__cycles_elapsed.avg", "cycle", v);
        add_row(&all, i, 5, kn, "7.0", "sm__cycles_elapsed.avg.per_second", "cycle/second",
                "1000000");
        snprintf(v, sizeof v, "%d", 7 * i);
        add_row(&all, i, 5, kn, "7.0", "dram__bytes.sum", "byte", v);
        int o = order[i];
        snprintf(kn, sizeof kn, "k%d<int, %d>", o % 7, o % 3);
        snprintf(v, sizeof v, "%d", 7 * o);
        add_row(&b, o, 9, kn, "7.0", "dram__bytes.sum", "byte", v);
    }
    char *dir = tu_tmpdir();
    char *pa = rt_asprintf("%s/a.csv", dir), *pb = rt_asprintf("%s/b.csv", dir),
         *pall = rt_asprintf("%s/all.csv", dir);
    assert_int_equal(tu_write_file(pa, a), 0);
    assert_int_equal(tu_write_file(pb, b), 0);
    assert_int_equal(tu_write_file(pall, all), 0);
    rt_profile *p1 = NULL, *p2 = NULL;
    rt_error err = {{0}};
    const char *two[] = {pa, pb}, *one[] = {pall};
    if (rt_import_ncu(two, 2, NULL, &p1, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    if (rt_import_ncu(one, 1, NULL, &p2, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(p1->n_kernels, 21);
    assert_int_equal(p2->n_kernels, 21);
    for (size_t i = 0; i < p2->n_kernels; i++) {
        const rt_kernel *k2 = &p2->kernels[i], *k1 = find_kernel(p1, k2->name);
        assert_non_null(k1);
        assert_close(k1->invocations, k2->invocations, 0);
        assert_close(k1->time, k2->time, 1e-12);
        assert_close(rt_values_get(&k1->bytes, "HBM", -1), rt_values_get(&k2->bytes, "HBM", -2),
                     1e-12);
    }
    rt_profile_free(p1);
    rt_profile_free(p2);
    free(a);
    free(b);
    free(all);
    free(pa);
    free(pb);
    free(pall);
    tu_rmtree(dir);
    free(dir);
}

/* A user's own mapping: other formulas and constants; a broken formula is an error naming the file.
 */
static void test_custom_mapping(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *map = rt_asprintf("%s/m.json", dir), *csv = rt_asprintf("%s/x.csv", dir);
    assert_int_equal(tu_write_file(map,
                                   "{\"schema\": \"rooftime.ncu-metrics/1\",\n"
                                   " \"constants\": {\"sm_70\": {\"w\": 3}},\n"
                                   " \"time\": {\"cycles\": \"sm__cycles_elapsed.avg\",\n"
                                   "          \"rate\": \"sm__cycles_elapsed.avg.per_second\"},\n"
                                   " \"quantities\": [\n"
                                   "  {\"quantity\": \"flops.fp32\", \"formula\": \"w * (a.sum - "
                                   "b.sum) / 2\"},\n"
                                   "  {\"quantity\": \"bytes.HBM\", \"formula\": \"32 * "
                                   "launch_time * a.sum\"}]}\n"),
                     0);
    char *text = rt_asprintf("%s", new_header);
    add_row(&text, 0, 1, "k", "7.0", "sm__cycles_elapsed.avg", "cycle", "500");
    add_row(&text, 0, 1, "k", "7.0", "sm__cycles_elapsed.avg.per_second", "Khz", "1");
    add_row(&text, 0, 1, "k", "7.0", "a.sum", "inst", "10");
    add_row(&text, 0, 1, "k", "7.0", "b.sum", "inst", "4");
    assert_int_equal(tu_write_file(csv, text), 0);
    rt_ncu_options o = {.metrics_file = map};
    rt_profile *p = NULL;
    rt_error err = {{0}};
    const char *paths[] = {csv};
    if (rt_import_ncu(paths, 1, &o, &p, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    assert_close(p->kernels[0].time, 0.5, 1e-15);
    assert_close(rt_values_get(&p->kernels[0].flops, "fp32", 0), 9, 1e-15);
    assert_close(rt_values_get(&p->kernels[0].bytes, "HBM", 0), 32 * 0.5 * 10, 1e-15);
    rt_profile_free(p);
    p = NULL;

    static const char *const bad_formula = "{\"schema\": \"rooftime.ncu-metrics/1\",\n"
                                           " \"time\": {\"cycles\": \"c\", \"rate\": \"r\"},\n"
                                           " \"quantities\": [{\"quantity\": \"flops.fp32\", "
                                           "\"formula\": \"2 * (a + \"}]}\n";
    assert_int_equal(tu_write_file(map, bad_formula), 0);
    assert_int_equal(rt_import_ncu(paths, 1, &o, &p, NULL, &err), -1);
    assert_non_null(strstr(err.msg, map));
    assert_non_null(strstr(err.msg, "character"));
    char want[4096 + 256];
    snprintf(want, sizeof want, "cannot read '%s': %sfield 'quantities[0].formula': formula: ", map,
             tu_place(bad_formula, "\"2 * (a + \""));
    if (!strstr(err.msg, want))
        fail_msg("'%s' does not say '%s'", err.msg, want);

    /* A constant that is not a number, and constants that are not an object: refused, not read
     * as "none for this architecture". */
    static const char *const bad_const = "{\"schema\": \"rooftime.ncu-metrics/1\",\n"
                                         " \"constants\": {\"sm_70\": {\"w\": \"3\"}},\n"
                                         " \"time\": {\"cycles\": \"c\", \"rate\": \"r\"},\n"
                                         " \"quantities\": []}\n";
    assert_int_equal(tu_write_file(map, bad_const), 0);
    assert_int_equal(rt_import_ncu(paths, 1, &o, &p, NULL, &err), -1);
    snprintf(want, sizeof want, "%sfield 'constants.sm_70.w': expected a number",
             tu_place(bad_const, "\"3\""));
    if (!strstr(err.msg, want))
        fail_msg("'%s' does not say '%s'", err.msg, want);
    assert_int_equal(tu_write_file(map, "{\"schema\": \"rooftime.ncu-metrics/1\", \"constants\": "
                                        "[1], \"time\": {\"cycles\": \"c\", \"rate\": \"r\"}, "
                                        "\"quantities\": []}"),
                     0);
    assert_int_equal(rt_import_ncu(paths, 1, &o, &p, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "field 'constants': expected an object, got an array"));

    /* Entries scoped by architecture: a to sm_75, b from sm_80; a launch of each kind of one
     * kernel sums its own. */
    static const char *const scoped =
        "{\"schema\": \"rooftime.ncu-metrics/1\",\n"
        " \"time\": {\"cycles\": \"sm__cycles_elapsed.avg\",\n"
        "          \"rate\": \"sm__cycles_elapsed.avg.per_second\"},\n"
        " \"quantities\": [\n"
        "  {\"quantity\": \"flops.fp32\", \"to_arch\": \"sm_75\", \"formula\": \"a.sum\"},\n"
        "  {\"quantity\": \"flops.fp32\", \"from_arch\": \"sm_80\", \"formula\": \"b.sum\"},\n"
        "  {\"quantity\": \"flops.tensor_fp16\", \"from_arch\": \"sm_80\", \"formula\": "
        "\"b.sum\"}]}\n";
    assert_int_equal(tu_write_file(map, scoped), 0);
    add_row(&text, 1, 1, "k", "8.0", "sm__cycles_elapsed.avg", "cycle", "500");
    add_row(&text, 1, 1, "k", "8.0", "sm__cycles_elapsed.avg.per_second", "Khz", "1");
    add_row(&text, 1, 1, "k", "8.0", "a.sum", "inst", "100");
    add_row(&text, 1, 1, "k", "8.0", "b.sum", "inst", "7");
    assert_int_equal(tu_write_file(csv, text), 0);
    if (rt_import_ncu(paths, 1, &o, &p, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    assert_close(rt_values_get(&p->kernels[0].flops, "fp32", 0), 10 + 7, 1e-15);
    assert_close(rt_values_get(&p->kernels[0].flops, "tensor_fp16", 0), 7, 1e-15);
    rt_profile_free(p);
    p = NULL;
    static const char *const bad_scope[][3] = {
        {"\"from_arch\": \"sm_x\"", "\"sm_x\"",
         "field 'quantities[0].from_arch': 'sm_x' is not an architecture like sm_80"},
        {"\"from_arch\": 80", "80",
         "field 'quantities[0].from_arch': not an architecture like sm_80"},
        {"\"from_arch\": \"sm_90\", \"to_arch\": \"sm_80\"", "\"sm_90\"",
         "field 'quantities[0].from_arch': sm_90 is above to_arch sm_80"},
        {"\"to_arch\": \"8.0\", \"set\": 3", "3,", "field 'quantities[0].set': expected a string"},
    };
    for (size_t i = 0; i < sizeof bad_scope / sizeof bad_scope[0]; i++) {
        char *m = rt_asprintf("{\"schema\": \"rooftime.ncu-metrics/1\",\n"
                              " \"time\": {\"cycles\": \"c\", \"rate\": \"r\"},\n"
                              " \"quantities\": [{\"quantity\": \"flops.fp32\", %s, "
                              "\"formula\": \"a\"}]}\n",
                              bad_scope[i][0]);
        assert_int_equal(tu_write_file(map, m), 0);
        /* the line and column of the value, counted here in the text */
        snprintf(want, sizeof want, "cannot read '%s': %s%s", map, tu_place(m, bad_scope[i][1]),
                 bad_scope[i][2]);
        free(m);
        assert_int_equal(rt_import_ncu(paths, 1, &o, &p, NULL, &err), -1);
        if (!strstr(err.msg, want))
            fail_msg("'%s': '%s' does not say '%s'", bad_scope[i][0], err.msg, want);
    }
    free(text);
    free(map);
    free(csv);
    tu_rmtree(dir);
    free(dir);
}

/* Nsight's commas group thousands ("1,288,549,677,760"); a comma anywhere else (a decimal comma,
 * "1.234,5") is an error naming the line and field, never a number with the comma dropped. */
static void test_commas_group_thousands_only(void **state)
{
    (void)state;
    static const struct {
        const char *value;
        double bytes; /* < 0: an error */
    } cases[] = {
        {"1,000", 1000},     {"1,288,549,677,760", 1288549677760.0},
        {"1,000.5", 1000.5}, {"-0", 0},
        {"1,5", -1},         {"1.234,5", -1},
        {",5", -1},          {"5,", -1},
        {"1,,000", -1},      {"12,34,567", -1},
        {"1234,567", -1},    {"1,000,00", -1},
    };
    char *dir = tu_tmpdir();
    char *path = rt_asprintf("%s/commas.csv", dir);
    const char *paths[] = {path};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = rt_strdup(new_header);
        add_row(&s, 0, 1, "k", "8.0", "sm__cycles_elapsed.avg", "cycle", "1,000");
        add_row(&s, 0, 1, "k", "8.0", "sm__cycles_elapsed.avg.per_second", "cycle/second", "1e9");
        add_row(&s, 0, 1, "k", "8.0", "dram__bytes.sum", "byte", cases[i].value);
        assert_int_equal(tu_write_file(path, s), 0);
        free(s);
        rt_profile *p = NULL;
        rt_error err = {{0}};
        rt_ncu_options o = {0};
        o.allow_missing = true;
        int rc = rt_import_ncu(paths, 1, &o, &p, NULL, &err);
        if (cases[i].bytes < 0) {
            if (rc == 0)
                fail_msg("'%s' was read as %g bytes", cases[i].value,
                         rt_values_get(&p->kernels[0].bytes, "HBM", 0));
            char want[128];
            snprintf(want, sizeof want, "line 4: field 'Metric Value': '%s' is not a number",
                     cases[i].value);
            if (!strstr(err.msg, want))
                fail_msg("'%s': '%s' does not say '%s'", cases[i].value, err.msg, want);
        } else {
            if (rc != 0)
                fail_msg("'%s': %s", cases[i].value, err.msg);
            assert_close(rt_values_get(&p->kernels[0].bytes, "HBM", 0), cases[i].bytes, 1e-12);
            rt_profile_free(p);
        }
    }
    free(path);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deepcam_matches_expected),
        cmocka_unit_test(test_gpp_thousands_and_hz),
        cmocka_unit_test(test_synthetic_one_file),
        cmocka_unit_test(test_synthetic_split_files),
        cmocka_unit_test(test_shuffled_order),
        cmocka_unit_test(test_custom_mapping),
        cmocka_unit_test(test_commas_group_thousands_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
