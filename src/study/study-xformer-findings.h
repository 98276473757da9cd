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

#endif
