/* The CUPTI collector's directories as files (cupti-dir.c): what `profile --gpu`, `study --gpu`
 * and the self-check may replace, and removing it. */
#ifndef ROOFTIME_IMPORT_CUPTI_DIR_H
#define ROOFTIME_IMPORT_CUPTI_DIR_H

#include <stdbool.h>

/* True when dir holds nothing but what the collector writes (collector.PID.txt, its CSV files, raw
 * images and their names): a directory rooftime may replace. */
bool rt_cupti_is_collector_dir(const char *dir);
/* Remove dir's files, then dir (one level: what the collector writes). */
void rt_cupti_remove_dir(const char *dir);

#endif
