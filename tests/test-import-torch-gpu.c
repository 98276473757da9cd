/* PyTorch GPU traces: the device profile (kernels linked to their launch and operator, the split of
 * an operator's work, device time), the launch side, the GPU named, gzip, and the shared fixtures
 * of real runs (a 128-rank NCCL job's rank 0, an AMD MI250 step). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <zlib.h>

#include "testutil.h"
#include "rooftime/core/comm.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/comm-json.h"
#include "rooftime/import/torch-cost.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/error.h"
#include "rooftime/util/gzip-text.h"

/* One complete event. */
#define EV(cat, name, pid, tid, ts, dur, args)                                                     \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":" #pid ",\"tid\":" #tid       \
    ",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{" args "}}"
#define F32(dims, n) "\"Input Dims\":" dims ",\"Input type\":[" n "]"

/* Older Kineto: a launch's External id is its correlation, no operator has it; the operator is
 * the one whose span holds the launch. Times in microseconds. */
/* clang-format off */
static const char *const SPAN_TRACE =
    "{\"traceEvents\":["
    /* aten::mm launches a Tensor Core GEMM */
    EV("cpu_op", "aten::mm", 1, 1, 0, 20, "\"External id\":100," F32("[[4,8],[8,16]]", "\"float\",\"float\"")) ","
    EV("cuda_runtime", "cudaLaunchKernel", 1, 1, 5, 3, "\"External id\":10,\"correlation\":10") ","
    /* aten::addmm launches a vector-unit GEMM and a bias epilogue */
    EV("cpu_op", "aten::addmm", 1, 1, 30, 20, "\"External id\":101," F32("[[16],[4,8],[8,16],[],[]]", "\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"")) ","
    EV("cuda_runtime", "cudaLaunchKernel", 1, 1, 32, 2, "\"correlation\":11") ","
    EV("cuda_runtime", "cudaLaunchKernel", 1, 1, 40, 2, "\"correlation\":12") ","
    EV("cpu_op", "aten::view", 1, 1, 60, 5, F32("[[4,16]]", "\"float\"")) ","
    /* an operator the cost model does not know */
    EV("cpu_op", "myop::unknown", 1, 1, 70, 10, F32("[[4]]", "\"float\"")) ","
    EV("cuda_runtime", "cudaLaunchKernel", 1, 1, 72, 2, "\"correlation\":13") ","
    /* a launch outside any operator */
    EV("cuda_runtime", "cudaLaunchKernel", 1, 1, 90, 2, "\"correlation\":14") ","
    /* a copy inside the device: its own bytes */
    EV("cpu_op", "aten::copy_", 1, 1, 94, 5, F32("[[4],[4]]", "\"float\",\"float\"")) ","
    EV("cuda_runtime", "cudaMemcpyAsync", 1, 1, 95, 2, "\"correlation\":15") ","
    EV("kernel", "cutlass_80_tensorop_s1688gemm_64x64", 0, 7, 10, 10, "\"correlation\":10") ","
    EV("kernel", "ampere_sgemm_32x128_tn", 0, 7, 36, 6, "\"correlation\":11") ","
    EV("kernel", "epilogue_bias", 0, 7, 44, 2, "\"correlation\":12") ","
    EV("kernel", "my_kernel", 0, 7, 75, 4, "\"correlation\":13") ","
    EV("kernel", "lonely", 0, 7, 93, 1, "\"correlation\":14") ","
    EV("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 0, 7, 98, 1, "\"correlation\":15,\"bytes\":16") ","
    /* no runtime call with its correlation */
    EV("kernel", "orphan", 0, 7, 120, 3, "\"correlation\":99")
    "]}";
/* clang-format on */

static rt_torch_ops *ops(void)
{
    static rt_torch_ops *o;
    rt_error err;
    if (!o && rt_torch_ops_load(NULL, &o, &err) != 0)
        fail_msg("%s", err.msg);
    return o;
}

static rt_profile *import(const char *text, const rt_torch_options *opt, rt_warnings *w)
{
    rt_profile *p = NULL;
    rt_error err = {{0}};
    if (rt_import_torch_text_opts(text, strlen(text), "g.json", opt, &p, w, &err) != 0)
        fail_msg("import failed: %s", err.msg);
    return p;
}

static const rt_kernel *find(const rt_profile *p, const char *name)
{
    for (size_t i = 0; i < p->n_kernels; i++)
        if (strcmp(p->kernels[i].name, name) == 0)
            return &p->kernels[i];
    fail_msg("no kernel '%s'", name);
    return NULL;
}

static const char *note(const rt_profile *p, const char *key)
{
    const char *v = rt_tags_get(&p->provenance.notes, key);
    if (!v)
        fail_msg("no note '%s'", key);
    return v;
}

static int warned(const rt_warnings *w, const char *what)
{
    for (size_t i = 0; i < w->n; i++)
        if (strstr(w->msg[i], what))
            return 1;
    return 0;
}

/* The device profile: device time, one row per kernel and operator, the operator's work on the
 * kernels it launched, no host operator among the kernels. */
static void test_device_profile(void **state)
{
    (void)state;
    rt_warnings w = {0};
    rt_torch_options o = {.ops = ops(), .by_source = 1};
    rt_profile *p = import(SPAN_TRACE, &o, &w);
    assert_int_equal(p->time_kind, RT_TIME_DEVICE);
    assert_int_equal(p->n_kernels, 7);
    double t = 0, n = 0;
    for (size_t i = 0; i < p->n_kernels; i++) {
        t += p->kernels[i].time;
        n += p->kernels[i].invocations;
        assert_null(strstr(p->kernels[i].name, "aten::")); /* no host operator is a kernel */
    }
    assert_close(t, (10 + 6 + 2 + 4 + 1 + 1 + 3) * 1e-6, 1e-12); /* the events' durations */
    assert_close(n, 7, 0);
    /* aten::mm: 2 M N K on the TF32 Tensor Cores (single precision, a tensorop kernel) */
    const rt_kernel *g = find(p, "cutlass_80_tensorop_s1688gemm_64x64");
    assert_close(rt_values_get(&g->flops, "tensor_tf32", 0), 2 * 4 * 8 * 16, 0);
    assert_close(rt_values_get(&g->bytes, "HBM", 0), (32 + 128 + 64) * 4, 0);
    assert_string_equal(rt_tags_get(&g->tags, "op"), "aten::mm");
    assert_string_equal(rt_tags_get(&g->tags, "shapes"), "[[4,8],[8,16]]");
    assert_string_equal(rt_tags_get(&g->tags, "precision"), "tensor_tf32");
    /* aten::addmm: its FLOPs to its math kernel, its bytes to both by device time */
    const rt_kernel *s = find(p, "ampere_sgemm_32x128_tn"), *e = find(p, "epilogue_bias");
    assert_close(rt_values_get(&s->flops, "fp32", 0), 2 * 4 * 8 * 16 + 4 * 16, 0);
    assert_int_equal(e->flops.n, 0);
    double bytes = (16 + 32 + 128 + 64) * 4;
    assert_close(rt_values_get(&s->bytes, "HBM", 0), bytes * 6 / 8, 1e-12);
    assert_close(rt_values_get(&e->bytes, "HBM", 0), bytes * 2 / 8, 1e-12);
    assert_string_equal(rt_tags_get(&e->tags, "op"), "aten::addmm");
    /* an unknown operator's kernel, a launch outside operators, a kernel without its launch */
    assert_int_equal(find(p, "my_kernel")->flops.n + find(p, "my_kernel")->bytes.n, 0);
    assert_null(rt_tags_get(&find(p, "lonely")->tags, "op"));
    assert_int_equal(find(p, "orphan")->bytes.n, 0);
    /* a copy inside the device reads and writes its bytes; aten::copy_'s own work is not added */
    assert_close(rt_values_get(&find(p, "Memcpy DtoD (Device -> Device)")->bytes, "HBM", 0), 32, 0);
    assert_true(warned(&w, "1 of 7 GPU events have no runtime call"));
    const char *cov = note(p, "torch_device_coverage");
    assert_non_null(strstr(cov, "myop::unknown (not in the cost model)"));
    assert_non_null(strstr(cov, "launched outside any operator"));
    assert_non_null(strstr(cov, "no runtime call with its correlation id"));
    /* with work: mm 10, addmm 8, the copy 1 of 27 us */
    assert_close(atof(note(p, "torch_device_covered_share")), 19.0 / 27, 1e-3);
    assert_non_null(strstr(note(p, "torch_gpu_link"), "0 by the shared External id"));
    assert_string_equal(note(p, "torch_version"), "unknown"); /* the trace names none */
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* bf16 work: a matrix product's FLOPs on the bf16 Tensor Cores its kernel ran, an elementwise
 * operator's on fp32, where torch computes bf16 data (the cost model's opmath); and a kernel of
 * the matrix product that is not a matrix kernel (its bias epilogue) carries bytes only. */
/* clang-format off */
static const char *const BF16_TRACE =
    "{\"traceEvents\":["
    EV("cpu_op", "aten::mm", 1, 1, 0, 20, "\"External id\":100,\"Input Dims\":[[4,8],[8,16]],\"Input type\":[\"c10::BFloat16\",\"c10::BFloat16\"]") ","
    EV("cuda_runtime", "cudaLaunchKernel", 1, 1, 5, 3, "\"correlation\":10") ","
    EV("cpu_op", "aten::gelu", 1, 1, 30, 10, "\"External id\":101,\"Input Dims\":[[4,16],[]],\"Input type\":[\"c10::BFloat16\",\"\"]") ","
    EV("cuda_runtime", "cudaLaunchKernel", 1, 1, 32, 2, "\"correlation\":11") ","
    EV("kernel", "cutlass_80_tensorop_bf16_s16816gemm_bf16_64x64", 0, 7, 10, 10, "\"correlation\":10") ","
    EV("kernel", "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>", 0, 7, 36, 2, "\"correlation\":11")
    "]}";
/* clang-format on */

static void test_bf16_units(void **state)
{
    (void)state;
    rt_warnings w = {0};
    rt_torch_options o = {.ops = ops()};
    rt_profile *p = import(BF16_TRACE, &o, &w);
    const rt_kernel *g = find(p, "cutlass_80_tensorop_bf16_s16816gemm_bf16_64x64");
    assert_close(rt_values_get(&g->flops, "tensor_bf16", 0), 2 * 4 * 8 * 16, 0);
    assert_int_equal(g->flops.n, 1);
    const rt_kernel *e = find(
        p, "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>");
    assert_close(rt_values_get(&e->flops, "fp32", 0), 8 * 4 * 16, 0); /* gelu: 8 an element */
    assert_int_equal(e->flops.n, 1);
    assert_close(rt_values_get(&e->bytes, "HBM", 0), 2 * 64 * 2, 0);
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* The launch side: busy time, each idle gap by its cause, tau measured in the run. */
static void test_launch_side(void **state)
{
    (void)state;
    rt_warnings w = {0};
    rt_torch_options o = {.ops = ops()};
    rt_profile *p = import(SPAN_TRACE, &o, &w);
    /* tau: the median start - launch of the kernels launched onto an idle GPU: 5, 4, 3, 3 */
    assert_close(atof(note(p, "overhead_seconds")), 3.5e-6, 1e-9);
    assert_string_equal(p->overhead, RT_OVERHEAD_TORCH_GPU);
    /* the step from the first launch (5) to the last end (123); busy 27 */
    assert_close(atof(note(p, "gpu_step")), 118e-6, 1e-9);
    assert_close(atof(note(p, "gpu_busy")), 27e-6, 1e-9);
    /* gaps: [5,10] launched at 5: its launch to 8.5, then waiting; [20,36] addmm from 30, its
     * launch at 32; [42,44] the epilogue launched at 40; [46,75] myop from 70, launch at 72;
     * [79,93] a launch at 90 outside operators; [94,98] copy_ from 94, launch at 95; [99,120]
     * a kernel without launch */
    assert_close(atof(note(p, "gpu_idle_dispatch")), 5e-6, 1e-9);
    assert_close(atof(note(p, "gpu_idle_outside")), 45e-6, 1e-9);
    assert_close(atof(note(p, "gpu_idle_latency")), 17.5e-6, 1e-9);
    assert_close(atof(note(p, "gpu_idle_other")), 23.5e-6, 1e-9);
    assert_close(atof(note(p, "launch_overhead_share")), 22.5 / 118, 1e-3);
    assert_non_null(strstr(note(p, "torch_launch_side"), "host time from each operator's start "
                                                         "to its launch 20 µs over 5 launches"));
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* Newer Kineto: the launch names its operator by the shared External id, which wins over the
 * innermost operator whose span holds the launch. */
static void test_external_id(void **state)
{
    (void)state;
    /* clang-format off */
    const char *text =
        "{\"traceEvents\":["
        EV("cpu_op", "aten::add", 1, 1, 0, 30, "\"External id\":7," F32("[[64],[64]]", "\"float\",\"float\"")) ","
        EV("cpu_op", "aten::mul", 1, 1, 5, 20, "\"External id\":8," F32("[[32],[32]]", "\"float\",\"float\"")) ","
        EV("cuda_runtime", "cudaLaunchKernel", 1, 1, 10, 2, "\"External id\":7,\"correlation\":50") ","
        /* an External id of an operator on another thread: the span decides */
        EV("cuda_runtime", "cudaLaunchKernel", 1, 1, 14, 2, "\"External id\":9,\"correlation\":51") ","
        EV("cpu_op", "aten::neg", 1, 2, 0, 30, "\"External id\":9," F32("[[8]]", "\"float\"")) ","
        EV("kernel", "k_add", 0, 7, 20, 2, "\"External id\":7,\"correlation\":50") ","
        EV("kernel", "k_second", 0, 7, 30, 2, "\"External id\":9,\"correlation\":51")
        "]}";
    /* clang-format on */
    rt_warnings w = {0};
    rt_torch_options o = {.ops = ops()};
    rt_profile *p = import(text, &o, &w);
    const rt_kernel *a = find(p, "k_add"), *b = find(p, "k_second");
    assert_string_equal(rt_tags_get(&a->tags, "op"), "aten::add");
    assert_close(rt_values_get(&a->flops, "fp32", 0), 64, 0);
    assert_string_equal(rt_tags_get(&b->tags, "op"), "aten::mul");
    assert_close(rt_values_get(&b->flops, "fp32", 0), 32, 0);
    assert_non_null(strstr(note(p, "torch_gpu_link"), "1 by the shared External id"));
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* Communication kernels carry no operator's work and count apart; --within keeps the kernels
 * launched inside the ranges; --host gives the host operators instead. */
static void test_comm_within_host(void **state)
{
    (void)state;
    /* clang-format off */
    const char *text =
        "{\"traceEvents\":["
        EV("user_annotation", "step", 1, 1, 0, 50, "") ","
        EV("cpu_op", "aten::add", 1, 1, 10, 10, F32("[[64],[64]]", "\"float\",\"float\"")) ","
        EV("cuda_runtime", "cudaLaunchKernel", 1, 1, 12, 2, "\"correlation\":1") ","
        EV("cpu_op", "aten::add", 1, 1, 60, 10, F32("[[64],[64]]", "\"float\",\"float\"")) ","
        EV("cuda_runtime", "cudaLaunchKernel", 1, 1, 62, 2, "\"correlation\":2") ","
        EV("cuda_runtime", "cudaLaunchKernel", 1, 1, 30, 2, "\"correlation\":3") ","
        EV("kernel", "k_add", 0, 7, 20, 2, "\"correlation\":1") ","
        EV("kernel", "k_add", 0, 7, 70, 2, "\"correlation\":2") ","
        EV("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", 0, 9, 35, 8, "\"correlation\":3")
        "]}";
    /* clang-format on */
    rt_comm_patterns comm = {0};
    rt_error err;
    assert_int_equal(rt_comm_patterns_load(NULL, &comm, &err), 0);
    rt_warnings w = {0};
    rt_torch_options o = {.ops = ops(), .within = "step", .comm = &comm};
    rt_profile *p = import(text, &o, &w);
    const rt_kernel *k = find(p, "k_add");
    assert_close(k->invocations, 1, 0); /* the second was launched after the step */
    assert_true(warned(&w, "1 of 3 GPU events were launched outside ranges named 'step'"));
    assert_non_null(strstr(note(p, "torch_device_coverage"), "communication 8 µs (80.0%)"));
    rt_profile_free(p);
    rt_warnings_release(&w);
    o.host = 1;
    o.within = NULL;
    p = import(text, &o, &w);
    assert_int_equal(p->time_kind, RT_TIME_WALL);
    assert_close(find(p, "aten::add [[64],[64]]")->invocations, 2, 0);
    for (size_t i = 0; i < p->n_kernels; i++)
        assert_null(strstr(p->kernels[i].name, "k_add"));
    rt_profile_free(p);
    rt_warnings_release(&w);
    rt_comm_patterns_release(&comm);
}

/* deviceProperties name the GPU and its preset; distributedInfo the rank. */
static void test_device_named(void **state)
{
    (void)state;
    const char *fmt = "{\"torch_version\":\"2.15.0+cu132\","
                      "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":5,\"world_size\":8},"
                      "\"deviceProperties\":[{\"id\":0,\"name\":\"%s\",\"totalGlobalMem\":%s,"
                      "\"computeMajor\":%d,\"computeMinor\":%d,\"warpSize\":%d,\"numSms\":%d}],"
                      "\"traceEvents\":[" EV("kernel", "k", 0, 7, 0, 1, "") "]}";
    char text[1024];
    snprintf(text, sizeof text, fmt, "AMD Radeon Graphics", "68702699520", 9, 0, 64, 104);
    rt_warnings w = {0};
    rt_torch_options o = {0};
    rt_profile *p = import(text, &o, &w);
    assert_string_equal(note(p, "gpu_preset"), "mi250");
    assert_non_null(strstr(p->machine, "104 CUs, GFX IP 9.0, wavefront 64, 64.0 GiB"));
    assert_non_null(p->identity);
    assert_int_equal(p->identity->rank, 5);
    assert_int_equal(p->identity->size, 8);
    /* the torch the trace names, as a host profile says it */
    assert_string_equal(note(p, "torch_version"), "2.15.0+cu132");
    rt_profile_free(p);
    rt_warnings_release(&w);
    snprintf(text, sizeof text, fmt, "NVIDIA A100-SXM4-40GB", "42505273344", 8, 0, 32, 108);
    p = import(text, &o, &w);
    assert_string_equal(note(p, "gpu_preset"), "a100");
    rt_profile_free(p);
    rt_warnings_release(&w);
    /* the 80 GB part has other rates: no preset, and a warning that says so */
    snprintf(text, sizeof text, fmt, "NVIDIA A100-SXM4-80GB", "85198045184", 8, 0, 32, 108);
    p = import(text, &o, &w);
    assert_null(rt_tags_get(&p->provenance.notes, "gpu_preset"));
    assert_true(warned(&w, "no preset for this GPU (NVIDIA A100-SXM4-80GB: 108 SMs"));
    rt_profile_free(p);
    rt_warnings_release(&w);
    /* Blackwell (data/gpu/devices.json): a B200 as the driver describes it (148 SMs, CC 10.0,
     * 178.35 GiB), a GB200 (whose name the B200's glob matches too), an RTX PRO 6000 Workstation
     * Edition; its Server Edition is another part */
    static const struct {
        const char *name, *mem;
        int major, minor, sms;
        const char *preset;
    } bw[] = {
        {"NVIDIA B200", "191500000000", 10, 0, 148, "b200"},
        {"NVIDIA GB200", "198000000000", 10, 0, 152, "gb200"},
        {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "102000000000", 12, 0, 188,
         "rtx-pro-6000"},
        {"NVIDIA RTX PRO 6000 Blackwell Server Edition", "102000000000", 12, 0, 188, NULL},
    };
    for (size_t i = 0; i < sizeof bw / sizeof *bw; i++) {
        snprintf(text, sizeof text, fmt, bw[i].name, bw[i].mem, bw[i].major, bw[i].minor, 32,
                 bw[i].sms);
        p = import(text, &o, &w);
        const char *got = rt_tags_get(&p->provenance.notes, "gpu_preset");
        if (bw[i].preset ? !got || strcmp(got, bw[i].preset) : got != NULL)
            fail_msg("%s: preset %s, want %s", bw[i].name, got ? got : "none",
                     bw[i].preset ? bw[i].preset : "none");
        rt_profile_free(p);
        rt_warnings_release(&w);
    }
}

/* A trace kept gzip-compressed reads as the text; cut, trailed or bombed data is refused. */
static void test_gzip(void **state)
{
    (void)state;
    uLong n = (uLong)strlen(SPAN_TRACE), zn = compressBound(n) + 32;
    unsigned char *z = malloc(zn);
    z_stream s = {0};
    assert_int_equal(deflateInit2(&s, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    s.next_in = (Bytef *)SPAN_TRACE;
    s.avail_in = (uInt)n;
    s.next_out = z;
    s.avail_out = (uInt)zn;
    assert_int_equal(deflate(&s, Z_FINISH), Z_STREAM_END);
    zn = s.total_out;
    deflateEnd(&s);
    rt_warnings w = {0};
    rt_error err = {{0}};
    rt_profile *a = NULL, *b = NULL;
    rt_torch_options o = {.ops = ops()};
    assert_int_equal(rt_import_torch_text_opts((char *)z, zn, "g.json.gz", &o, &a, &w, &err), 0);
    b = import(SPAN_TRACE, &o, &w);
    assert_true(rt_profile_equal(a, b, &err));
    rt_profile_free(a);
    rt_profile_free(b);
    rt_warnings_release(&w);
    char *t;
    size_t len;
    assert_int_equal(rt_gunzip_text(z, zn - 9, "cut.gz", 1 << 20, &t, &len, &err), -1);
    assert_non_null(strstr(err.msg, "cannot read 'cut.gz': the gzip data ends early"));
    unsigned char *trail = malloc(zn + 4);
    memcpy(trail, z, zn);
    memcpy(trail + zn, "junk", 4);
    assert_int_equal(rt_gunzip_text(trail, zn + 4, "trail.gz", 1 << 20, &t, &len, &err), -1);
    assert_non_null(strstr(err.msg, "4 bytes after the end of the gzip data"));
    /* two members, as gzip concatenates them: the texts in order */
    memcpy(trail + zn, z, 0);
    unsigned char *two = malloc(2 * zn);
    memcpy(two, z, zn);
    memcpy(two + zn, z, zn);
    assert_int_equal(rt_gunzip_text(two, 2 * zn, "two.gz", 1 << 20, &t, &len, &err), 0);
    assert_int_equal(len, 2 * n);
    free(t);
    /* past the limit once decompressed: refused as soon as inflating passes it */
    assert_int_equal(rt_gunzip_text(z, zn, "bomb.gz", 1000, &t, &len, &err), -1);
    assert_non_null(strstr(err.msg, "decompressed, it is larger than the limit of 1000 bytes"));
    free(two);
    free(trail);
    free(z);
}

/* Durations whose sum no profile may hold (6e149 s each): an error naming the trace, no profile. */
static void test_sum_limits(void **state)
{
    (void)state;
    /* clang-format off */
    const char *text =
        "{\"traceEvents\":["
        EV("kernel", "k1", 0, 7, 0, 6e155, "") ","
        EV("kernel", "k2", 0, 7, 0, 6e155, "")
        "]}";
    /* clang-format on */
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    rt_torch_options o = {0};
    assert_int_equal(rt_import_torch_text_opts(text, strlen(text), "sum.json", &o, &p, &w, &err),
                     -1);
    assert_null(p);
    assert_non_null(strstr(err.msg, "'sum.json': kernel 1 'k2': time"));
    rt_warnings_release(&w);
}

/* ---- the shared fixtures: real traces of GPU runs ---- */

/* The fixture decompressed and parsed, and its GPU events' summed duration (us). */
static json_t *load_fixture(const char *rel, double *gpu_us)
{
    const char *path = tu_fixture(rel);
    if (!path)
        return NULL;
    size_t zn;
    char *z = tu_read_file(path, &zn), *t;
    size_t n;
    rt_error err;
    assert_non_null(z);
    assert_int_equal(rt_gunzip_text(z, zn, path, (size_t)1 << 30, &t, &n, &err), 0);
    free(z);
    json_error_t je;
    json_t *j = json_loadb(t, n, 0, &je);
    free(t);
    assert_non_null(j);
    *gpu_us = 0;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(j, "traceEvents"), i, e)
    {
        const char *cat = json_string_value(json_object_get(e, "cat"));
        if (cat &&
            (!strcmp(cat, "kernel") || !strcmp(cat, "gpu_memcpy") || !strcmp(cat, "gpu_memset")))
            *gpu_us += json_number_value(json_object_get(e, "dur"));
    }
    return j;
}

static rt_profile *import_fixture(const char *rel, int host, const rt_comm_patterns *comm,
                                  rt_warnings *w)
{
    rt_profile *p = NULL;
    rt_error err = {{0}};
    rt_torch_options o = {.ops = ops(), .by_source = 1, .host = host, .comm = comm};
    if (rt_import_torch_opts(tu_fixture(rel), &o, &p, w, &err) != 0)
        fail_msg("%s", err.msg);
    return p;
}

static double all_flops(const rt_profile *p)
{
    double f = 0;
    for (size_t i = 0; i < p->n_kernels; i++)
        for (size_t u = 0; u < p->kernels[i].flops.n; u++)
            f += p->kernels[i].flops.v[u].value;
    return f;
}

/* rank 0 of a 128-rank NCCL job: device time is the kernels' durations, no host operator among
 * the kernels, no work counted twice, the launch-overhead share reported, the rank named. */
static void test_fixture_nccl_rank(void **state)
{
    (void)state;
    double gpu_us;
    json_t *j = load_fixture("torch-gpu/sampled-rank0.trace.json.gz", &gpu_us);
    if (!j)
        skip();
    rt_comm_patterns comm = {0};
    rt_error err;
    assert_int_equal(rt_comm_patterns_load(NULL, &comm, &err), 0);
    rt_warnings w = {0};
    rt_profile *p = import_fixture("torch-gpu/sampled-rank0.trace.json.gz", 0, &comm, &w);
    double t = 0;
    for (size_t i = 0; i < p->n_kernels; i++)
        t += p->kernels[i].time;
    assert_close(t, gpu_us * 1e-6, 1e-12);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(j, "traceEvents"), i, e)
    {
        const char *cat = json_string_value(json_object_get(e, "cat"));
        const char *name = json_string_value(json_object_get(e, "name"));
        if (cat && !strcmp(cat, "cpu_op"))
            for (size_t k = 0; k < p->n_kernels; k++)
                if (!strcmp(p->kernels[k].name, name))
                    fail_msg("host operator '%s' is a kernel of the device profile", name);
    }
    /* every operator's FLOPs at most once: the device profile holds no more than the host's */
    rt_warnings hw = {0};
    rt_profile *h = import_fixture("torch-gpu/sampled-rank0.trace.json.gz", 1, &comm, &hw);
    assert_true(all_flops(p) > 0);
    assert_true(all_flops(p) <= all_flops(h) * (1 + 1e-12));
    /* the share of non-NCCL device time with work (the cost model's reach on this trace) */
    double share = atof(note(p, "torch_device_covered_share"));
    print_message("non-communication device time with FLOPs or bytes: %.1f%%\n", 100 * share);
    assert_true(share >= 0.45);
    assert_non_null(strstr(note(p, "torch_device_coverage"), "communication 396.2 ms"));
    double lo = atof(note(p, "launch_overhead_share"));
    assert_true(lo > 0 && lo < 1);
    assert_int_equal(p->identity->rank, 0);
    assert_int_equal(p->identity->size, 128);
    assert_true(warned(&w, "the trace names no GPU"));
    rt_profile_free(h);
    rt_profile_free(p);
    rt_warnings_release(&w);
    rt_warnings_release(&hw);
    rt_comm_patterns_release(&comm);
    json_decref(j);
}

/* AMD MI250 under ROCm 6.2: HIP launches linked by External id, the preset named, Tensile's
 * matrix kernels credited to the FP32 Matrix Cores. */
static void test_fixture_mi250(void **state)
{
    (void)state;
    double gpu_us;
    json_t *j = load_fixture("torch-gpu/minitoy-mi250-rocm6.trace.json.gz", &gpu_us);
    if (!j)
        skip();
    rt_warnings w = {0};
    rt_profile *p = import_fixture("torch-gpu/minitoy-mi250-rocm6.trace.json.gz", 0, NULL, &w);
    double t = 0, mfma = 0;
    for (size_t i = 0; i < p->n_kernels; i++) {
        t += p->kernels[i].time;
        if (!strncmp(p->kernels[i].name, "Cijk_", 5))
            mfma += rt_values_get(&p->kernels[i].flops, "tensor_fp32", 0);
    }
    assert_close(t, gpu_us * 1e-6, 1e-12);
    assert_string_equal(note(p, "gpu_preset"), "mi250");
    /* aten::addmm [5,128] x [128,128] + bias and aten::mm [128,5] x [5,128] */
    assert_close(mfma, 2.0 * 5 * 128 * 128 + 5 * 128 + 2.0 * 128 * 5 * 128, 1e-12);
    assert_non_null(strstr(note(p, "torch_gpu_link"), "by the shared External id"));
    rt_profile_free(p);
    rt_warnings_release(&w);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_profile),
        cmocka_unit_test(test_bf16_units),
        cmocka_unit_test(test_launch_side),
        cmocka_unit_test(test_external_id),
        cmocka_unit_test(test_comm_within_host),
        cmocka_unit_test(test_device_named),
        cmocka_unit_test(test_gzip),
        cmocka_unit_test(test_sum_limits),
        cmocka_unit_test(test_fixture_nccl_rank),
        cmocka_unit_test(test_fixture_mi250),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    rt_torch_ops_free(ops());
    return rc;
}
