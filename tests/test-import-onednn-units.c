/* oneDNN's verbose formats, every version in use, and the unit each kernel ran on: real logs of
 * oneDNN 3.13 (torch 2.15) and 2.6 (Debian), lines AMX machines printed (oneDNN 2.7.3 quoted in
 * PyTorch's AMX recipe, 3.3.2 in a public benchmark), the format table's header rows, and the unit
 * table (data/onednn/units.json). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/onednn-units.h"
#include "rooftime/import/onednn.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static char *data_path(const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/tests/data/%s", tu_src(), name);
    return buf;
}

static const rt_kernel *find(const rt_profile *p, const char *a, const char *b)
{
    for (size_t i = 0; i < p->n_kernels; i++)
        if (strstr(p->kernels[i].name, a) && (!b || strstr(p->kernels[i].name, b)))
            return &p->kernels[i];
    fail_msg("no kernel with '%s' and '%s'", a, b ? b : "");
    return NULL;
}

static int warned(const rt_warnings *w, const char *a, const char *b)
{
    int n = 0;
    for (size_t i = 0; i < w->n; i++)
        n += strstr(w->msg[i], a) && (!b || strstr(w->msg[i], b));
    return n;
}

/* The only unit a kernel's FLOPs are on, and their amount per call. */
static void expect_unit(const rt_kernel *k, const char *unit, double per_call)
{
    if (k->flops.n != 1 || strcmp(k->flops.v[0].key, unit) != 0)
        fail_msg("%s: FLOPs on '%s', expected '%s'", k->name,
                 k->flops.n ? k->flops.v[0].key : "(none)", unit);
    assert_close(k->flops.v[0].value / k->invocations, per_call, 1e-12);
}

static rt_profile *import_text(const char *text, rt_warnings *w)
{
    rt_profile *p = NULL;
    rt_error err = {{0}};
    if (rt_import_onednn_text(text, strlen(text), "t.log", &p, w, &err) != 0)
        fail_msg("import failed: %s", err.msg);
    for (size_t i = 0; i < w->n; i++)
        print_message("warning: %s\n", w->msg[i]);
    return p;
}

/* torch 2.15's oneDNN 3.13 (verbose v1) and Debian's 2.6, recorded with the same script: the
 * same kernels, FLOPs and units from both formats. */
static void test_recorded_versions(void **state)
{
    (void)state;
    static const char *const logs[] = {"onednn-3.13-torch-bf16.log", "onednn-2.6-torch-bf16.log"};
    for (int v = 0; v < 2; v++) {
        rt_profile *p = NULL;
        rt_warnings w = {0};
        rt_error err = {{0}};
        assert_int_equal(rt_import_onednn(data_path(logs[v]), &p, &w, &err), 0);
        assert_int_equal(w.n, 0);
        const char *fmt = rt_tags_get(&p->provenance.notes, "onednn_verbose_format");
        assert_non_null(strstr(fmt, v == 0 ? "oneDNN 3.6 and later" : "oneDNN 2.3 to 3.2"));
        assert_string_equal(p->version, v == 0 ? "3.13.3" : "2.6.3");
        assert_string_equal(rt_tags_get(&p->provenance.notes, "onednn_cpu_isa"),
                            "avx512_core_bf16");
        /* conv 4x16x14x14 -> 32 filters 3x3, pad 1: 40 taps inside the input per axis (12
         * outputs x 3 + 2 border outputs x 2), + the bias */
        expect_unit(find(p, "convolution", "forward_training"), "bf16",
                    2.0 * 4 * 32 * 16 * 40 * 40 + 4 * 32 * 196);
        /* linear 32x64 -> 128 as a matmul (2.6 prints the destination too, 3.x not) */
        expect_unit(find(p, "matmul", "32x64:64x128"), "bf16", 2.0 * 32 * 64 * 128);
        expect_unit(find(p, "matmul", "8x16x32:8x32x16"), "bf16", 2.0 * 8 * 16 * 32 * 16);
        if (v == 0) /* torch 2.15 runs nn.LSTM through oneDNN's rnn primitive */
            expect_unit(find(p, "rnn brgemm:avx512_core_bf16 forward_training", NULL), "bf16",
                        8 * (2.0 * 4 * 4 * 16 * (32 + 16) + 4 * 4 * 16));
        /* a bf16 reorder moves bytes and computes nothing: no unit of its own */
        expect_unit(find(p, "reorder", "bf16"), "fp32", 0);
        rt_profile_free(p);
        rt_warnings_release(&w);
    }
}

/* oneDNN Graph (TorchScript's oneDNN fusion): its partitions' records are counted and said, the
 * primitives they ran imported once. */
static void test_recorded_graph(void **state)
{
    (void)state;
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_onednn(data_path("onednn-3.13-torch-graph.log"), &p, &w, &err), 0);
    assert_int_equal(w.n, 1);
    assert_int_equal(warned(&w, "3 oneDNN 'graph' records not imported", NULL), 1);
    const rt_kernel *k = find(p, "convolution brg_conv_fwd:avx512_core forward_inference", NULL);
    assert_close(k->invocations, 3, 0);
    assert_true(rt_values_has(&k->flops, "fp32"));
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* Lines an AMX machine printed (oneDNN 2.7.3, 128 threads), quoted in PyTorch's AMX recipe:
 * github pytorch/tutorials, recipes_source/amx.rst, commit 92f11a171bb3f3f6bbd8dfb102c59d67c2385032
 * (the recipe elides the lines between them with "..."; these are the lines it shows). */
static const char amx_recipe[] =
    "onednn_verbose,info,oneDNN v2.7.3 (commit 6dbeffbae1f23cbbeae17adb7b5b13f1f37c080e)\n"
    "onednn_verbose,info,cpu,runtime:OpenMP,nthr:128\n"
    "onednn_verbose,info,cpu,isa:Intel AVX-512 with float16, Intel DL Boost and bfloat16 support "
    "and Intel AMX with bfloat16 and 8-bit integer support\n"
    "onednn_verbose,info,gpu,runtime:none\n"
    "onednn_verbose,info,prim_template:operation,engine,primitive,implementation,prop_kind,"
    "memory_descriptors,attributes,auxiliary,problem_desc,exec_time\n"
    "onednn_verbose,exec,cpu,reorder,simple:any,undef,src_f32::blocked:a:f0 dst_f32::blocked:a:"
    "f0,attr-scratchpad:user ,,2,5.2561\n"
    "onednn_verbose,exec,cpu,convolution,jit:avx512_core_amx_bf16,forward_training,src_bf16::"
    "blocked:acdb:f0 wei_bf16:p:blocked:ABcd16b16a2b:f0 bia_f32::blocked:a:f0 dst_bf16::blocked:"
    "acdb:f0,attr-scratchpad:user ,alg:convolution_direct,mb7_ic2oc1_ih224oh111kh3sh2dh1ph1_"
    "iw224ow111kw3sw2dw1pw1,0.628906\n"
    "onednn_verbose,exec,cpu,matmul,brg:avx512_core_amx_int8,undef,src_s8::blocked:ab:f0 wei_s8:"
    "p:blocked:BA16a64b4a:f0 dst_s8::blocked:ab:f0,attr-scratchpad:user ,,1x30522:30522x768:1x768,"
    "7.66382\n";

static void test_amx_machine_lines(void **state)
{
    (void)state;
    rt_warnings w = {0};
    rt_profile *p = import_text(amx_recipe, &w);
    assert_int_equal(w.n, 0);
    assert_string_equal(rt_tags_get(&p->provenance.notes, "onednn_cpu_isa"), "avx512_core_amx");
    /* dilation 1 (0-based): effective kernel 5, 224 -> 111 with stride 2, pad 1 */
    const rt_kernel *c = find(p, "convolution jit:avx512_core_amx_bf16", NULL);
    assert_true(rt_values_has(&c->flops, "amx_bf16"));
    assert_int_equal(c->flops.n, 1);
    expect_unit(find(p, "matmul brg:avx512_core_amx_int8", NULL), "amx_int8", 2.0 * 30522 * 768);
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* oneDNN 3.3.2 (torch 2.2.2) on a Sapphire Rapids of 56 threads: bf16 linear layers as matmuls on
 * brg:avx512_core_amx, as github usstq/mm_amx, torch-ext/mlp_llama.py (commit
 * 6acec547b30cbfb41c6e5a8c2c15adadc00ff669) shows them (tests/data/README.md): the 3.3 records'
 * 'primitive' category and memory descriptors, with no header line before them. */
static void test_recorded_amx_onednn3(void **state)
{
    (void)state;
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_onednn(data_path("onednn-3.3.2-amx-mlp.log"), &p, &w, &err), 0);
    for (size_t i = 0; i < w.n; i++)
        print_message("warning: %s\n", w.msg[i]);
    assert_int_equal(w.n, 0);
    assert_string_equal(p->version, "3.3.2");
    assert_string_equal(rt_tags_get(&p->provenance.notes, "onednn_cpu_isa"), "avx512_core_amx");
    assert_non_null(strstr(rt_tags_get(&p->provenance.notes, "onednn_verbose_format"),
                           "records read as oneDNN 3.3 to 3.5"));
    assert_int_equal(p->n_kernels, 2);
    /* 256 tokens x 4096 -> 11008 (gate_proj, up_proj: 4 calls) and 11008 -> 4096 (down_proj) */
    const rt_kernel *up = find(p, "matmul brg:avx512_core_amx bf16 256x4096:4096x11008", NULL);
    const rt_kernel *down = find(p, "matmul brg:avx512_core_amx bf16 256x11008:11008x4096", NULL);
    assert_close(up->invocations, 4, 0);
    assert_close(down->invocations, 2, 0);
    expect_unit(up, "amx_bf16", 2.0 * 256 * 4096 * 11008);
    expect_unit(down, "amx_bf16", 2.0 * 256 * 4096 * 11008);
    assert_close(down->time, (1.21704 + 1.10205) * 1e-3, 1e-9);
    /* under a cap of AVX512_CORE_BF16 the same CPU line would not name AMX: see test_unit_table */
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* An implementation that names no ISA (oneDNN's jit GEMM picks AMX, AVX512-BF16 ... kernels at
 * run time): the widest unit the CPU's line names, said in a warning; without the line: unknown.
 * These lines are written for the test in the documented 2.x format. */
static void test_widest_of_cpu(void **state)
{
    (void)state;
    static const char ip[] =
        "onednn_verbose,exec,cpu,inner_product,gemm:jit,forward_inference,src_bf16::blocked:ab:f0 "
        "wei_bf16::blocked:ab:f0 bia_undef::undef::f0 dst_bf16::blocked:ab:f0,,,mb2ic3oc5,0.5\n";
    static const struct {
        const char *isa_line, *unit, *said;
    } cases[] = {
        {"onednn_verbose,info,cpu,isa:Intel AVX10.1 and Intel AMX with bfloat16 and 8-bit integer "
         "support\n",
         "amx_bf16", "widest unit the CPU has"},
        {"onednn_verbose,info,cpu,isa:Intel AVX-512 with Intel DL Boost and bfloat16 support\n",
         "bf16", "widest unit the CPU has"},
        {"onednn_verbose,info,cpu,isa:Intel AVX2\n", "fp32", "widest unit the CPU has"},
        {"", "unknown", "the log has no CPU line ('info,cpu,isa:')"},
        {"onednn_verbose,info,cpu,isa:Some future CPU\n", "unknown", "the table knows"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = rt_asprintf("%s%s", ip, cases[i].isa_line); /* the CPU line may come late */
        rt_warnings w = {0};
        rt_profile *p = import_text(text, &w);
        expect_unit(&p->kernels[0], cases[i].unit, 2.0 * 2 * 3 * 5);
        assert_int_equal(w.n, 1);
        assert_int_equal(warned(&w, cases[i].said, "inner_product gemm:jit bf16"), 1);
        rt_profile_free(p);
        rt_warnings_release(&w);
        free(text);
    }
}

/* oneDNN 3.x logs dnnl_sgemm and its kin as primitive records of kind "gemm_api" with an empty
 * implementation (src/common/gemm.cpp): a matrix product, on the CPU's widest unit for its data
 * type. The line is written for the test after that source. */
static void test_gemm_api(void **state)
{
    (void)state;
    static const char text[] =
        "onednn_verbose,v1,info,cpu,isa:Intel AVX-512 with Intel DL Boost and bfloat16 support\n"
        "onednn_verbose,v1,primitive,exec,cpu,gemm_api,,undef,src_f32::blocked:ab:f0 wei_f32::"
        "blocked:ab:f0 dst_f32::blocked:ab:f0,attr-post-ops:sum:1 ,,2x3:3x4,0.01\n";
    rt_warnings w = {0};
    rt_profile *p = import_text(text, &w);
    assert_int_equal(w.n, 0);
    expect_unit(&p->kernels[0], "fp32", 2.0 * 2 * 3 * 4);
    assert_close(rt_values_get(&p->kernels[0].bytes, "DRAM", 0), (6.0 + 12 + 8) * 4, 1e-12);
    rt_profile_free(p);
    rt_warnings_release(&w);
    /* dnnl_gemm_bf16bf16f32 on an AMX CPU: its driver picks AMX or AVX512-BF16 kernels at run
     * time, so the widest, amx_bf16, said in a warning; on a CPU capped at AVX2 (no bf16
     * instructions: oneDNN converts to f32), fp32 */
    static const char *const cpus[][2] = {
        {"Intel AVX-512 with float16, Intel DL Boost and bfloat16 support and Intel AMX with "
         "bfloat16 and 8-bit integer support",
         "amx_bf16"},
        {"Intel AVX2", "fp32"}};
    for (size_t c = 0; c < 2; c++) {
        char *bf = rt_asprintf("onednn_verbose,v1,info,cpu,isa:%s\n"
                               "onednn_verbose,v1,primitive,exec,cpu,gemm_api,,undef,src_bf16::"
                               "blocked:ab:f0 wei_bf16::blocked:ab:f0 dst_f32::blocked:ab:f0,,,"
                               "2x3:3x4,0.01\n",
                               cpus[c][0]);
        rt_warnings wb = {0};
        rt_profile *q = import_text(bf, &wb);
        expect_unit(&q->kernels[0], cpus[c][1], 2.0 * 2 * 3 * 4);
        assert_int_equal(warned(&wb, "widest unit the CPU has", "gemm_api"), 1);
        rt_profile_free(q);
        rt_warnings_release(&wb);
        free(bf);
    }
}

/* The unit table itself: implementation, kind and data type to the unit. */
static void test_unit_table(void **state)
{
    (void)state;
    rt_error err = {{0}};
    rt_onednn_units *u = rt_onednn_units_load(NULL, &err);
    if (!u)
        fail_msg("%s", err.msg);
    static const struct {
        const char *kind, *impl, *dt, *fpmath, *cpu, *unit;
        rt_onednn_unit_basis basis;
    } cases[] = {
        {"matmul", "brg_matmul:avx10_1_512_amx", "bf16", NULL, NULL, "amx_bf16", 0},
        {"convolution", "brg_conv_fwd:avx10_1_512_amx", "bf16", NULL, NULL, "amx_bf16", 0},
        {"convolution", "brgconv:avx512_core_amx_bf16", "bf16", NULL, NULL, "amx_bf16", 0},
        {"matmul", "brg:avx512_core_amx", "bf16", NULL, NULL, "amx_bf16", 0},
        {"matmul", "brg:avx512_core_amx", "u8", NULL, NULL, "amx_int8", 0},
        {"convolution", "jit:avx512_core_bf16", "bf16", NULL, "avx512_core_amx", "bf16", 0},
        {"convolution", "brgconv:avx512_core_vnni", "s8", NULL, NULL, "int8", 0},
        {"convolution", "jit:avx2", "bf16", NULL, NULL, "fp32", 0},
        {"matmul", "brg_matmul:avx10_1_512_amx_fp16", "f16", NULL, NULL, "amx_fp16", 0},
        {"matmul", "brg_matmul:avx10_1_512_amx", "f16", NULL, NULL, "fp16", 0},
        {"matmul", "brg_matmul:avx10_1_512_amx", "f32", NULL, NULL, "fp32", 0},
        {"matmul", "brg_matmul:avx10_1_512_amx", "f32", "bf16", NULL, "amx_bf16", 0},
        {"matmul", "brg_matmul:avx512_core", "f32", "bf16", NULL, "fp32", 0},
        {"inner_product", "x64:gemm:jit", "bf16", NULL, "avx512_core_amx", "amx_bf16", 1},
        {"inner_product", "gemm:jit", "s8", NULL, "avx512_core_vnni", "int8", 1},
        {"rnn", "ref", "bf16", NULL, "avx512_core_bf16", "bf16", 1},
        {"rnn", "brgemm", "bf16", NULL, NULL, "unknown", 2},
        {"rnn", "ref", "f32", NULL, NULL, "fp32", 0},
        {"convolution", "ref:any", "bf16", NULL, "avx512_core_amx", "fp32", 0},
        {"convolution", "gemm:ref", "s8", NULL, "avx512_core_amx", "int8", 0},
        {"eltwise", "jit:avx512_core_bf16", "bf16", NULL, NULL, "fp32", 0},
        {"pooling", "jit:avx512_core_amx", "s8", NULL, NULL, "int8", 0},
        {"softmax", "jit:avx512_core", "f64", NULL, NULL, "fp64", 0},
        {"matmul", "brg:avx512_core", "s4", NULL, NULL, "unknown", 2},
        /* what oneDNN 2.6 (Debian's, the study's) names on an AMX CPU (JIT_IMPL_NAME_HELPER
         * prints its ISAs avx512_core_bf16_amx_bf16 / _int8 as avx512_core_amx_bf16 / _int8;
         * its RNN is "brgemm" or "ref", kernels chosen at run time) */
        {"matmul", "brg:avx512_core_amx_bf16", "bf16", NULL, NULL, "amx_bf16", 0},
        {"inner_product", "brgemm:avx512_core_amx_int8", "u8", NULL, NULL, "amx_int8", 0},
        {"convolution", "brgconv_1x1:avx512_core_amx_bf16", "bf16", NULL, NULL, "amx_bf16", 0},
        {"rnn", "brgemm", "bf16", NULL, "avx512_core_amx", "amx_bf16", 1},
        /* 3.x: backward convolutions and int8 matmuls on AMX */
        {"convolution", "brg_conv_bwd_w:avx512_core_amx", "bf16", NULL, NULL, "amx_bf16", 0},
        {"matmul", "brg_matmul:avx10_1_512_amx", "s8", NULL, NULL, "amx_int8", 0},
        /* bf16 without bf16 instructions (ONEDNN_MAX_CPU_ISA=AVX512_CORE on this Zen 4: oneDNN 2.6
         * ran jit_bf16:avx512_core and gemm:jit), emulated in f32 */
        {"convolution", "jit_bf16:avx512_core", "bf16", NULL, NULL, "fp32", 0},
        {"matmul", "gemm:jit", "bf16", NULL, "avx512_core", "fp32", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rt_onednn_unit_basis b;
        const char *got = rt_onednn_units_unit(u, cases[i].kind, cases[i].impl, cases[i].dt,
                                               cases[i].fpmath, cases[i].cpu, &b, NULL);
        if (strcmp(got, cases[i].unit) != 0 || b != cases[i].basis)
            fail_msg("%s %s %s: %s (basis %d), expected %s (%d)", cases[i].kind, cases[i].impl,
                     cases[i].dt, got, (int)b, cases[i].unit, (int)cases[i].basis);
    }
    /* a CPU without AMX (AVX2, Zen 4/5's AVX-512) never gets an AMX unit, whatever ran */
    static const char *const no_amx[] = {"Intel AVX2", "Intel AVX-512 with Intel DL Boost",
                                         "Intel AVX-512 with Intel DL Boost and bfloat16 support",
                                         "Intel AVX 10.1", "Intel AVX10.2"};
    static const char *const dts[] = {"f32", "bf16", "f16", "s8", "u8", "f8_e4m3"};
    static const char *const impls[] = {"gemm:jit", "ref", "x64:gemm:blas", "brgemm"};
    for (size_t c = 0; c < sizeof no_amx / sizeof no_amx[0]; c++) {
        const char *isa = rt_onednn_units_cpu_isa(u, no_amx[c]);
        assert_non_null(isa);
        for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
            for (size_t m = 0; m < sizeof impls / sizeof impls[0]; m++)
                assert_null(strstr(
                    rt_onednn_units_unit(u, "matmul", impls[m], dts[d], NULL, isa, NULL, NULL),
                    "amx"));
    }
    char buf[16];
    assert_string_equal(
        rt_onednn_units_fpmath(u, "attr-scratchpad:user attr-fpmath:bf16:true", buf, sizeof buf),
        "bf16");
    assert_string_equal(rt_onednn_units_fpmath(u, "attr-fpmath_mode:f16", buf, sizeof buf), "f16");
    assert_null(rt_onednn_units_fpmath(u, "attr-scratchpad:user", buf, sizeof buf));
    rt_onednn_units_free(u);
}

/* The format table: a header names the columns (a reordered or longer template is followed), a
 * timestamp after v1, skipped checks; an unknown version field says where its row goes. Lines
 * written for the test after oneDNN's documented format. */
static void test_headers(void **state)
{
    (void)state;
    static const char text[] =
        "onednn_verbose,v1,primitive,info,template:timestamp,operation,engine,primitive,"
        "implementation,prop_kind,memory_descriptors,attributes,auxiliary,problem_desc,exec_time,"
        "thread\n"
        "onednn_verbose,v1,1700000000.5,primitive,exec,cpu,eltwise,jit:avx512_core,forward_"
        "inference,data:f32::blocked:ab::f0,attr-post-ops:sum,extra,alg:eltwise_relu,4x4,0.5,7\n"
        "onednn_verbose,v1,primitive,exec:check,cpu,eltwise,unused argument\n"
        "onednn_verbose,v2,primitive,exec,cpu,eltwise,jit,x,data:f32,,,4x4,0.5\n";
    rt_warnings w = {0};
    rt_profile *p = import_text(text, &w);
    assert_int_equal(p->n_kernels, 1);
    assert_close(p->kernels[0].time, 0.5e-3, 1e-12);
    assert_int_equal(warned(&w, "line 4: unknown verbose record 'v2'", "verbose-formats.json"), 1);
    assert_int_equal(warned(&w, "1 oneDNN verbose line could not be read (line 4)", NULL), 1);
    assert_int_equal(w.n, 2);
    rt_profile_free(p);
    rt_warnings_release(&w);
    /* a header without a column the reader needs: said, and the default columns used */
    static const char bad[] = "onednn_verbose,info,prim_template:operation,engine,primitive\n"
                              "onednn_verbose,exec,cpu,eltwise,jit,forward_inference,data_f32::"
                              "blocked:ab:f0,,alg:eltwise_relu,4x4,0.25\n";
    p = import_text(bad, &w);
    assert_int_equal(p->n_kernels, 1);
    assert_int_equal(warned(&w, "line 1: header: no column 'implementation'", NULL), 1);
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* Bad tables are refused with the field named: a CPU text naming an ISA the table lacks, a format
 * whose record pattern does not end with the operation. */
static void test_bad_tables(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *units = rt_asprintf("%s/units.json", dir);
    assert_int_equal(
        tu_write_file(units, "{\"schema\": \"rooftime.onednn-units/1\", \"matrix_kinds\": [], "
                             "\"compute\": {\"matrix\": {}, \"vector\": {}}, \"isas\": "
                             "{\"none\": [\"fp32\"]}, \"fpmath\": {}, \"fpmath_attributes\": "
                             "[], \"without_isa\": [], \"cpus\": {\"Intel X\": \"avx9\"}}\n"),
        0);
    rt_error err = {{0}};
    assert_null(rt_onednn_units_load(units, &err));
    print_message("%s\n", err.msg);
    assert_non_null(strstr(err.msg, "field 'cpus.Intel X': 'avx9' is not one of isas"));
    /* the line formats through the importer: a data directory with a bad verbose-formats.json */
    char *od = rt_asprintf("%s/onednn", dir);
    assert_int_equal(mkdir(od, 0700), 0);
    static const char *const shipped[] = {"cost.json", "units.json"};
    for (size_t i = 0; i < 2; i++) {
        char *from = rt_asprintf("%s/data/onednn/%s", tu_src(), shipped[i]);
        char *to = rt_asprintf("%s/%s", od, shipped[i]);
        char *text = tu_read_file(from, NULL);
        assert_non_null(text);
        assert_int_equal(tu_write_file(to, text), 0);
        free(text);
        free(from);
        free(to);
    }
    char *fmts = rt_asprintf("%s/verbose-formats.json", od);
    assert_int_equal(
        tu_write_file(fmts, "{\"schema\": \"rooftime.onednn-verbose/1\", \"markers\": "
                            "[\"onednn_verbose\"], \"formats\": [{\"versions\": \"x\", "
                            "\"record\": [\"operation\", \"v1\"]}], \"columns\": [\"operation\", "
                            "\"engine\", \"primitive\", \"implementation\", \"prop_kind\", "
                            "\"memory_descriptors\", \"attributes\", \"auxiliary\", "
                            "\"problem_desc\", \"exec_time\"], "
                            "\"categories\": {}, \"operations\": {}}\n"),
        0);
    const char *saved = getenv("ROOFTIME_DATADIR");
    char *keep = saved ? rt_strdup(saved) : NULL;
    setenv("ROOFTIME_DATADIR", dir, 1);
    static const char line[] = "onednn_verbose,exec,cpu,eltwise,jit,x,data_f32,,,4x4,0.5\n";
    rt_profile *p = NULL;
    rt_warnings w = {0};
    assert_int_equal(rt_import_onednn_text(line, strlen(line), "t", &p, &w, &err), -1);
    print_message("%s\n", err.msg);
    assert_non_null(strstr(err.msg, "field 'formats[0].record': must end with 'operation'"));
    if (keep)
        setenv("ROOFTIME_DATADIR", keep, 1);
    else
        unsetenv("ROOFTIME_DATADIR");
    rt_warnings_release(&w);
    free(keep);
    free(fmts);
    free(od);
    free(units);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded_versions), cmocka_unit_test(test_recorded_graph),
        cmocka_unit_test(test_amx_machine_lines), cmocka_unit_test(test_recorded_amx_onednn3),
        cmocka_unit_test(test_widest_of_cpu),     cmocka_unit_test(test_unit_table),
        cmocka_unit_test(test_headers),           cmocka_unit_test(test_bad_tables),
        cmocka_unit_test(test_gemm_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
