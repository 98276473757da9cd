/* Atomic output files and directories (atomic-file.c): a failed run never leaves a partial file. */
#ifndef ROOFTIME_UTIL_ATOMIC_FI_H
#define ROOFTIME_UTIL_ATOMIC_FI_H

#include <stdio.h>
#include "rooftime/util/error.h"

/*
 * Atomic output: rt_atomic_open creates "<path>.tmp.XXXXXX" beside path and
 * returns it open for writing; rt_atomic_commit closes it and renames it over
 * path (fails if any write failed); rt_atomic_abort closes and removes it.
 * So a failed run never leaves a partial file under the final name.
 */
typedef struct rt_atomic_file {
    FILE *fp;
    char *path;
    char *tmp;
} rt_atomic_file;

int rt_atomic_open(rt_atomic_file *af, const char *path, rt_error *err);
int rt_atomic_commit(rt_atomic_file *af, rt_error *err);
void rt_atomic_abort(rt_atomic_file *af);
/* Write a whole buffer atomically. */
int rt_write_file_atomic(const char *path, const void *data, size_t n, rt_error *err);

/* Make a directory and its parents (like mkdir -p). */
int rt_mkdir_p(const char *path, rt_error *err);

/* True when path would be written into directory dir (its parent is dir, by device and inode). */
int rt_path_in_dir(const char *path, const char *dir);

#endif
