/* libFuzzer target: the patterns of communication kernels (data/comm/kernels.json), then a match.
 */
#include "fuzz-common.h"
#include "rooftime/core/comm.h"
#include "rooftime/formats/comm-json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_memfile(data, size, path, sizeof path);
    if (fd < 0)
        return 0;
    rt_comm_patterns p = {0};
    rt_error err;
    if (rt_comm_patterns_load(path, &p, &err) == 0) {
        (void)rt_comm_library(&p, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
        (void)rt_comm_library(&p, "MPI_Allreduce");
    }
    rt_comm_patterns_release(&p);
    close(fd);
    return 0;
}
