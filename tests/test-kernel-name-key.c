/* Tests of the kernel name key (core/kernel-name-key.c) and the demangler (util/demangle.c) on
 * recorded names of both printings: Nsight Compute 2025's own (the sm120-llm-decode fixture), the
 * __cxa_demangle printing of the CUPTI collector, and the mangled names nvcc wrote here. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/kernel-name-key.h"
#include "rooftime/import/csv-reader.h"
#include "rooftime/util/demangle.h"
#include "rooftime/util/error.h"

/*
 * Mangled names written by nvcc 13.0.88 (CUDA 13.0) on the development VM for the two stand-in
 * kernels of tests/data/kernel-names/stand-in-kernels.cu (`nvcc --expt-relaxed-constexpr
 * -arch=sm_120 -cubin`, the names as the cubin's .text sections hold them): PyTorch's
 * vectorized_elementwise_kernel at the template arguments of the example, and a kernel
 * declared with the template arguments ncu printed for the cuBLAS GEMV of the fixture (its T7 a
 * bool, as ncu's `enable_if<!T7, void>` says).
 */
static const char *const mangled_torch =
    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_"
    "T1_";
static const char *const mangled_gemv =
    "_Z6kernelIii13__nv_bfloat16S0_S0_fLb0ELi1ELi1ELi0ELi7ELi0E18cublasGemvParamsExIi30cublasGemvT"
    "ensorStridedBatchedIKS0_ES4_S2_IS0_EfEENSt9enable_ifIXntT5_EvE4typeET11_";

static void key_is(const char *name, const char *want)
{
    char *k = rt_kernel_name_key(name);
    if (strcmp(k, want) != 0)
        fail_msg("key of '%.200s':\n  got  '%s'\n  want '%s'", name, k, want);
    free(k);
}

static void same_key(const char *a, const char *b)
{
    char *ka = rt_kernel_name_key(a), *kb = rt_kernel_name_key(b);
    if (strcmp(ka, kb) != 0)
        fail_msg("'%.160s' and '%.160s': keys '%s' and '%s' differ", a, b, ka, kb);
    free(ka);
    free(kb);
}

/* The demangler prints what the collector writes (c++filt's text, libstdc++'s demangler). */
static void test_demangle(void **state)
{
    (void)state;
    char *d = rt_demangle(mangled_torch, strlen(mangled_torch));
    assert_non_null(d);
    assert_string_equal(d, "void at::native::vectorized_elementwise_kernel<4, "
                           "at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, "
                           "at::native::FillFunctor<float>, std::array<char*, 1ul>)");
    free(d);
    /* the length is honoured: a prefix is another (here invalid) name */
    assert_null(rt_demangle(mangled_torch, 10));
    assert_null(rt_demangle("copy_kernel", 11)); /* not mangled: kept as written */
    assert_null(rt_demangle("_Z", 2));
    assert_null(rt_demangle("_Zbogus((", 9));    /* does not demangle */
    assert_null(rt_demangle("_ZN1a1bE\0x", 10)); /* a NUL inside */
    assert_true(rt_is_mangled(mangled_gemv, strlen(mangled_gemv)));
    assert_false(rt_is_mangled("void k<1>(int)", 14));
}

/* A short name whose back-references double what it prints at each step (`S_IS0_S0_E` ...): 60
 * steps, 650 bytes, would print 2^60 times; __cxa_demangle printed 98 MB in 1.5 s at 42 steps. The
 * printing stops at RT_DEMANGLED_MAX and the name is kept as written, at once. */
static void test_demangle_bounded(void **state)
{
    (void)state;
    char s[2048] = "_Z1fI1AIiiE";
    for (int i = 0; i < 60; i++) {
        static const char dg[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
        char b36[8];
        if (i < 36)
            snprintf(b36, sizeof b36, "%c", dg[i]);
        else
            snprintf(b36, sizeof b36, "%c%c", dg[i / 36], dg[i % 36]);
        char t[32];
        snprintf(t, sizeof t, i ? "S_IS%s_S%s_E" : "S_IS0_S0_E", b36, b36);
        strcat(s, t);
    }
    strcat(s, "EvT_");
    assert_true(strlen(s) < 1024); /* within the demangler's recursion limit */
    assert_null(rt_demangle(s, strlen(s)));
    char *k = rt_kernel_name_key(s); /* kept as written: its key is the name */
    assert_string_equal(k, s);
    free(k);
    /* the first steps print, as __cxa_demangle prints them */
    s[strlen("_Z1fI1AIiiES_IS0_S0_E")] = '\0';
    strcat(s, "EvT_");
    char *d = rt_demangle(s, strlen(s));
    assert_non_null(d);
    assert_string_equal(d, "void f<A<int, int>, f<A, A> >(A<int, int>)");
    free(d);
}

/* The pair of the issue: the collector's printing and ncu's, one key; the mangled name too. */
static void test_torch_pair(void **state)
{
    (void)state;
    const char *want = "vectorized_elementwise_kernel<4,FillFunctor<float>,array<char*,1>>";
    key_is("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
           "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
           want);
    key_is("void vectorized_elementwise_kernel<4, FillFunctor<float>, array<char *, 1>>(int, T2, "
           "T3)",
           want);
    key_is(mangled_torch, want);
}

/* The fixture's kernel as ncu 2025 printed it against the collector's printing of a kernel with
 * the same template arguments: const on the other side, false for 0, "> >", the return type. */
static void test_ncu_fixture_names(void **state)
{
    (void)state;
    const char *path = tu_fixture("ncu/sm120-llm-decode/kernel_0001.metrics.csv");
    if (!path)
        skip();
    rt_error err = {{0}};
    rt_csv *c = rt_csv_open(path, &err);
    assert_non_null(c);
    rt_csv_row r;
    assert_int_equal(rt_csv_next(c, &r, &err), 1); /* the header */
    assert_int_equal(rt_csv_next(c, &r, &err), 1);
    char *ncu = strdup(r.field[4]); /* Kernel Name */
    rt_csv_free(c);
    assert_non_null(strstr(ncu, "(T13)"));
    const char *want =
        "kernel<int,int,__nv_bfloat16,__nv_bfloat16,__nv_bfloat16,float,0,1,1,0,7,0,"
        "cublasGemvParamsEx<int,cublasGemvTensorStridedBatched<__nv_bfloat16>,"
        "cublasGemvTensorStridedBatched<__nv_bfloat16>,cublasGemvTensorStridedBatched"
        "<__nv_bfloat16>,float>>";
    key_is(ncu, want);
    char *cxa = rt_demangle(mangled_gemv, strlen(mangled_gemv));
    assert_non_null(cxa);
    assert_non_null(strstr(cxa, "std::enable_if<!(false), void>::type kernel<"));
    assert_non_null(strstr(cxa, "<__nv_bfloat16 const>"));
    same_key(ncu, cxa);
    same_key(ncu, mangled_gemv);
    free(cxa);
    free(ncu);
}

/* Names without templates or parameters, namespaces, anonymous namespaces, suffixes. */
static void test_rules(void **state)
{
    (void)state;
    key_is("sigma_gpp_gpu_31", "sigma_gpp_gpu_31");
    key_is("volta_scudnn_128x32_relu_small_nn_v1", "volta_scudnn_128x32_relu_small_nn_v1");
    same_key("cudnn::gemm::computeOffsetsKernel(cudnn::gemm::ComputeOffsetsParams)",
             "computeOffsetsKernel(ComputeOffsetsParams)");
    same_key(
        "void (anonymous namespace)::softmax_warp_forward<float, float, float, 8, false>(float*, "
        "float const*, int, int, int)",
        "void softmax_warp_forward<float, float, float, 8, false>(T1 *, const T2 *, int, int, "
        "int)");
    key_is("void k<3u, 4l, 5ul, 6ll, true, false, 0x10>(int)", "k<3,4,5,6,1,0,0x10>");
    key_is("void ::k<int>(int)", "k<int>");
    key_is("std::enable_if<!(false), void>::type a::b::k<c::d<int> >::e<1>(int)",
           "k<d<int>>::e<1>");
    key_is("(weird)", "(weird)"); /* nothing before the parameters: the name without blanks */
    key_is("", "");
    /* kernels the key cannot tell apart: overloads by parameter type */
    same_key("void k<float>(int)", "void k<float>(long)");
}

/* Linear: a long name of nested templates and a long run of brackets. */
static void test_long_names(void **state)
{
    (void)state;
    size_t n = 1 << 20;
    char *s = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        s[i] = i < n / 2 ? '<' : '>';
    s[n] = '\0';
    char *k = rt_kernel_name_key(s);
    assert_int_equal(strlen(k), n);
    free(k);
    memset(s, '(', n);
    k = rt_kernel_name_key(s);
    assert_int_equal(strlen(k), n); /* no name before the first '(': the whole text */
    free(k);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_demangle),   cmocka_unit_test(test_demangle_bounded),
        cmocka_unit_test(test_torch_pair), cmocka_unit_test(test_ncu_fixture_names),
        cmocka_unit_test(test_rules),      cmocka_unit_test(test_long_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
