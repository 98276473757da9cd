/* Where the shipped data files live (datadir.c). */
#ifndef ROOFTIME_UTIL_DATAD_H
#define ROOFTIME_UTIL_DATAD_H

/* Directory holding the shipped data files (machines/, ncu/ ...): $ROOFTIME_DATADIR, else the
 * source tree's data/ when run from a build tree, else the installed share directory. */
const char *rt_datadir(void);

#endif
