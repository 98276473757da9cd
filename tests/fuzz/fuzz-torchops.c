/* libFuzzer target: the PyTorch cost model table (data/torch/ops.json), then every entry's model
 * evaluated on a few recorded calls, valid and odd. */
#include <string.h>

#include "fuzz-common.h"
#include "rooftime/import/torch-cost.h"

static const rt_torch_call calls[] = {
    {"aten::mkldnn_convolution", "[[2,3,8,8],[4,3,3,3],[4],[],[],[],[]]",
     "[\"float\",\"float\",\"float\",\"\",\"\",\"\",\"Scalar\"]",
     "[\"\",\"\",\"\",\"[1, 1]\",\"[2, 2]\",\"[1, 1]\",\"1\"]", 6912},
    {"aten::convolution_backward", "[[2,4,4,4],[2,3,8,8],[4,3,3,3],[],[],[],[],[],[],[],[]]",
     "[\"float\",\"float\",\"float\"]", "[\"\",\"\",\"\",\"\",\"[2]\",\"[-1, 1]\",\"[0]\"]", -1},
    {"aten::max_pool2d_with_indices", "[[2,3,8,8],[],[],[],[],[]]", "[\"c10::BFloat16\"]",
     "[\"\",\"[2, 2]\",\"[]\",\"[0, 0]\",\"[1, 1]\",\"True\"]", -1},
    {"aten::addmm", "[[10],[4,32],[32,10],[],[]]", "[\"float\",\"float\",\"float\"]", NULL, -1},
    {"aten::add", "[[4,1,5],[3,1],[]]", "[\"float\",\"float\",\"Scalar\"]", NULL, -1},
    {"aten::_foreach_add_", "[[[4,5],[3]],[[4,5],[3]],[]]", "[\"TensorList\"]", NULL, -1},
    {"aten::embedding", "[[100,16],[4,7]]", "[\"float\",\"long int\"]", NULL, -1},
    {"aten::sum", "[[1e3],[\"x\"]]", NULL, "{}", -1},
    /* fbgemm's table-batched embedding (model tbe): one weighted table, its backward */
    {"fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function",
     "[[0],[80],[0],[0,0],[1],[1],[2],[],[],[2],[],[10],[4],[],[10],[],[0],[],[],[],[5],[0],[1],"
     "[1],[],[],[],[],[]]",
     "[\"float\",\"c10::Half\",\"c10::Half\",\"c10::Half\",\"int\",\"long\",\"int\","
     "\"Scalar\",\"Scalar\",\"long\",\"Scalar\",\"long\",\"long\",\"Scalar\",\"float\",\"\","
     "\"int\",\"Scalar\",\"Scalar\",\"Scalar\",\"float\",\"float\",\"int\",\"long\"]",
     "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"16\"]", -1},
    {"torch::autograd::CppNode<SplitLookupFunction_rowwise_adagrad_Op>", "[[3,16]]", "[\"float\"]",
     NULL, -1},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_memfile(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    rt_torch_ops *o = NULL;
    rt_error err;
    if (rt_torch_ops_load(path, &o, &err) == 0) {
        /* every name the table lists, and the sample calls under both conventions */
        for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
            for (int conv = 0; conv < 2; conv++) {
                rt_torch_cost c;
                rt_torch_ops_cost(o, &calls[i], (rt_conv_flops)conv, &c);
                rt_torch_call any = calls[i];
                any.name = "a";
                rt_torch_ops_cost(o, &any, (rt_conv_flops)conv, &c);
            }
        rt_torch_ops_free(o);
    }
    close(fd);
    return 0;
}
