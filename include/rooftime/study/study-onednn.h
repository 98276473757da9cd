/* oneDNN in the study (study-onednn.c): what it dispatches to on this CPU. */
#ifndef ROOFTIME_STUDY_STUDY_ONEDNN_H
#define ROOFTIME_STUDY_STUDY_ONEDNN_H

/* The ISA oneDNN dispatches to on this CPU ("avx512_core_bf16" ...), or a reason it is unknown. */
const char *rt_onednn_isa(void);

#endif
