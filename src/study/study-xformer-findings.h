/* Private to the study: the transformer study's findings (study-xformer-findings.c). */
#ifndef ROOFTIME_STUDY_XFORMER_FINDINGS_H
#define ROOFTIME_STUDY_XFORMER_FINDINGS_H

#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/study/study-run.h"

/* Decode along the batch (where it leaves the overhead box, where its AI crosses the machine
 * balance of its unit on this machine's ceilings), attention along the sequence (where prefill
 * turns compute-bound), and the time fusion recovers (the unfused math against torch's
 * scaled_dot_product_attention, the unfused MLP against oneDNN's post-ops); nothing when the run
 * has no transformer op. */
void rt_study_xformer_findings(rt_findings *f, const rt_analysis *a, const rt_study_result *r);

/* The sections that read the phases, for the GPU study too: decode along the batch, attention
 * along the sequence (series named by implementation, variant and precision). */
void rt_study_xformer_phases(rt_findings *f, const rt_analysis *a);

/* Configs of op that differ only in tag `key`, `from` against `to` ("" for an absent tag). */
typedef struct rt_xf_pair {
    const char *op, *key, *from, *to;
} rt_xf_pair;
/* A section `heading`: per pair and precision, the summed times of the configs both ran, the
 * time recovered going from one to the other and where it is largest; then `note`. Nothing when
 * no config has a pair's op. */
void rt_study_xformer_pairs(rt_findings *o, const rt_analysis *a, const char *heading,
                            const rt_xf_pair *pairs, size_t n, const char *note);

/* The GPU study's (study-xformer-gpu-findings.c): the phases, CUDA Graphs against eager, and
 * scaled_dot_product_attention's back ends against the unfused math. */
void rt_study_xformer_gpu_findings(rt_findings *f, const rt_analysis *a);

#endif
