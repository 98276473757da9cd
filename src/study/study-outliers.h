/* Private to the study: the findings section on outliers at the same shape (study-outliers.c). */
#ifndef ROOFTIME_STUDY_OUTLIERS_H
#define ROOFTIME_STUDY_OUTLIERS_H

#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/time-spread.h"

/* Ratios above this between implementations or precisions of one shape are called out. */
#define RT_OUTLIER_RATIO 20.0
/* At most this many outliers and narrow-precision slowdowns are listed. */
#define RT_OUTLIER_ROWS 12

/* Configs of the same operation, pass and shape compared across implementations and precisions:
 * the largest time ratios, and every narrower precision slower than a wider one of the same
 * implementation; a ratio within the noise of the two configs' spreads is counted, not listed. */
void rt_study_section_outliers(rt_findings *o, const rt_analysis *a);

/* The noise of a config's time: its kernels' per-invocation spreads, time-weighted. */
rt_noise rt_study_config_noise(const rt_analysis *a, const rt_config *c);

#endif
