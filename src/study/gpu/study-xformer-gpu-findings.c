/* The transformer study's findings on the GPU: the phases as on the CPU (decode along the batch,
 * attention along the sequence), the time CUDA Graphs recover from eager launches, and the time
 * scaled_dot_product_attention's back ends recover from the unfused math. */
#include <stddef.h>

#include "study-xformer-findings.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"

void rt_study_xformer_gpu_findings(rt_findings *f, const rt_analysis *a)
{
    static const rt_xf_pair graphs[] = {
        {"attention", "variant", "", "graphs"},
        {"attention", "variant", "sdpa_flash", "sdpa_flash_graphs"},
        {"attention", "variant", "sdpa_efficient", "sdpa_efficient_graphs"},
        {"attention", "variant", "sdpa_math", "sdpa_math_graphs"},
        {"mlp", "variant", "", "graphs"},
        {"decode", "variant", "", "graphs"},
        {"decode", "variant", "sdpa_flash", "sdpa_flash_graphs"},
        {"decode", "variant", "sdpa_efficient", "sdpa_efficient_graphs"},
        {"decode", "variant", "sdpa_math", "sdpa_math_graphs"}};
    static const rt_xf_pair fusion[] = {
        {"attention", "variant", "", "sdpa_flash"},  {"attention", "variant", "", "sdpa_efficient"},
        {"attention", "variant", "", "sdpa_math"},   {"decode", "variant", "", "sdpa_flash"},
        {"decode", "variant", "", "sdpa_efficient"}, {"decode", "variant", "", "sdpa_math"}};
    rt_study_xformer_phases(f, a);
    rt_study_xformer_pairs(f, a,
                           "CUDA Graphs: the time a captured step recovers from eager launches "
                           "(same configs, summed; device time)",
                           graphs, sizeof graphs / sizeof graphs[0],
                           "Each point ran eager, then captured once in a CUDA graph and "
                           "replayed; the graph's kernels pay a graph node's launch, the eager "
                           "ones a launch each, and between eager launches the GPU idles while "
                           "the host dispatches (outside the kernels' device time).");
    rt_study_xformer_pairs(f, a,
                           "Fusion on the GPU: scaled_dot_product_attention's back ends against "
                           "the unfused math (same configs, summed)",
                           fusion, sizeof fusion / sizeof fusion[0],
                           "The unfused math: matmul, scale, mask, softmax, matmul, eager; "
                           "sdpa_*: one back end each (flash and efficient are fused kernels, "
                           "math is torch's own unfused path inside the operator); a back end "
                           "that cannot run a precision is skipped by the client.");
}
