/* Where the shipped data files live (datadir.c). */
#ifndef ROOFTIME_UTIL_DATAD_H
#define ROOFTIME_UTIL_DATAD_H

/* Directory holding the shipped data files (machines/, ncu/ ...): $ROOFTIME_DATADIR, else the
 * one rt_datadir_set gave, else the source tree's data/ when run from a build tree, else the
 * installed share directory. */
const char *rt_datadir(void);
/* Set the directory taken after $ROOFTIME_DATADIR and before the built-in ones (a language
 * binding's own copy of data/); NULL clears it. Not thread-safe: call it before any other. */
void rt_datadir_set(const char *dir);

#endif
