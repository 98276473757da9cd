/* The CUPTI collector's directory importer: trace and counters joined, formulas, bad input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/cupti.h"
#include "rooftime/util/error.h"

#define MET                                                                                        \
    "sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,"                                    \
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_"     \
    "pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,"                               \
    "sm__ops_path_tensor_src_fp16.sum,dram__bytes.sum,lts__t_bytes.sum"

static void put(const char *dir, const char *name, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(tu_write_file(path, text), 0);
}

static const char *collector(const char *mode)
{
    static char buf[512];
    snprintf(buf, sizeof buf,
             "format=rooftime.cupti/1\nmode=%s\npid=1\nstarted_ns=%s\ncupti_version=130001\n"
             "device=Test GPU\ncc=90\nchip=GH100\nend=ok\n",
             mode, mode[0] == 't' ? "100" : "200");
    return buf;
}

/* Two traced launches of k, one of g; counters for the same three in launch order. */
static void write_run(const char *dir)
{
    put(dir, "collector.11.txt", collector("trace"));
    put(dir, "kernels.11.csv",
        RT_CUPTI_KERNEL_HEADER "\n"
                               "5,k,1000,3000,0,1,7,0,10,1,1,128,1,1,32,0,0\n"
                               "3,k,0,1000,0,1,7,0,10,1,1,128,1,1,32,0,0\n"
                               "4,\"g<1, 2>\",1000,1500,0,1,7,9,4,2,1,256,1,1,32,0,0\n");
    put(dir, "launches.11.csv",
        RT_CUPTI_LAUNCH_HEADER
        "\n3,cudaLaunchKernel,0,4000,11,k\n5,cudaLaunchKernel,0,2000,11,k\n");
    put(dir, "collector.12.txt", collector("counters"));
    put(dir, "ranges.12.csv",
        "range,name," MET "\n"
        "0,k,1000,1e9,100,10,0,0,4096,8192\n"
        "1,\"g<1, 2>\",500,1e9,0,0,0,6144,64,128\n"
        "2,k,2000,1e9,200,20,0,0,8192,16384\n");
}

static rt_profile *import_dir(const char *dir, int per_launch, rt_warnings *w, rt_error *err)
{
    rt_cupti_options o = {.per_launch = per_launch};
    rt_profile *p = NULL;
    if (rt_import_cupti(dir, &o, &p, w, err) != 0)
        return NULL;
    return p;
}

static void test_join(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    write_run(dir);
    rt_warnings w = {0};
    rt_error err = {{0}};
    rt_profile *p = import_dir(dir, 0, &w, &err);
    if (!p)
        fail_msg("%s", err.msg);
    assert_string_equal(p->tool, "cupti");
    assert_int_equal(p->time_kind, RT_TIME_DEVICE); /* not capped by n x tau in analyze */
    assert_string_equal(p->machine, "Test GPU");
    assert_int_equal(p->n_kernels, 2);
    const rt_kernel *k = &p->kernels[0], *g = &p->kernels[1];
    assert_string_equal(k->name, "k");
    assert_string_equal(g->name, "g<1, 2>");
    assert_close(k->invocations, 2, 1e-12);
    assert_close(k->time, 3000e-9, 1e-9); /* from the trace: 1000 + 2000 ns */
    /* fp32 = fadd + 2 ffma over both ranges; bytes per level summed */
    assert_close(rt_values_get(&k->flops, "fp32", -1), 2 * 100 + 10 + 2 * 200 + 20, 1e-12);
    assert_close(rt_values_get(&k->bytes, "HBM", -1), 4096 + 8192, 1e-12);
    assert_close(rt_values_get(&k->bytes, "L2", -1), 8192 + 16384, 1e-12);
    /* tensor_fp16 = sm_90's ops counter x tensor_op_flops (1); no instruction count on sm_90 */
    assert_close(rt_values_get(&g->flops, "tensor_fp16", -1), 6144, 1e-12);
    assert_false(rt_values_has(&g->flops, "tensor"));
    assert_close(g->time, 500e-9, 1e-9);
    assert_string_equal(rt_tags_get(&k->tags, "grid"), "10,1,1");
    assert_string_equal(rt_tags_get(&g->tags, "block"), "256,1,1");
    /* the launch call's mean CPU time: (4000 + 2000) / 2 ns */
    assert_string_equal(rt_tags_get(&k->tags, "launch_call_us"), "3.000");
    /* provenance: the files read, launches typed, the formulas, the counter run's own times */
    const rt_provenance *pv = &p->provenance;
    assert_int_equal(pv->n_inputs,
                     5); /* collector, kernels and launches of 11; collector, ranges of 12 */
    assert_close(pv->launches, 3, 1e-12);
    assert_string_equal(rt_tags_get(&pv->notes, "traced_launches"), "3");
    assert_string_equal(rt_tags_get(&pv->notes, "counter_ranges"), "3");
    assert_non_null(rt_tags_get(&pv->formulas, "flops.fp32"));
    /* k's ranges: 1000 + 2000 cycles at 1 GHz */
    assert_close(rt_values_get(&pv->kernel_time_sum, "k", -1), 3000e-9, 1e-9);
    rt_profile_free(p);

    /* Per launch: launch order by correlation ID, so launch 3 (1000 ns) joins range 0. */
    p = import_dir(dir, 1, &w, &err);
    if (!p)
        fail_msg("%s", err.msg);
    assert_int_equal(p->n_kernels, 3);
    assert_string_equal(rt_tags_get(&p->kernels[0].tags, "launch"), "3");
    assert_close(p->kernels[0].time, 1000e-9, 1e-9);
    assert_close(rt_values_get(&p->kernels[0].flops, "fp32", -1), 210, 1e-12);
    assert_close(rt_values_get(&p->kernels[2].flops, "fp32", -1), 420, 1e-12);
    assert_string_equal(rt_tags_get(&p->kernels[1].tags, "graph"), "9");
    rt_profile_free(p);
    rt_warnings_release(&w);
    tu_rmtree(dir);
    free(dir);
}

static void test_counters_only(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    put(dir, "collector.12.txt", collector("counters"));
    put(dir, "ranges.12.csv", "range,name," MET "\n0,k,1000,1e9,100,10,0,0,4096,8192\n");
    rt_warnings w = {0};
    rt_error err = {{0}};
    rt_profile *p = import_dir(dir, 0, &w, &err);
    if (!p)
        fail_msg("%s", err.msg);
    assert_int_equal(p->n_kernels, 1);
    assert_close(p->kernels[0].time, 1e-6, 1e-9); /* cycles / rate */
    assert_true(w.n >= 1);
    rt_profile_free(p);
    rt_warnings_release(&w);
    tu_rmtree(dir);
    free(dir);
}

/* One bad file at a time: the error names the file and the field. */
static void expect_error(const char *file, const char *text, const char *want)
{
    char *dir = tu_tmpdir();
    write_run(dir);
    if (file)
        put(dir, file, text);
    rt_warnings w = {0};
    rt_error err = {{0}};
    rt_profile *p = import_dir(dir, 0, &w, &err);
    if (p)
        fail_msg("%s: imported, expected '%s'", file ? file : "-", want);
    if (!strstr(err.msg, want))
        fail_msg("error '%s' lacks '%s'", err.msg, want);
    rt_warnings_release(&w);
    tu_rmtree(dir);
    free(dir);
}

/* A process killed while collecting leaves no 'end' line: its kernels import, with a warning
 * naming the file and the process; a kernels file with fewer rows than the collector says it
 * wrote (cut at a line's end), or none at all, is an error. */
static void test_unfinished_and_cut(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    write_run(dir);
    put(dir, "collector.11.txt",
        "format=rooftime.cupti/1\nmode=trace\npid=11\ndevice=Test GPU\ncc=90\n");
    rt_warnings w = {0};
    rt_error err = {{0}};
    rt_profile *p = import_dir(dir, 0, &w, &err);
    if (!p)
        fail_msg("%s", err.msg);
    int said = 0;
    for (size_t i = 0; i < w.n; i++)
        said += strstr(w.msg[i], "collector.11.txt: no 'end' line: process 11 stopped before the "
                                 "collector finished") != NULL;
    assert_int_equal(said, 1);
    rt_profile_free(p);
    rt_warnings_release(&w);
    tu_rmtree(dir);
    free(dir);
    const char *ended = "format=rooftime.cupti/1\nmode=trace\npid=11\ncc=90\nkernels=%d\nend=ok\n";
    char text[256];
    snprintf(text, sizeof text, ended, 3); /* the three rows write_run writes */
    dir = tu_tmpdir();
    write_run(dir);
    put(dir, "collector.11.txt", text);
    w = (rt_warnings){0};
    p = import_dir(dir, 0, &w, &err);
    if (!p)
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < w.n; i++)
        assert_null(strstr(w.msg[i], "collector.11.txt"));
    rt_profile_free(p);
    rt_warnings_release(&w);
    tu_rmtree(dir);
    free(dir);
    snprintf(text, sizeof text, ended, 4);
    expect_error("collector.11.txt", text,
                 "kernels.11.csv: 3 kernels, where collector.11.txt says the collector wrote 4");
    dir = tu_tmpdir();
    write_run(dir);
    put(dir, "collector.11.txt", text);
    char path[4200];
    snprintf(path, sizeof path, "%s/kernels.11.csv", dir);
    remove(path);
    assert_null(import_dir(dir, 0, &w, &err));
    assert_non_null(strstr(err.msg, "kernels.11.csv is missing, where collector.11.txt says"));
    rt_warnings_release(&w);
    tu_rmtree(dir);
    free(dir);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    expect_error("collector.11.txt", "format=other/1\nmode=trace\n", "format 'other/1'");
    expect_error("collector.11.txt", "format=rooftime.cupti/1\n", "no mode line");
    expect_error("collector.11.txt", "format=rooftime.cupti/1\nmode=fast\n", "mode 'fast'");
    expect_error("collector.12.txt",
                 "format=rooftime.cupti/1\nmode=counters\nerror=cuptiSubscribe: busy\n",
                 "collector.12.txt: the collector failed in process 12: cuptiSubscribe: busy");
    expect_error("kernels.11.csv", RT_CUPTI_KERNEL_HEADER "\n3,k,x,1,0,1,7,0,1,1,1,1,1,1,0,0,0\n",
                 "kernels.11.csv: line 2: start_ns 'x' is not a whole number");
    expect_error("kernels.11.csv", RT_CUPTI_KERNEL_HEADER "\n3,k,9,1,0,1,7,0,1,1,1,1,1,1,0,0,0\n",
                 "line 2: end_ns 1 < start_ns 9");
    expect_error("kernels.11.csv", RT_CUPTI_KERNEL_HEADER "\n3,k,1,9,0,1,7,0,-1,1,1,1,1,1,0,0,0\n",
                 "line 2: grid_x '-1' is not a dimension");
    expect_error("kernels.11.csv", RT_CUPTI_KERNEL_HEADER "\n3,k,1,9\n", "line 2: 4 fields");
    expect_error("kernels.11.csv", "correlation,name,start\n", "column 3 is 'start'");
    expect_error("kernels.11.csv", "", "empty (no header)");
    expect_error("launches.11.csv", RT_CUPTI_LAUNCH_HEADER "\n3,cudaLaunchKernel,5,4,1,k\n",
                 "launches.11.csv: line 2");
    /* a bad row after a good one: what was read so far is freed (fuzz-cupti found the leak) */
    expect_error("launches.11.csv",
                 RT_CUPTI_LAUNCH_HEADER "\n3,cudaLaunchKernel,0,4000,11,k\n4,cudaLaunchKernel\n",
                 "launches.11.csv: line 3: 2 fields, expected 6");
    expect_error("ranges.12.csv", "range,name," MET "\n0,k,1000,1e9,-5,10,0,0,4096,8192\n",
                 "line 2: sm__sass_thread_inst_executed_op_ffma_pred_on.sum = '-5'");
    expect_error("ranges.12.csv", "range,name," MET "\n0,k,1000\n", "line 2: 3 fields");
    expect_error("ranges.12.csv", "range,name,dram__bytes.sum\n0,k,1\n",
                 "the counters lack the time metrics");
}

/* --reevaluate's rows: ranges.PID.csv from another directory, the kept images in the provenance. */
static void test_ranges_dir(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *fresh = tu_tmpdir();
    write_run(dir);
    assert_int_equal(rt_cupti_image_manifests(dir), 0);
    put(dir, "images.12.csv", RT_CUPTI_IMAGE_HEADER "\n");
    assert_int_equal(rt_cupti_image_manifests(dir), 1);
    /* Read as it is: the collector's values, and a note that the images can be evaluated. */
    rt_error err = {{0}};
    rt_profile *p = import_dir(dir, 0, NULL, &err);
    if (!p)
        fail_msg("%s", err.msg);
    const char *note = rt_tags_get(&p->provenance.notes, "counter_images");
    assert_non_null(note);
    assert_non_null(strstr(note, "--reevaluate` evaluates them again"));
    rt_profile_free(p);
    /* Re-evaluated: k's FLOPs doubled in the fresh rows, which are read instead. */
    put(fresh, "ranges.12.csv",
        "range,name," MET "\n"
        "0,k,1000,1e9,200,20,0,0,4096,8192\n"
        "1,\"g<1, 2>\",500,1e9,0,0,0,6144,64,128\n"
        "2,k,2000,1e9,400,40,0,0,8192,16384\n");
    rt_cupti_options o = {.ranges_dir = fresh};
    if (rt_import_cupti(dir, &o, &p, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    assert_close(rt_values_get(&p->kernels[0].flops, "fp32", -1), 2 * (2 * 100 + 10 + 2 * 200 + 20),
                 1e-12);
    const rt_provenance *pv = &p->provenance;
    int manifest = 0;
    for (size_t i = 0; i < pv->n_inputs; i++) {
        assert_null(strstr(pv->inputs[i], fresh)); /* the scratch directory is no input */
        assert_null(strstr(pv->inputs[i], "ranges.12.csv"));
        manifest += strstr(pv->inputs[i], "/images.12.csv") != NULL;
    }
    assert_int_equal(manifest, 1);
    assert_non_null(strstr(rt_tags_get(&pv->notes, "counter_images"), "evaluated again"));
    assert_non_null(strstr(p->method, "raw images evaluated again"));
    rt_profile_free(p);
    /* A bad fresh row names its file. */
    put(fresh, "ranges.12.csv", "range,name," MET "\n0,k,1000\n");
    assert_int_not_equal(rt_import_cupti(dir, &o, &p, NULL, &err), 0);
    assert_non_null(strstr(err.msg, "ranges.12.csv: line 2: 3 fields"));
    tu_rmtree(fresh);
    tu_rmtree(dir);
    free(fresh);
    free(dir);
}

static void test_nothing_captured(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    rt_error err = {{0}};
    assert_null(import_dir(dir, 0, NULL, &err));
    assert_non_null(strstr(err.msg, "no kernel was captured"));
    put(dir, "collector.5.txt", collector("trace"));
    put(dir, "kernels.5.csv", RT_CUPTI_KERNEL_HEADER "\n");
    assert_null(import_dir(dir, 0, NULL, &err));
    assert_non_null(strstr(err.msg, "no kernel was captured"));
    tu_rmtree(dir);
    free(dir);
    assert_null(import_dir("/nonexistent/rooftime-cupti", 0, NULL, &err));
    assert_non_null(strstr(err.msg, "cannot read directory '/nonexistent/rooftime-cupti'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join),
        cmocka_unit_test(test_counters_only),
        cmocka_unit_test(test_unfinished_and_cut),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_ranges_dir),
        cmocka_unit_test(test_nothing_captured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
