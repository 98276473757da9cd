/* The join of a PyTorch profile with the oneDNN profile of the same run: a joined operator takes
 * the unit of the oneDNN primitive it ran (AMX on an AMX machine), convolutions by their tensors
 * and matrix products by their factors. The oneDNN side is lines an AMX machine printed (quoted in
 * PyTorch's AMX recipe) and one matmul line written for the test; the torch side is kernels as
 * `import torch` names them, written for the test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/onednn.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/error.h"

/* github pytorch/tutorials, recipes_source/amx.rst, commit
 * 92f11a171bb3f3f6bbd8dfb102c59d67c2385032, and a bf16 matmul in oneDNN 3.x's format. */
static const char dnn_log[] =
    "onednn_verbose,info,cpu,isa:Intel AVX-512 with float16, Intel DL Boost and bfloat16 support "
    "and Intel AMX with bfloat16 and 8-bit integer support\n"
    "onednn_verbose,exec,cpu,convolution,jit:avx512_core_amx_bf16,forward_training,src_bf16::"
    "blocked:acdb:f0 wei_bf16:p:blocked:ABcd16b16a2b:f0 bia_f32::blocked:a:f0 dst_bf16::blocked:"
    "acdb:f0,attr-scratchpad:user ,alg:convolution_direct,mb7_ic2oc1_ih224oh111kh3sh2dh1ph1_"
    "iw224ow111kw3sw2dw1pw1,0.628906\n"
    "onednn_verbose,v1,primitive,exec,cpu,matmul,brg_matmul:avx10_1_512_amx,undef,src:bf16::"
    "blocked:ab::f0 wei:bf16::blocked:ab::f0 dst:bf16::blocked:ab::f0,attr-scratchpad:user,,"
    "32x64:64x128,0.01\n";

static rt_kernel *add(rt_profile *p, const char *name, const char *unit, double flops)
{
    rt_kernel *k = rt_profile_add_kernel(p, name);
    k->invocations = 1;
    k->time = 1e-3;
    rt_values_set(&k->flops, unit, flops);
    return k;
}

static void test_units_follow_the_primitive(void **state)
{
    (void)state;
    rt_profile *dnn = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_onednn_text(dnn_log, strlen(dnn_log), "dnn", &dnn, &w, &err), 0);
    rt_profile *t = rt_profile_new();
    rt_kernel *conv =
        add(t, "aten::mkldnn_convolution [[7,2,224,224],[1,2,3,3],[1],[],[],[],[]]", "bf16", 1e6);
    rt_kernel *mm =
        add(t, "aten::addmm [[128],[32,64],[64,128],[],[]]", "bf16", 2.0 * 32 * 64 * 128);
    rt_kernel *other = add(t, "aten::mm [[32,64],[64,256]]", "bf16", 2.0 * 32 * 64 * 256);
    rt_kernel *relu = add(t, "aten::relu [[7,1,111,111]]", "bf16", 1e4);
    rt_torch_join_onednn(t, dnn);
    assert_true(rt_values_has(&conv->flops, "amx_bf16"));
    assert_close(rt_values_get(&conv->flops, "amx_bf16", 0), 1e6, 0);
    assert_int_equal(conv->flops.n, 1);
    assert_string_equal(rt_tags_get(&conv->tags, "onednn"), "jit:avx512_core_amx_bf16");
    assert_close(rt_values_get(&mm->flops, "amx_bf16", 0), 2.0 * 32 * 64 * 128, 0);
    assert_string_equal(rt_tags_get(&mm->tags, "onednn"), "brg_matmul:avx10_1_512_amx");
    /* operators that ran no oneDNN primitive keep their unit */
    assert_true(rt_values_has(&other->flops, "bf16"));
    assert_null(rt_tags_get(&other->tags, "onednn"));
    assert_true(rt_values_has(&relu->flops, "bf16"));
    const char *note = rt_tags_get(&t->provenance.notes, "onednn_join");
    print_message("%s\n", note);
    assert_non_null(strstr(note, "1 aten matrix products joined"));
    assert_non_null(strstr(note, "2 operators' FLOPs moved to the unit"));
    rt_profile_free(t);
    rt_profile_free(dnn);
    rt_warnings_release(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_units_follow_the_primitive)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
