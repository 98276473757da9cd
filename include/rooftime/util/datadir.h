/* Where the shipped data files live, and how a profile names one (datadir.c). */
#ifndef ROOFTIME_UTIL_DATAD_H
#define ROOFTIME_UTIL_DATAD_H

#include <stddef.h>

/* Directory holding the shipped data files (machines/, ncu/ ...): $ROOFTIME_DATADIR, else the
 * one rt_datadir_set gave, else the source tree's data/ when run from a build tree, else the
 * installed share directory. */
const char *rt_datadir(void);
/* Set the directory taken after $ROOFTIME_DATADIR and before the built-in ones (a language
 * binding's own copy of data/); NULL clears it. Not thread-safe: call it before any other. */
void rt_datadir_set(const char *dir);

/* How a profile names a data file it was read with, so that profiles from other machines compare:
 * a shipped file (under rt_datadir()) as "data/ncu/metrics.json sha256:HEX", never the local path
 * of rooftime's own files; any other file as its path as given and its hash ("my.json
 * sha256:HEX"). text and len: the file's content. A heap string. */
char *rt_data_file_label(const char *path, const void *text, size_t len);

#endif
