/* The PyTorch cost model (data/torch/ops.json) against FLOPs and bytes counted by hand from the
 * shapes, per operator kind, in both convolution conventions; what is missing is said. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/import/torch-cost.h"

#include "torch-ops-fixture.h"

static rt_torch_cost cost(const char *name, const char *dims, const char *types,
                          const char *concrete, double flops_arg, rt_conv_flops conv)
{
    rt_torch_call c = {name, dims, types, concrete, flops_arg};
    rt_torch_cost out;
    rt_torch_ops_cost(ops, &c, conv, &out);
    return out;
}

#define COSTED(c, f, b)                                                                            \
    do {                                                                                           \
        if ((c).status != RT_TC_COSTED)                                                            \
            fail_msg("not costed: %s", (c).why);                                                   \
        assert_true((c).flops_known);                                                              \
        assert_true((c).bytes_known);                                                              \
        assert_true(fabs((c).flops - (f)) < 1e-6);                                                 \
        assert_true(fabs((c).bytes - (b)) < 1e-6);                                                 \
    } while (0)

/* input [2,3,8,8], weight [4,3,3,3], bias [4], padding 1, stride 2: output 4x4. Whole window:
 * 2*2*4*3*16*9 = 6912 + bias 2*4*16 = 128. Taps inside the input along one axis: output 0 sees
 * 2 of 3, the others 3: 11, so 121 pairs: 2*2*4*3*121 = 5808 + 128. Bytes: (384 + 108 + 4 +
 * 128) * 4. */
#define CONV_DIMS "[[2,3,8,8],[4,3,3,3],[4],[],[],[],[]]"
#define CONV_TYPES "[\"float\",\"float\",\"float\",\"\",\"\",\"\",\"Scalar\"]"
#define CONV_ARGS "[\"\",\"\",\"\",\"[1, 1]\",\"[2, 2]\",\"[1, 1]\",\"1\"]"

static void test_conv_forward(void **state)
{
    (void)state;
    rt_torch_cost c =
        cost("aten::mkldnn_convolution", CONV_DIMS, CONV_TYPES, CONV_ARGS, -1, RT_CONV_WINDOW);
    COSTED(c, 6912 + 128, 624 * 4);
    assert_string_equal(c.unit, "fp32");
    c = cost("aten::mkldnn_convolution", CONV_DIMS, CONV_TYPES, CONV_ARGS, -1, RT_CONV_TAPS);
    COSTED(c, 5808 + 128, 624 * 4);
    /* no concrete arguments: taps cannot be counted; the window from torch's own count */
    c = cost("aten::mkldnn_convolution", CONV_DIMS, CONV_TYPES, NULL, -1, RT_CONV_TAPS);
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    assert_non_null(strstr(c.why, "Concrete Inputs"));
    c = cost("aten::mkldnn_convolution", CONV_DIMS, CONV_TYPES, NULL, 6912, RT_CONV_WINDOW);
    COSTED(c, 6912 + 128, 624 * 4);
}

/* grad_output [2,4,4,4]: input and weight gradients each the forward's pairs, bias 128.
 * Bytes: grad_output 128, input gradient reads the weight 108 and writes 384, weight gradient
 * reads the input 384 and writes 108, bias writes 4: 1116 elements of 4 bytes. */
static void test_conv_backward(void **state)
{
    (void)state;
    const char *dims = "[[2,4,4,4],[2,3,8,8],[4,3,3,3],[],[],[],[],[],[],[],[]]";
    const char *types = "[\"float\",\"float\",\"float\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\"]";
    const char *args = "[\"\",\"\",\"\",\"[4]\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"False\","
                       "\"[0, 0]\",\"1\",\"[True, True, True]\"]";
    rt_torch_cost c = cost("aten::convolution_backward", dims, types, args, -1, RT_CONV_WINDOW);
    COSTED(c, 2 * 6912 + 128, 1116 * 4);
    c = cost("aten::convolution_backward", dims, types, args, -1, RT_CONV_TAPS);
    COSTED(c, 2 * 5808 + 128, 1116 * 4);
    /* without concrete arguments: the window from grad_output, input and weight gradients */
    c = cost("aten::convolution_backward", dims, types, NULL, -1, RT_CONV_WINDOW);
    COSTED(c, 2 * 6912, 1112 * 4);
    c = cost("aten::convolution_backward", dims, types, NULL, -1, RT_CONV_TAPS);
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    /* the first layer: no input gradient */
    const char *first = "[\"\",\"\",\"\",\"[4]\",\"[2, 2]\",\"[1, 1]\",\"[1, 1]\",\"False\","
                        "\"[0, 0]\",\"1\",\"[False, True, True]\"]";
    c = cost("aten::convolution_backward", dims, types, first, -1, RT_CONV_TAPS);
    COSTED(c, 5808 + 128, (128 + 384 + 108 + 4) * 4);
}

static void test_matmul(void **state)
{
    (void)state;
    /* addmm: bias [10] + [4,32] x [32,10]: 2*4*10*32 + 40; (10 + 128 + 320 + 40) * 4 bytes */
    rt_torch_cost c = cost("aten::addmm", "[[10],[4,32],[32,10],[],[]]",
                           "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 2560 + 40, 498 * 4);
    /* bmm in bf16: 3 x [4,5] x [5,6]: 2*3*4*6*5; (60 + 90 + 72) * 2 bytes */
    c = cost("aten::bmm", "[[3,4,5],[3,5,6]]", "[\"c10::BFloat16\",\"c10::BFloat16\"]", NULL, -1,
             0);
    COSTED(c, 720, 222 * 2);
    assert_string_equal(c.unit, "bf16"); /* a matrix product: on the data's precision */
    assert_string_equal(c.precision, "bf16");
    /* linear is a dispatcher: its addmm or matmul carries the work */
    c = cost("aten::linear", "[[4,32],[10,32],[10]]", NULL, NULL, -1, 0);
    assert_int_equal(c.status, RT_TC_NONE);
    assert_string_equal(c.klass, "dispatch");
}

static void test_elementwise(void **state)
{
    (void)state;
    /* [4,1,5] + [3,1] broadcast to [4,3,5]: 60 adds; (20 + 3 + 60) * 4 bytes; the Scalar moves
     * nothing */
    rt_torch_cost c =
        cost("aten::add", "[[4,1,5],[3,1],[]]", "[\"float\",\"float\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 60, 83 * 4);
    assert_true(c.working_set == 0); /* out of place: its bytes are its working set */
    /* in place: reads both, writes the first; the first is one tensor in a cache (working set:
     * the two inputs) */
    c = cost("aten::add_", "[[4,5],[4,5],[]]", "[\"float\",\"float\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 20, 60 * 4);
    assert_true(fabs(c.working_set - 40 * 4) < 1e-9);
    /* a 0-dimensional tensor is one element */
    c = cost("aten::mul_", "[[4,5],[]]", "[\"float\",\"float\"]", NULL, -1, 0);
    COSTED(c, 20, (20 + 1 + 20) * 4);
    assert_true(fabs(c.working_set - 21 * 4) < 1e-9);
    /* a dtype conversion: fp32 read, bf16 written, no FLOPs */
    c = cost("aten::copy_", "[[4,5],[4,5],[]]", "[\"c10::BFloat16\",\"float\",\"Scalar\"]", NULL,
             -1, 0);
    COSTED(c, 0, 20 * 4 + 20 * 2);
    assert_true(c.working_set == 0); /* copy_ writes its first input without reading it */
    /* integers are not FLOPs */
    c = cost("aten::add", "[[4],[4],[]]", "[\"long int\",\"long int\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 0, 12 * 8);
    /* the backward of relu: grad and output read, grad written */
    c = cost("aten::threshold_backward", "[[2,8],[2,8],[]]", "[\"float\",\"float\",\"Scalar\"]",
             NULL, -1, 0);
    COSTED(c, 16, 48 * 4);
    /* no types recorded: FLOPs, but bytes unknown */
    c = cost("aten::add_", "[[4,5],[4,5],[]]", NULL, NULL, -1, 0);
    assert_int_equal(c.status, RT_TC_COSTED);
    assert_false(c.bytes_known);
}

static void test_reductions_norms_softmax(void **state)
{
    (void)state;
    rt_torch_cost c = cost("aten::sum", "[[2,3,4]]", "[\"float\"]", NULL, -1, 0);
    COSTED(c, 24, 24 * 4);
    c = cost("aten::_softmax", "[[8,10],[],[]]", "[\"float\",\"Scalar\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 5 * 80, 160 * 4);
    /* batch norm backward: grad_output and input [2,3,4,4], five per-channel vectors read;
     * grad_input, grad_weight and grad_bias written */
    c = cost("aten::native_batch_norm_backward",
             "[[2,3,4,4],[2,3,4,4],[3],[3],[3],[3],[3],[],[],[]]",
             "[\"float\",\"float\",\"float\",\"float\",\"float\",\"float\",\"float\",\"Scalar\","
             "\"Scalar\",\"\"]",
             NULL, -1, 0);
    COSTED(c, 9 * 96, (96 + 96 + 15 + 96 + 3 + 3) * 4);
    c = cost("aten::nll_loss_forward", "[[16,10],[16],[],[],[]]",
             "[\"float\",\"long int\",\"\",\"Scalar\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 16, 16 * 8);
}

static void test_pool_embedding_views(void **state)
{
    (void)state;
    /* 2x2 max pooling of [2,3,8,8], stride 2: 96 outputs of 4 taps; indices int64 */
    rt_torch_cost c =
        cost("aten::max_pool2d_with_indices", "[[2,3,8,8],[],[],[],[],[]]",
             "[\"float\",\"\",\"\",\"\",\"\",\"Scalar\"]",
             "[\"\",\"[2, 2]\",\"[2, 2]\",\"[0, 0]\",\"[1, 1]\",\"False\"]", -1, RT_CONV_TAPS);
    COSTED(c, 384, 384 * 4 + 96 * 4 + 96 * 8);
    c = cost("aten::max_pool2d_with_indices", "[[2,3,8,8],[],[],[],[],[]]", NULL, NULL, -1, 0);
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    /* embedding: 28 indices of 16-wide rows, gathered and written */
    c = cost("aten::embedding", "[[100,16],[4,7],[],[],[]]",
             "[\"float\",\"long int\",\"Scalar\",\"Scalar\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 0, 2 * 28 * 16 * 4 + 28 * 8);
    c = cost("aten::view", "[[4,5],[]]", "[\"float\",\"\"]", NULL, -1, 0);
    assert_int_equal(c.status, RT_TC_NONE);
    assert_string_equal(c.klass, "view");
    c = cost("autograd::engine::evaluate_function: AddmmBackward0", NULL, NULL, NULL, -1, 0);
    assert_int_equal(c.status, RT_TC_NONE);
    c = cost("aten::some_new_op", "[[4]]", "[\"float\"]", NULL, -1, 0);
    assert_int_equal(c.status, RT_TC_UNKNOWN);
}

/* groups and dilation: the window counts of a grouped and of a dilated convolution. */
static void test_conv_groups_dilation(void **state)
{
    (void)state;
    /* input [2,4,6,6], weight [6,2,3,3], groups 2, stride 1, no padding: output 6 x 4x4, each
     * output of C/g = 2 channels times 9 taps, all inside: 2*2*6*2*16*9 = 6912 either way.
     * Bytes: input 288, weight 108, output 2*6*16 = 192 floats. */
    const char *dims = "[[2,4,6,6],[6,2,3,3],[],[],[],[],[]]";
    const char *types = "[\"float\",\"float\",\"\",\"\",\"\",\"\",\"Scalar\"]";
    const char *grouped = "[\"\",\"\",\"\",\"[0, 0]\",\"[1, 1]\",\"[1, 1]\",\"2\"]";
    rt_torch_cost c = cost("aten::mkldnn_convolution", dims, types, grouped, -1, RT_CONV_TAPS);
    COSTED(c, 2 * 2 * 6 * 2 * 16 * 9, (288 + 108 + 192) * 4);
    c = cost("aten::mkldnn_convolution", dims, types, grouped, -1, RT_CONV_WINDOW);
    COSTED(c, 6912, 588 * 4);
    /* input [1,1,7,7], weight [1,1,3,3], dilation 2, padding 2, stride 1: output 7 + 4 - 4 - 1 +
     * 1 = 7. Whole window: 49 * 9 pairs. Taps inside along one axis: output o reads o-2, o, o+2:
     * 2, 2, 3, 3, 3, 2, 2 of them = 17, so 17 * 17 = 289 pairs. Bytes 49 + 9 + 49 floats. */
    dims = "[[1,1,7,7],[1,1,3,3],[],[],[],[],[]]";
    const char *dilated = "[\"\",\"\",\"\",\"[2, 2]\",\"[1, 1]\",\"[2, 2]\",\"1\"]";
    c = cost("aten::mkldnn_convolution", dims, types, dilated, -1, RT_CONV_WINDOW);
    COSTED(c, 2 * 49 * 9, 107 * 4);
    c = cost("aten::mkldnn_convolution", dims, types, dilated, -1, RT_CONV_TAPS);
    COSTED(c, 2 * 17 * 17, 107 * 4);
}

/* mm and baddbmm. */
static void test_mm_baddbmm(void **state)
{
    (void)state;
    /* [4,8] x [8,3]: 2*4*3*8 = 192; 32 + 24 + 12 floats */
    rt_torch_cost c = cost("aten::mm", "[[4,8],[8,3]]", "[\"float\",\"float\"]", NULL, -1, 0);
    COSTED(c, 192, 68 * 4);
    /* self [3,4,6] + batch1 [3,4,5] x batch2 [3,5,6]: 2*3*4*6*5 = 720 and 72 adds; 72 + 60 + 90
     * read, 72 written */
    c = cost("aten::baddbmm", "[[3,4,6],[3,4,5],[3,5,6],[],[]]",
             "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 720 + 72, (72 + 60 + 90 + 72) * 4);
}

/* Average and adaptive pooling, and the backward of pooling. */
static void test_pool_avg_adaptive_backward(void **state)
{
    (void)state;
    /* avg_pool2d of [2,3,8,8], kernel 2, stride 2 (arguments: kernel 1, stride 2, padding 3,
     * ceil_mode 4): 6 planes of 16 outputs of 4 taps = 384; 384 read, 96 written */
    const char *dims = "[[2,3,8,8],[],[],[],[],[],[]]";
    const char *types = "[\"float\",\"\",\"\",\"\",\"Scalar\",\"Scalar\",\"\"]";
    rt_torch_cost c =
        cost("aten::avg_pool2d", dims, types,
             "[\"\",\"[2, 2]\",\"[2, 2]\",\"[0, 0]\",\"False\",\"\",\"\"]", -1, RT_CONV_TAPS);
    COSTED(c, 6 * 16 * 4, (384 + 96) * 4);
    /* kernel 3, stride 1, padding 1 of [1,1,4,4]: 4x4 outputs; taps inside along one axis 2, 3,
     * 3, 2 = 10, so 100 (the whole window 16 * 9 = 144); 16 read, 16 written */
    const char *pad = "[\"\",\"[3, 3]\",\"[1, 1]\",\"[1, 1]\",\"False\",\"\",\"\"]";
    c = cost("aten::avg_pool2d", "[[1,1,4,4],[],[],[],[],[],[]]", types, pad, -1, RT_CONV_TAPS);
    COSTED(c, 100, 32 * 4);
    c = cost("aten::avg_pool2d", "[[1,1,4,4],[],[],[],[],[],[]]", types, pad, -1, RT_CONV_WINDOW);
    COSTED(c, 144, 32 * 4);
    /* adaptive to 1x1: every one of the 384 elements enters a window; 6 outputs */
    c = cost("aten::_adaptive_avg_pool2d", "[[2,3,8,8],[]]", "[\"float\",\"\"]",
             "[\"\",\"[1, 1]\"]", -1, RT_CONV_TAPS);
    COSTED(c, 384, (384 + 6) * 4);
    /* max pooling backward: grad_output [2,3,4,4] (96), input [2,3,8,8] (384) and int64 indices
     * (96) read, an input-shaped gradient written; one FLOP per grad_output element */
    c = cost("aten::max_pool2d_with_indices_backward",
             "[[2,3,4,4],[2,3,8,8],[],[],[],[],[],[2,3,4,4]]",
             "[\"float\",\"float\",\"\",\"\",\"\",\"\",\"Scalar\",\"long int\"]", NULL, -1, 0);
    COSTED(c, 96, 96 * 4 + 384 * 4 + 96 * 8 + 384 * 4);
    /* average pooling backward: one FLOP per input-shaped gradient element */
    c = cost("aten::avg_pool2d_backward", "[[2,3,4,4],[2,3,8,8],[],[],[],[],[],[]]",
             "[\"float\",\"float\",\"\",\"\",\"\",\"Scalar\",\"Scalar\",\"\"]", NULL, -1, 0);
    COSTED(c, 384, (96 + 384 + 384) * 4);
}

/* Softmax family, normalizations, a loss and its backward. */
static void test_softmax_norms_losses(void **state)
{
    (void)state;
    /* log_softmax of [8,10]: 5 per element; 80 read, 80 written */
    rt_torch_cost c = cost("aten::_log_softmax", "[[8,10],[],[]]",
                           "[\"float\",\"Scalar\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 400, 160 * 4);
    /* softmax backward: grad_output and output [8,10] read, grad_input written; 4 per element */
    c = cost("aten::_softmax_backward_data", "[[8,10],[8,10],[],[]]",
             "[\"float\",\"float\",\"Scalar\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 320, 240 * 4);
    /* batch norm forward: input [2,3,4,4] and four per-channel vectors read, the output written;
     * 7 per output element */
    c = cost("aten::native_batch_norm", "[[2,3,4,4],[3],[3],[3],[3],[],[],[]]",
             "[\"float\",\"float\",\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\",\"Scalar\"]",
             NULL, -1, 0);
    COSTED(c, 7 * 96, (96 + 12 + 96) * 4);
    /* layer norm over the last 8 of [4,8]: weight and bias [8] */
    c = cost("aten::native_layer_norm", "[[4,8],[],[8],[8],[]]",
             "[\"float\",\"\",\"float\",\"float\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 7 * 32, (32 + 8 + 8 + 32) * 4);
    /* group norm of [2,4,3], weight and bias [4] */
    c = cost("aten::native_group_norm", "[[2,4,3],[4],[4],[],[],[],[],[]]",
             "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\",\"Scalar\",\"Scalar\","
             "\"Scalar\"]",
             NULL, -1, 0);
    COSTED(c, 7 * 24, (24 + 4 + 4 + 24) * 4);
    /* mse_loss of two [4,5]: 3 per element, both read, a scalar out (not counted) */
    c = cost("aten::mse_loss", "[[4,5],[4,5],[]]", "[\"float\",\"float\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 60, 40 * 4);
    /* its backward: grad (0-dim), input, target read, an input-shaped gradient written */
    c = cost("aten::mse_loss_backward", "[[],[4,5],[4,5],[]]",
             "[\"float\",\"float\",\"float\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 60, (1 + 20 + 20 + 20) * 4);
    /* nll_loss backward: grad (0-dim) and 16 int64 targets read, a [16,10] gradient written; one
     * per target */
    c = cost("aten::nll_loss_backward", "[[],[16,10],[16],[],[],[],[]]",
             "[\"float\",\"float\",\"long int\",\"\",\"Scalar\",\"Scalar\",\"float\"]", NULL, -1,
             0);
    COSTED(c, 16, 4 + 16 * 8 + 160 * 4);
}

/* Embedding backward, optimizer steps, unary operators, copies and fills. */
static void test_embedding_optimizer_unary_copies(void **state)
{
    (void)state;
    /* grad_output [4,7,16] read, 28 int64 indices read, 28 rows of 16 accumulated: 448 adds */
    rt_torch_cost c =
        cost("aten::embedding_dense_backward", "[[4,7,16],[4,7],[],[],[]]",
             "[\"float\",\"long int\",\"Scalar\",\"Scalar\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 448, 2 * 448 * 4 + 28 * 8);
    /* addcdiv_ of three [10]: 3 per element, all read, the first written */
    c = cost("aten::addcdiv_", "[[10],[10],[10],[]]", "[\"float\",\"float\",\"float\",\"Scalar\"]",
             NULL, -1, 0);
    COSTED(c, 30, 40 * 4);
    /* sigmoid: 3 per element; gelu: 8 */
    c = cost("aten::sigmoid", "[[4,5]]", "[\"float\"]", NULL, -1, 0);
    COSTED(c, 60, 40 * 4);
    c = cost("aten::gelu", "[[4,5],[]]", "[\"float\",\"\"]", NULL, -1, 0);
    COSTED(c, 160, 40 * 4);
    /* clone: read and written once in bf16; fill_: written only */
    c = cost("aten::clone", "[[4,5],[]]", "[\"c10::BFloat16\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 0, 40 * 2);
    c = cost("aten::fill_", "[[4,5],[]]", "[\"float\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 0, 20 * 4);
    /* _foreach_add_ over lists [4,5] and [3] (as the runner records them): 23 adds; both lists
     * read, the first written */
    c = cost("aten::_foreach_add_", "[[[4,5],[3]],[[4,5],[3]],[]]",
             "[\"float\",\"float\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 23, 3 * 23 * 4);
    /* as torch 1.13 records them: lists without shapes */
    c = cost("aten::_foreach_add_", "[[],[],[]]", "[\"TensorList\",\"TensorList\",\"Scalar\"]",
             NULL, -1, 0);
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    assert_non_null(strstr(c.why, "tensor list recorded as []"));
}

/* cat, stack and index_select; who leaves its work to whom. */
static void test_cat_stack_index_select(void **state)
{
    (void)state;
    /* cat of [2,3] and [4,3]: 18 read and written, no FLOPs */
    rt_torch_cost c =
        cost("aten::cat", "[[[2,3],[4,3]],[]]", "[\"float\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 0, 2 * 18 * 4);
    /* stack of two [2,3] in bf16: 12 read and written */
    c = cost("aten::stack", "[[[2,3],[2,3]],[]]", "[\"c10::BFloat16\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 0, 2 * 12 * 2);
    c = cost("aten::cat", "[[],[]]", "[\"TensorList\",\"Scalar\"]", NULL, -1, 0);
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    /* index_select of [100,16] along 0 by 28 indices: 28 rows of 16 gathered and written, the
     * indices read (as aten::embedding, which calls it) */
    const char *types = "[\"float\",\"Scalar\",\"long int\"]";
    c = cost("aten::index_select", "[[100,16],[],[28]]", types, "[\"\",\"0\",\"\"]", -1, 0);
    COSTED(c, 0, 2 * 28 * 16 * 4 + 28 * 8);
    /* along 1 of [10,16] by 5: 5 columns of 10 */
    c = cost("aten::index_select", "[[10,16],[],[5]]", types, "[\"\",\"1\",\"\"]", -1, 0);
    COSTED(c, 0, 2 * 5 * 10 * 4 + 5 * 8);
    c = cost("aten::index_select", "[[10,16],[],[5]]", types, "[\"\",\"-1\",\"\"]", -1, 0);
    COSTED(c, 0, 2 * 5 * 10 * 4 + 5 * 8);
    /* dim not recorded: only a 1-dimensional self has no choice */
    c = cost("aten::index_select", "[[10,16],[],[5]]", types, NULL, -1, 0);
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
    assert_non_null(strstr(c.why, "dim"));
    c = cost("aten::index_select", "[[50],[],[5]]", types, NULL, -1, 0);
    COSTED(c, 0, 2 * 5 * 4 + 5 * 8);
    /* the work of a call is counted once: the callee that does it, not the caller too */
    assert_true(rt_torch_ops_defers(ops, "aten::embedding", "aten::index_select"));
    assert_true(rt_torch_ops_defers(ops, "aten::stack", "aten::cat"));
    assert_true(rt_torch_ops_defers(ops, "aten::_foreach_add_", "aten::add_"));
    assert_true(rt_torch_ops_defers(ops, "aten::mean", "aten::sum"));
    assert_true(rt_torch_ops_defers(ops, "aten::clone", "aten::copy_"));
    assert_true(rt_torch_ops_defers(ops, "aten::add", "aten::add")); /* a redispatch */
    assert_true(
        rt_torch_ops_defers(ops, "aten::mul_", "aten::mul")); /* in place via out of place */
    /* out of place via a copy and the in-place form (torch's masked_fill: clone, masked_fill_) */
    assert_true(rt_torch_ops_defers(ops, "aten::masked_fill", "aten::masked_fill_"));
    assert_false(rt_torch_ops_defers(ops, "aten::masked_fill", "aten::masked_scatter_"));
    assert_false(rt_torch_ops_defers(ops, "aten::addmm", "aten::copy_")); /* the bias: its own */
    assert_false(rt_torch_ops_defers(ops, "aten::add_", "aten::copy_"));
    assert_false(rt_torch_ops_defers(ops, "aten::mean", "aten::copy_"));
}

/* Work no count measures: known, no FLOPs or bytes, its class said; a gather's bytes by its
 * index (read), one source element per index, and its output at the source's type. */
static void test_uncounted_and_gather(void **state)
{
    (void)state;
    static const struct {
        const char *op, *klass;
    } rows[] = {
        {"aten::bernoulli_", "rng"},   {"aten::uniform_", "rng"},       {"aten::normal_", "rng"},
        {"aten::randperm", "rng"},     {"aten::native_dropout", "rng"}, {"aten::sort", "sort"},
        {"aten::topk", "sort"},        {"aten::argsort", "sort"},       {"aten::index", "index"},
        {"aten::index_put_", "index"}, {"aten::scatter_add_", "index"}, {"aten::nonzero", "index"},
        {"aten::_unique2", "unique"}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        rt_torch_cost c =
            cost(rows[i].op, "[[64,256],[],[]]", "[\"float\",\"Scalar\",\"\"]", NULL, -1, 0);
        assert_int_equal(c.status, RT_TC_UNCOUNTED);
        assert_string_equal(c.klass, rows[i].klass);
        assert_true(c.flops == 0 && c.bytes == 0);
    }
    /* gather(x [64,256] float, 1, index [64,8] long): 512 indices read (8 B), 512 floats read
     * where they point and 512 written */
    rt_torch_cost c = cost("aten::gather", "[[64,256],[],[64,8],[]]",
                           "[\"float\",\"Scalar\",\"long int\",\"Scalar\"]", NULL, -1, 0);
    COSTED(c, 0, 512 * 8 + 512 * 4 + 512 * 4);
    c = cost("aten::gather", "[[64,256],[],[],[]]", "[\"float\",\"Scalar\",\"\",\"Scalar\"]", NULL,
             -1, 0);
    assert_int_equal(c.status, RT_TC_INCOMPLETE);
}

static void test_bad_tables(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[4096];
    snprintf(path, sizeof path, "%s/ops.json", dir);
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"{\"schema\": \"x\"}", "field 'schema'"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": []}", "field 'ops'"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [{\"model\": \"magic\", \"ops\": "
         "[\"a\"]}]}",
         "field 'ops[0].model': 'magic' is not one of none, matmul"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [{\"model\": \"stream\", \"flops\": "
         "\"2 * bogus\", \"ops\": [\"a\"]}]}",
         "field 'ops[0].flops': formula: "},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [{\"model\": \"none\", \"class\": "
         "\"view\", \"ops\": [\"a\", \"a\"]}]}",
         "field 'ops[0].ops[1]': operator 'a' is listed twice"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [{\"model\": \"matmul\", \"a\": 99, "
         "\"b\": 1, \"ops\": [\"a\"]}]}",
         "field 'ops[0].a': not a whole number from 0 to 31"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [{\"model\": \"stream\", \"flops\": "
         "\"out\", \"defer\": 3, \"ops\": [\"a\"]}]}",
         "field 'ops[0].defer': neither true nor a list"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [{\"model\": \"stream\", \"flops\": "
         "\"out\", \"defer\": [\"x\", 3], \"ops\": [\"a\"]}]}",
         "field 'ops[0].defer[1]': not an operator name"},
        /* a flag that is not true or false, and an output type that is not a string: refused,
         * not read as false */
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [{\"model\": \"matmul\", \"a\": 0, "
         "\"b\": 1, \"transpose_b\": \"yes\", \"ops\": [\"a\"]}]}",
         "field 'ops[0].transpose_b': expected true or false"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [{\"model\": \"stream\", \"flops\": "
         "\"out\", \"out_type\": 1, \"ops\": [\"a\"]}]}",
         "field 'ops[0].out_type': expected a string"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [{\"model\": \"stream\", \"flops\": "
         "\"out\", \"out_type\": \"in99\", \"ops\": [\"a\"]}]}",
         "field 'ops[0].out_type': 'in99' is none of bool, inN (input N's type), uint8, half, "
         "bfloat16, float"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [{\"model\": \"stream\", \"flops\": "
         "\"out\", \"gathered\": -1, \"ops\": [\"a\"]}]}",
         "field 'ops[0].gathered': not a whole number from 0 to 31"},
        {"{\"schema\": \"rooftime.torch-ops/1\", \"ops\": [{\"model\": \"uncounted\", "
         "\"class\": \"magic\", \"ops\": [\"a\"]}]}",
         "field 'ops[0].class': 'magic' is not one of rng, sort, index or unique"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_table_refused(path, bad[i].text, bad[i].msg);
    /* A field is named by its line and column: the value's, or the entry's it is missing from. */
    static const struct {
        const char *text, *at, *msg;
    } lines[] = {
        {"{\"schema\": \"rooftime.torch-ops/1\",\n"
         " \"ops\": [\n"
         "  {\"model\": \"none\", \"class\": \"view\", \"ops\": [\"a\"]},\n"
         "  {\"model\": \"stream\", \"ops\": [\"b\"],\n"
         "   \"flops\": \"out\", \"reads\": [0, 40]}]}\n",
         "40]", "field 'ops[1].reads[1]': not an input index (0 to 31)"},
        {"{\"schema\": \"rooftime.torch-ops/1\",\n"
         " \"ops\": [\n"
         "  {\"model\": \"none\", \"class\": \"view\", \"ops\": [\"a\"]},\n"
         "  {\"model\": \"matmul\", \"a\": 0,\n"
         "   \"ops\": [\"b\"]}]}\n",
         "{\"model\": \"matmul\"", "field 'ops[1].b': missing: a matmul needs 'a' and 'b'"},
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        assert_int_equal(tu_write_file(path, lines[i].text), 0);
        rt_torch_ops *o = NULL;
        rt_error err;
        assert_int_equal(rt_torch_ops_load(path, &o, &err), -1);
        char want[4096 + 256];
        snprintf(want, sizeof want, "cannot read '%s': %s%s", path,
                 tu_place(lines[i].text, lines[i].at), lines[i].msg);
        if (!strstr(err.msg, want))
            fail_msg("'%s' does not say '%s'", err.msg, want);
    }
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_forward),
        cmocka_unit_test(test_conv_backward),
        cmocka_unit_test(test_matmul),
        cmocka_unit_test(test_elementwise),
        cmocka_unit_test(test_reductions_norms_softmax),
        cmocka_unit_test(test_pool_embedding_views),
        cmocka_unit_test(test_conv_groups_dilation),
        cmocka_unit_test(test_mm_baddbmm),
        cmocka_unit_test(test_pool_avg_adaptive_backward),
        cmocka_unit_test(test_softmax_norms_losses),
        cmocka_unit_test(test_embedding_optimizer_unary_copies),
        cmocka_unit_test(test_cat_stack_index_select),
        cmocka_unit_test(test_uncounted_and_gather),
        cmocka_unit_test(test_bad_tables),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
