/* oneDNN verbose importer: recordings, every line format, FLOP models against hand counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/onednn.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static char *data_path(const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/tests/data/%s", tu_src(), name);
    return buf;
}

static const rt_kernel *find(const rt_profile *p, const char *needle1, const char *needle2)
{
    for (size_t i = 0; i < p->n_kernels; i++)
        if (strstr(p->kernels[i].name, needle1) &&
            (!needle2 || strstr(p->kernels[i].name, needle2)))
            return &p->kernels[i];
    fail_msg("no kernel with '%s' and '%s'", needle1, needle2 ? needle2 : "");
    return NULL;
}

/* Import one text; the profile must hold exactly one kernel, whose per-call FLOPs/bytes we check.
 */
static rt_profile *one(const char *text)
{
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    if (rt_import_onednn_text(text, strlen(text), "test", &p, &w, &err) != 0)
        fail_msg("import failed: %s", err.msg);
    for (size_t i = 0; i < w.n; i++)
        print_message("warning: %s\n", w.msg[i]);
    assert_int_equal(w.n, 0);
    rt_warnings_release(&w);
    assert_int_equal(p->n_kernels, 1);
    return p;
}

static void check_one(const char *line, const char *unit, double flops, double bytes)
{
    rt_profile *p = one(line);
    const rt_kernel *k = &p->kernels[0];
    assert_close(k->invocations, 1, 1e-12);
    assert_close(rt_values_get(&k->flops, unit, -1), flops, 1e-12);
    if (bytes >= 0)
        assert_close(rt_values_get(&k->bytes, "DRAM", -1), bytes, 1e-12);
    rt_profile_free(p);
}

/* The paper's Conv2D as Debian's torch 1.13 runs it through oneDNN 2.6 (recorded). */
static void test_torch_conv_forward(void **state)
{
    (void)state;
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(
        rt_import_onednn(data_path("onednn-2.6-torch-conv2d-forward.log"), &p, &w, &err), 0);
    assert_int_equal(w.n, 0);
    assert_string_equal(p->tool, "onednn-verbose");
    assert_string_equal(p->version, "2.6.3");
    const rt_kernel *k = find(p, "convolution jit:avx512_core forward_training", "mb16_ic64oc64");
    assert_close(k->invocations, 3, 0);
    /* Hand count: taps per spatial dim with stride 2, pad 1, k 3 over 112 -> 56 outputs: the first
     * output loses one tap to padding: 56*3-1 = 167. MACs = 16*64*64*167*167 = 1827733504;
     * FLOPs = 2*MACs + bias adds 16*64*56*56 = 3655467008 + 3211264. */
    assert_close(rt_values_get(&k->flops, "fp32", 0) / 3, 3658678272.0, 1e-12);
    /* Bytes: src 16*64*112*112*4 + wei 64*64*9*4 + bias 64*4 + dst 16*64*56*56*4. */
    assert_close(rt_values_get(&k->bytes, "DRAM", 0) / 3, 51380224.0 + 147456 + 256 + 12845056,
                 1e-12);
    /* The time is the sum of the three exec_time fields (ms -> s), read from the file here. */
    FILE *fp = fopen(data_path("onednn-2.6-torch-conv2d-forward.log"), "r");
    assert_non_null(fp);
    char line[4096];
    double ms = 0;
    while (fgets(line, sizeof line, fp))
        if (strstr(line, ",convolution,") && strstr(line, "forward_training"))
            ms += strtod(strrchr(line, ',') + 1, NULL);
    fclose(fp);
    assert_close(k->time, ms * 1e-3, 1e-9);
    /* Reorders are zero-AI kernels: FLOPs present and 0, bytes src + dst. */
    const rt_kernel *r = find(p, "reorder jit:blk abcd>aBcd16b", "16x64x112x112");
    assert_close(rt_values_get(&r->flops, "fp32", -1), 0, 0);
    assert_close(rt_values_get(&r->bytes, "DRAM", 0) / r->invocations, 2.0 * 12845056 * 4, 1e-12);
    /* The client's own line is not a record. */
    rt_profile_free(p);
    rt_warnings_release(&w);
}

static void test_torch_conv_backward_and_lstm_bf16(void **state)
{
    (void)state;
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(
        rt_import_onednn(data_path("onednn-2.6-torch-conv2d-backward.log"), &p, &w, &err), 0);
    const rt_kernel *bd = find(p, "backward_data", "mb16_ic64oc64");
    const rt_kernel *bw = find(p, "backward_weights", "mb16_ic64oc64");
    /* Backward data: the same multiply-adds, no bias; backward weights adds the bias reduction. */
    assert_close(rt_values_get(&bd->flops, "fp32", 0) / bd->invocations, 3655467008.0, 1e-12);
    assert_close(rt_values_get(&bw->flops, "fp32", 0) / bw->invocations, 3658678272.0, 1e-12);
    rt_profile_free(p);
    /* nn.LSTM in bf16: torch sends its matrix products to oneDNN matmul (the fp32 LSTM never
     * reaches oneDNN). 256x32:32x64:256x64 is the input projection of 16x16 steps. */
    assert_int_equal(rt_import_onednn(data_path("onednn-2.6-torch-lstm-bf16.log"), &p, &w, &err),
                     0);
    const rt_kernel *mm = find(p, "matmul", "256x32:32x64:256x64");
    assert_close(rt_values_get(&mm->flops, "bf16", 0) / mm->invocations, 2.0 * 256 * 32 * 64,
                 1e-12);
    assert_close(rt_values_get(&mm->bytes, "DRAM", 0) / mm->invocations,
                 (256.0 * 32 + 32 * 64 + 256 * 64) * 2, 1e-12);
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* Every primitive kind the recorder runs (tests/data/onednn-recorder.c), against hand counts. */
static void test_recorded_primitives(void **state)
{
    (void)state;
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_onednn(data_path("onednn-2.6-primitives.log"), &p, &w, &err), 0);
    assert_int_equal(w.n, 0);
    assert_int_equal(p->n_kernels, 31);
    static const struct {
        const char *a, *b, *unit;
        double flops_per_call, bytes_per_call; /* bytes < 0: not checked */
    } want[] = {
        /* g2, dilation 1 (taps -2,0,+2), pad 2, 14 -> 14: 38 taps per dim; 2*32*8*38*38 MACs */
        {"convolution", "g2mb2", "fp32", 2 * 739328.0 + 2 * 32 * 14 * 14, -1},
        /* bf16 and int8 on AVX512-BF16/VNNI: units bf16 and int8 */
        {"brgconv:avx512_core_bf16", NULL, "bf16", 2 * 2 * 16 * 16 * 41 * 41 + 2 * 16 * 14 * 14,
         -1},
        {"brgconv:avx512_core_vnni", NULL, "int8", 2 * 2 * 16 * 16 * 82.0 * 82 + 2 * 16 * 28 * 28,
         -1},
        /* deconvolution 14 -> 27, k3 s2 p1: 40 taps per source dim; 2*8*16*40*40 MACs + bias */
        {"deconvolution jit:avx512_core forward_training", NULL, "fp32", 819200.0 + 2 * 8 * 27 * 27,
         -1},
        {"inner_product brgemm:avx512_core forward_training", NULL, "fp32", 1048576.0 + 2048,
         (16.0 * 256 + 128 * 256 + 128 + 16 * 128) * 4},
        {"inner_product brgemm_bwd_d", NULL, "fp32", 1048576.0, -1},
        {"matmul brg:avx512_core f32", NULL, "fp32", 786432.0, (8192.0 + 12288 + 6144) * 4},
        {"matmul brg:avx512_core_bf16", NULL, "bf16", 786432.0, (8192.0 + 12288 + 6144) * 2},
        /* LSTM: 16 cells x (2*16*4*16*(32+16) GEMM + 4*16*16 bias) */
        {"rnn ref forward_training vanilla_lstm", NULL, "fp32", 16 * (98304.0 + 1024),
         (8192.0 + 256 + 2048 + 1024 + 64 + 4096 + 256) * 4},
        /* backward: twice the GEMMs, the bias once */
        {"rnn ref backward vanilla_lstm", NULL, "fp32", 16 * (2 * 98304.0 + 1024), -1},
        /* bidirectional, 2 layers: 32 cells x (2*4*4*16*32 + 4*4*16) */
        {"vanilla_lstm", "l2t8", "fp32", 32 * (16384.0 + 256), -1},
        {"vanilla_gru", NULL, "fp32", 8 * (2 * 4 * 3 * 16 * 48.0 + 3 * 4 * 16), -1},
        {"lbr_gru", NULL, "fp32", 8 * (2 * 4 * 3 * 16 * 48.0 + 4 * 4 * 16), -1},
        {"vanilla_rnn", NULL, "fp32", 8 * (2 * 4 * 1 * 16 * 48.0 + 64), -1},
        /* batch norm, 8*32*14*14 = 50176 elements: forward 8 per element, backward 9 */
        {"batch_normalization ncsp_bnorm:any forward_training", NULL, "fp32", 8 * 50176.0,
         2 * 50176.0 * 4},
        {"batch_normalization ncsp_bnorm:any backward", NULL, "fp32", 9 * 50176.0, 3 * 50176.0 * 4},
        {"layer_normalization", NULL, "fp32", 8 * 4096.0, 2 * 4096.0 * 4},
        {"eltwise jit:avx512_core forward_training eltwise_relu", NULL, "fp32", 50176.0,
         2 * 50176.0 * 4},
        {"eltwise jit:avx512_core backward_data eltwise_relu", NULL, "fp32", 2 * 50176.0, -1},
        /* 2x2 windows, stride 2: 4 taps per output; avg adds a divide per output */
        {"pooling_max", NULL, "fp32", 256 * 49 * 4.0, (50176.0 + 12544) * 4},
        {"pooling_avg_exclude_padding", NULL, "fp32", 256 * 49 * 5.0, -1},
        {"binary jit:uni binary_add", NULL, "fp32", 50176.0, 3 * 50176.0 * 4},
        {"softmax_v2", NULL, "fp32", 5 * 64000.0, 2 * 64000.0 * 4},
        {"sum simple:any", NULL, "fp32", 50176.0, 3 * 50176.0 * 4},
        {"concat simple:any", NULL, "fp32", 0, 4 * 50176.0 * 4},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const rt_kernel *k = find(p, want[i].a, want[i].b);
        print_message("%s\n", k->name);
        assert_true(rt_values_has(&k->flops, want[i].unit));
        assert_close(rt_values_get(&k->flops, want[i].unit, 0) / k->invocations,
                     want[i].flops_per_call, 1e-12);
        if (want[i].bytes_per_call >= 0)
            assert_close(rt_values_get(&k->bytes, "DRAM", 0) / k->invocations,
                         want[i].bytes_per_call, 1e-12);
    }
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* ONEDNN_VERBOSE=2 with timestamps: create lines skipped, exec lines read. */
static void test_timestamps_and_create(void **state)
{
    (void)state;
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_onednn(data_path("onednn-2.6-timestamps.log"), &p, &w, &err), 0);
    assert_int_equal(w.n, 0);
    double calls = 0;
    for (size_t i = 0; i < p->n_kernels; i++)
        calls += p->kernels[i].invocations;
    assert_close(calls, 31, 0); /* the exec lines of the file; 11 create lines skipped */
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* The same primitive in every line format: oneDNN 2.x dnnl_verbose, 2.6 onednn_verbose, 3.x
 * with the "primitive" category, with a timestamp, later 3.x descriptors, behind other output.
 * Only 2.6 is installed here: the 3.x and dnnl_verbose lines follow oneDNN's documented formats. */
static void test_line_formats(void **state)
{
    (void)state;
    const char *text =
        "hello from the program\n"
        "dnnl_verbose,exec,cpu,convolution,jit:avx512_core,forward_training,src_f32::blocked:abcd:"
        "f0 "
        "wei_f32::blocked:abcd:f0 bia_undef::undef::f0 dst_f32::blocked:abcd:f0,,alg:convolution_"
        "direct,mb16_ic64oc64_ih112oh56kh3sh2dh0ph1_iw112ow56kw3sw2dw0pw1,0.5\n"
        "onednn_verbose,exec,cpu,convolution,jit:avx512_core,forward_training,src_f32::blocked:"
        "abcd:"
        "f0 wei_f32::blocked:abcd:f0 bia_undef::undef::f0 "
        "dst_f32::blocked:abcd:f0,,alg:convolution_"
        "direct,mb16_ic64oc64_ih112oh56kh3sh2dh0ph1_iw112ow56kw3sw2dw0pw1,0.25\n"
        "onednn_verbose,primitive,exec,cpu,convolution,jit:avx512_core,forward_training,src_f32::"
        "blocked:abcd:f0 wei_f32::blocked:abcd:f0 bia_undef::undef::f0 dst_f32::blocked:abcd:f0,,"
        "alg:convolution_direct,mb16_ic64oc64_ih112oh56kh3sh2dh0ph1_iw112ow56kw3sw2dw0pw1,0.125\n"
        "epoch 1 done onednn_verbose,1700000000.123,primitive,exec,cpu,convolution,jit:avx512_core,"
        "forward_training,src_f32::blocked:abcd:f0 wei_f32::blocked:abcd:f0 bia_undef::undef::f0 "
        "dst_f32::blocked:abcd:f0,,alg:convolution_direct,mb16_ic64oc64_ih112oh56kh3sh2dh0ph1_"
        "iw112ow56kw3sw2dw0pw1,0.125\r\n"
        "onednn_verbose,info,oneDNN v3.3.0 (commit abc)\n"
        "onednn_verbose,primitive,create:cache_miss,cpu,convolution,jit:avx512_core,forward_"
        "training,src_f32::blocked:abcd:f0,,,mb16,0.1\n";
    rt_profile *p = one(text);
    const rt_kernel *k = &p->kernels[0];
    assert_close(k->invocations, 4, 0);
    assert_close(k->time, 1e-3, 1e-12);
    assert_close(rt_values_get(&k->flops, "fp32", 0), 4 * 3655467008.0, 1e-12);
    assert_string_equal(p->version, "3.3.0");
    rt_profile_free(p);
    /* later 3.x memory descriptors: "src:f32::blocked:abcd::f0" */
    check_one(
        "onednn_verbose,primitive,exec,cpu,matmul,brg:avx512_core_amx,undef,src:bf16::blocked:"
        "ab::f0 wei:bf16::blocked:ab::f0 dst:f32::blocked:ab::f0,,,64x32:32x16:64x16,0.01\n",
        "amx_bf16", 2.0 * 64 * 32 * 16, (64.0 * 32 + 32 * 16) * 2 + 64.0 * 16 * 4);
    check_one("onednn_verbose,exec,cpu,convolution,brg:avx512_core_amx_int8,forward_inference,"
              "src_u8::blocked:acdb:f0 wei_s8::blocked:AcdB16a4b:f0 bia_undef::undef::f0 "
              "dst_u8::blocked:acdb:f0,,alg:convolution_direct,mb1_ic16oc16_ih4oh4kh1sh1dh0ph0_"
              "iw4ow4kw1sw1dw0pw0,0.01\n",
              "amx_int8", 2.0 * 16 * 16 * 16, 16.0 * 16 + 16 * 16 + 16 * 16);
}

/* FLOP formulas for shapes worth a hand count of their own. */
static void test_hand_counts(void **state)
{
    (void)state;
    /* 1D-in-3D conv with dilation 2 (effective kernel (3-1)*3+1 = 7), pad 0, 10 -> 4:
     * every tap valid: 4 outputs x 3 taps; mb1 ic2 oc2. */
    check_one(
        "onednn_verbose,exec,cpu,convolution,ref:any,forward_inference,src_f32::blocked:abc:f0 "
        "wei_f32::blocked:abc:f0 bia_undef::undef::f0 dst_f32::blocked:abc:f0,,alg:convolution_"
        "direct,mb1_ic2oc2_iw10ow4kw3sw1dw2pw0,0.001\n",
        "fp32", 2.0 * 2 * 2 * 12, (20.0 + 12 + 8) * 4);
    /* average pooling including padding: the whole window counts; 3x3 s1 p1 over 4x4 -> 4x4 */
    check_one("onednn_verbose,exec,cpu,pooling,ref:any,forward_inference,src_f32::blocked:abcd:f0 "
              "dst_f32::blocked:abcd:f0 ws_undef::undef::f0,,alg:pooling_avg_include_padding,"
              "mb1ic1_ih4oh4kh3sh1dh0ph1_iw4ow4kw3sw1dw0pw1,0.001\n",
              "fp32", 16.0 * 9 + 16, (16.0 + 16) * 4);
    /* the same excluding padding: corners 4 taps, edges 6, inside 9 = 4*4 + 8*6 + 4*9 = 100 */
    check_one("onednn_verbose,exec,cpu,pooling,ref:any,forward_inference,src_f32::blocked:abcd:f0 "
              "dst_f32::blocked:abcd:f0 ws_undef::undef::f0,,alg:pooling_avg_exclude_padding,"
              "mb1ic1_ih4oh4kh3sh1dh0ph1_iw4ow4kw3sw1dw0pw1,0.001\n",
              "fp32", 100.0 + 16, -1);
    /* binary with broadcast: 8x32x14x14 + 1x32x1x1 -> 50176 outputs */
    check_one("onednn_verbose,exec,cpu,binary,jit:uni,undef,src_f32::blocked:abcd:f0 "
              "src_f32::blocked:abcd:f0 dst_f32::blocked:abcd:f0,,alg:binary_mul,"
              "8x32x14x14:1x32x1x1,0.001\n",
              "fp32", 50176.0, (50176.0 * 2 + 32) * 4);
    /* leaky relu (alpha != 0): 2 per element; f16 data computed in f32 (an eltwise converts it:
     * data/onednn/units.json, and avx512_core has no f16 arithmetic anyway) */
    check_one("onednn_verbose,exec,cpu,eltwise,jit:avx512_core,forward_inference,data_f16::blocked:"
              "ab:f0 diff_undef::undef::f0,,alg:eltwise_relu alpha:0.1 beta:0,10x10,0.001\n",
              "fp32", 200.0, 2 * 100.0 * 2);
    /* batch norm with global statistics (G) and scale/shift: 4 per element */
    check_one("onednn_verbose,exec,cpu,batch_normalization,ncsp_bnorm:any,forward_inference,"
              "data_f32::blocked:abcd:f0 diff_undef::undef::f0,,flags:GS,mb2ic3ih4iw4,0.001\n",
              "fp32", 4.0 * 96, 2 * 96.0 * 4);
    /* LSTM with projection (dic 8 != dhc 16): + 2*mb*dhc*dic per cell */
    check_one("onednn_verbose,exec,cpu,rnn,ref,forward_inference,src_layer_f32::blocked:abc:f0 "
              "dst_layer_f32::blocked:abc:f0,,alg:vanilla_lstm direction:unidirectional_left2right "
              "activation:undef,l1t2mb4sic8slc8dhc16dic8,0.001\n",
              "fp32", 2 * (2.0 * 4 * 4 * 16 * 16 + 2.0 * 4 * 16 * 8 + 4 * 4 * 16),
              (2.0 * 4 * 8 + 2 * 4 * 8) * 4);
    /* inner product over a 2D input: ic x ih x iw */
    check_one("onednn_verbose,exec,cpu,inner_product,gemm:jit,forward_inference,src_f32::blocked:"
              "abcd:f0 wei_f32::blocked:abcd:f0 bia_undef::undef::f0 dst_f32::blocked:ab:f0,,,"
              "mb2ic3ih4iw4oc5,0.001\n",
              "fp32", 2.0 * 2 * 5 * 48, (96.0 + 240 + 10) * 4);
    /* logsoftmax backward: 4 per element */
    check_one("onednn_verbose,exec,cpu,logsoftmax,ref:any,backward_data,src_f32::blocked:ab:f0 "
              "diff_src_f32::blocked:ab:f0 diff_dst_f32::blocked:ab:f0,,alg:softmax_log axis:1,"
              "3x7,0.001\n",
              "fp32", 4 * 21.0, 3 * 21.0 * 4);
}

/* Unreadable lines are counted and named by line number; the rest still imports. */
static void test_malformed_lines(void **state)
{
    (void)state;
    const char *good =
        "onednn_verbose,exec,cpu,eltwise,jit:avx512_core,forward_inference,data_f32::"
        "blocked:ab:f0 diff_undef::undef::f0,,alg:eltwise_relu alpha:0 beta:0,4x4,"
        "0.5\n";
    char text[8192];
    snprintf(text, sizeof text,
             "%s"                                /* 1 */
             "onednn_verbose,exec,cpu,eltwise\n" /* 2: too few fields */
             "%.*s,abc\n"                        /* 3: time not a number */
             "onednn_verbose,exec,cpu,convolution,jit,forward,src_f32::blocked:abcd:f0,,,"
             "mb2_icX,0.1\n" /* 4: bad problem */
             "onednn_verbose,exec,cpu,eltwise,jit,forward,src_q7::blocked:ab:f0,,,4x4,0.1\n" /* 5 */
             "onednn_verbose,frobnicate,cpu\n" /* 6: unknown record */
             "just output\n"                   /* 7: not ours */
             "onednn_verbose,exec,cpu,lrn,ref:any,forward_inference,data_f32::blocked:abcd:f0,,"
             "alg:lrn_across_channels,mb1ic8ih4iw4,0.25\n" /* 8: kind not modelled */
             "%s",                                         /* 9 */
             good, (int)(strrchr(good, ',') - good), good, good);
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_onednn_text(text, strlen(text), "bad.log", &p, &w, &err), 0);
    assert_int_equal(p->n_kernels, 2);
    const rt_kernel *k = find(p, "eltwise", NULL);
    assert_close(k->invocations, 2, 0);
    const rt_kernel *lrn = find(p, "lrn", NULL);
    assert_close(lrn->time, 0.25e-3, 1e-12);
    assert_int_equal(lrn->flops.n, 0); /* not modelled: no FLOPs claimed */
    int summary = 0, l2 = 0, l3 = 0, l4 = 0, l5 = 0, l6 = 0, lrn_note = 0;
    for (size_t i = 0; i < w.n; i++) {
        print_message("%s\n", w.msg[i]);
        summary += strstr(w.msg[i],
                          "5 oneDNN verbose lines could not be read (lines 2, 3, 4, 5, 6)") != NULL;
        l2 += strstr(w.msg[i], "'bad.log': line 2:") != NULL;
        l3 += strstr(w.msg[i], "line 3: field 'exec_time'") != NULL;
        l4 += strstr(w.msg[i], "line 4:") != NULL;
        l5 += strstr(w.msg[i], "line 5:") != NULL && strstr(w.msg[i], "src_q7") != NULL;
        l6 += strstr(w.msg[i], "line 6: unknown verbose record 'frobnicate'") != NULL;
        lrn_note += strstr(w.msg[i], "'lrn' primitives are not modelled") != NULL;
    }
    assert_int_equal(summary + l2 + l3 + l4 + l5 + l6 + lrn_note, 7);
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* A shape key the kind does not have (a garbled 'ihh56', a key of a newer oneDNN): the kernels
 * keep their time but claim no FLOPs or bytes (a size would be misread as its default), said once
 * per kind and key with file, line and field; a kind's other kernels are modelled as before. */
static void test_unknown_shape_key(void **state)
{
    (void)state;
    const char *pre = "onednn_verbose,exec,cpu,convolution,jit:avx2,forward_training,"
                      "src_f32::blocked:abcd:f0 wei_f32::blocked:abcd:f0 dst_f32::blocked:abcd:f0,,"
                      "alg:convolution_direct,";
    const char *rnn = "onednn_verbose,exec,cpu,rnn,ref:any,forward_training,src_layer_f32::"
                      "blocked:abc:f0 dst_layer_f32::blocked:abc:f0,,alg:vanilla_lstm direction:"
                      "unidirectional_left2right activation:undef flags:,";
    char text[4096];
    snprintf(text, sizeof text,
             "%smb2_ic4oc8_ihh6oh6kh3sh1dh0ph1_iw6ow6kw3sw1dw0pw1,1.0\n" /* 1 */
             "%smb2_ic4oc8_ih6oh6kh3sh1dh0ph1_iw6ow6kw3sw1dw0pw1,2.0\n"  /* 2 */
             "%smb4_ic4oc8_ihh6oh6kh3sh1dh0ph1_iw6ow6kw3sw1dw0pw1,3.0\n" /* 3 */
             "%sl1t4mb2sic8slc8dhc8dic8wx3,4.0\n",                       /* 4 */
             pre, pre, pre, rnn);
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_onednn_text(text, strlen(text), "odd.log", &p, &w, &err), 0);
    assert_int_equal(p->n_kernels, 4);
    int unread = 0, modelled = 0;
    for (size_t i = 0; i < p->n_kernels; i++) {
        const rt_kernel *k = &p->kernels[i];
        if (strstr(k->name, "ihh") || strstr(k->name, "wx3")) {
            assert_int_equal(k->flops.n, 0);
            assert_int_equal(k->bytes.n, 0);
            assert_true(k->time > 0);
            unread++;
        } else {
            /* 2 x mb x oc x ic x the taps inside the padded input, 16 per axis */
            assert_close(rt_values_get(&k->flops, "fp32", 0), 2.0 * 2 * 8 * 4 * 16 * 16, 1e-12);
            modelled++;
        }
    }
    assert_int_equal(unread, 3);
    assert_int_equal(modelled, 1);
    int conv = 0, lstm = 0;
    for (size_t i = 0; i < w.n; i++) {
        print_message("%s\n", w.msg[i]);
        conv += strstr(w.msg[i], "'odd.log': line 1: field 'problem_desc'") != NULL &&
                strstr(w.msg[i], "key 'ihh' is not one of convolution's") != NULL;
        lstm += strstr(w.msg[i], "line 4:") != NULL && strstr(w.msg[i], "key 'wx'") != NULL;
    }
    assert_int_equal(conv, 1);
    assert_int_equal(lstm, 1);
    assert_int_equal(w.n, 2);
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* A log cut inside its last record (no newline after it: oneDNN ends each with one) reports that
 * line and does not read it, from memory and from a file: its time may be cut ("0.0109863" to
 * "0.01"), and was summed as written. */
static void test_cut_last_record(void **state)
{
    (void)state;
    const char *rec = "onednn_verbose,exec,cpu,eltwise,jit,forward_inference,data_f32::blocked:ab:"
                      "f0,,alg:eltwise_relu,4x4,0.5";
    char *text = rt_asprintf("%s\nother output\n%s", rec, rec);
    char *dir = tu_tmpdir();
    char *path = rt_asprintf("%s/cut.log", dir);
    assert_int_equal(tu_write_file(path, text), 0);
    for (int from_file = 0; from_file < 2; from_file++) {
        rt_profile *p = NULL;
        rt_warnings w = {0};
        rt_error err = {{0}};
        if (from_file)
            assert_int_equal(rt_import_onednn(path, &p, &w, &err), 0);
        else
            assert_int_equal(rt_import_onednn_text(text, strlen(text), path, &p, &w, &err), 0);
        assert_int_equal(p->n_kernels, 1);
        assert_close(p->kernels[0].invocations, 1, 0);
        int said = 0;
        for (size_t i = 0; i < w.n; i++)
            said += strstr(w.msg[i], "cut.log': line 3: the input ends inside this record") != NULL;
        assert_int_equal(said, 1);
        rt_profile_free(p);
        rt_warnings_release(&w);
    }
    /* Other output at the end without a newline is still other output. */
    char *tail = rt_asprintf("%s\nno newline here", rec);
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_onednn_text(tail, strlen(tail), "t", &p, &w, &err), 0);
    assert_int_equal(w.n, 0);
    rt_profile_free(p);
    rt_warnings_release(&w);
    free(tail);
    free(text);
    free(path);
    tu_rmtree(dir);
    free(dir);
}

static void test_nothing_captured(void **state)
{
    (void)state;
    const char *text = "no verbose here\nonednn_verbose,info,oneDNN v2.6.3 (commit N/A)\n";
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_onednn_text(text, strlen(text), "empty.log", &p, &w, &err), -1);
    assert_null(p);
    assert_non_null(strstr(err.msg, "'empty.log': no oneDNN verbose execution records"));
    assert_int_equal(rt_import_onednn("/nonexistent/x.log", &p, &w, &err), -1);
    assert_non_null(strstr(err.msg, "cannot read '/nonexistent/x.log'"));
    rt_warnings_release(&w);
}

/* A NUL byte inside a verbose line (found by fuzzing under ASan) ends that line's record. */
static void test_nul_byte(void **state)
{
    (void)state;
    static const char text[] = "onednn_verbose,exec,cpu,eltwise,jit,forward_inference,data_f32::"
                               "blocked:ab:f0,,alg:eltwise_relu,4x4,0.5\n"
                               "onednn_verbose,exec,cpu,elt\0wise, \n";
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_onednn_text(text, sizeof text - 1, "nul.log", &p, &w, &err), 0);
    assert_int_equal(p->n_kernels, 1);
    int found = 0;
    for (size_t i = 0; i < w.n; i++)
        found += strstr(w.msg[i], "'nul.log': line 2:") != NULL;
    assert_int_equal(found, 1);
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* The cost model is data: a changed formula changes the FLOPs, a kind left out keeps bytes with a
 * note, and a formula naming a count its kind lacks is an error naming the file, kind and place. */
static void with_model(const char *kinds_json)
{
    static char dir[] = "/tmp/rt-onednn-model-XXXXXX";
    static int made = 0;
    char path[4096];
    if (!made) {
        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof path, "%s/onednn", dir);
        assert_int_equal(mkdir(path, 0700), 0);
        /* the line formats and units are the shipped ones */
        static const char *const shipped[] = {"verbose-formats.json", "units.json"};
        for (size_t i = 0; i < 2; i++) {
            char from[4096], *abs;
            snprintf(from, sizeof from, "%s/data/onednn/%s", tu_src(), shipped[i]);
            assert_non_null(abs = realpath(from, NULL));
            snprintf(path, sizeof path, "%s/onednn/%s", dir, shipped[i]);
            assert_int_equal(symlink(abs, path), 0);
            free(abs);
        }
        made = 1;
    }
    snprintf(path, sizeof path, "%s/onednn/cost.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{\"schema\": \"rooftime.onednn-cost/1\", \"kinds\": {%s}}", kinds_json);
    fclose(f);
    setenv("ROOFTIME_DATADIR", dir, 1);
}

static const char softmax_line[] =
    "onednn_verbose,exec,cpu,softmax_v2,jit:avx2,forward_training,src_f32::blocked:ab:f0 "
    "dst_f32::blocked:ab:f0,,alg:softmax_accurate axis:1,100x640,0.1\n";

static void test_cost_model_is_data(void **state)
{
    (void)state;
    const char *saved = getenv("ROOFTIME_DATADIR");
    char *keep = saved ? strdup(saved) : NULL;

    with_model("\"softmax\": {\"flops\": {\"forward\": \"elems * 7\", \"backward\": \"0\"}}");
    check_one(softmax_line, "fp32", 7 * 64000.0, 2 * 64000.0 * 4);

    with_model("\"binary\": {\"flops\": \"dst\"}");
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_onednn_text(softmax_line, strlen(softmax_line), "t", &p, &w, &err),
                     0);
    assert_int_equal(w.n, 1);
    assert_non_null(strstr(w.msg[0], "FLOPs of 'softmax_v2' primitives are not modelled"));
    assert_close(rt_values_get(&p->kernels[0].bytes, "DRAM", -1), 2 * 64000.0 * 4, 1e-12);
    assert_true(rt_values_get(&p->kernels[0].flops, "fp32", -1) < 0);
    rt_profile_free(p);
    rt_warnings_release(&w);

    with_model("\"convolution\": {\"flops\": \"2 * macs + elems\"}");
    p = NULL;
    assert_int_equal(rt_import_onednn_text(softmax_line, strlen(softmax_line), "t", &p, &w, &err),
                     -1);
    assert_null(p);
    assert_non_null(strstr(err.msg, "onednn/cost.json: kinds.convolution.flops (counts: macs "
                                    "bias_adds): formula: not a count this kind provides at "
                                    "character 12 (formula"));

    with_model("\"lrn\": {\"flops\": \"1\"}");
    assert_int_equal(rt_import_onednn_text(softmax_line, strlen(softmax_line), "t", &p, &w, &err),
                     -1);
    assert_non_null(strstr(err.msg, "kinds.lrn: not a primitive kind the importer reads"));
    rt_warnings_release(&w);

    if (keep)
        setenv("ROOFTIME_DATADIR", keep, 1);
    else
        unsetenv("ROOFTIME_DATADIR");
    free(keep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_torch_conv_forward),
        cmocka_unit_test(test_cut_last_record),
        cmocka_unit_test(test_torch_conv_backward_and_lstm_bf16),
        cmocka_unit_test(test_recorded_primitives),
        cmocka_unit_test(test_timestamps_and_create),
        cmocka_unit_test(test_line_formats),
        cmocka_unit_test(test_hand_counts),
        cmocka_unit_test(test_malformed_lines),
        cmocka_unit_test(test_unknown_shape_key),
        cmocka_unit_test(test_nothing_captured),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_cost_model_is_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
