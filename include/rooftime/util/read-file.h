/* Whole inputs into memory (read-file.c): files, FIFOs and standard input ("-"), bounded. */
#ifndef ROOFTIME_UTIL_READ_FILE_H
#define ROOFTIME_UTIL_READ_FILE_H

#include <stddef.h>

#include "rooftime/util/error.h"

/* The largest text input rooftime reads whole (a trace or a profile): 4 GiB. */
#define RT_MAX_TEXT_INPUT ((size_t)4 << 30)

/*
 * Read all of path ("-": standard input; FIFOs and character devices too) into a heap buffer
 * with a NUL after its len bytes. A text input: a NUL byte inside is an error naming its offset
 * (so /dev/zero fails at once, and a file of NULs after its first 64 KiB
 * read, whatever its size), as is more than max bytes. The message starts "cannot read
 * 'PATH': ". Caller frees *buf.
 */
int rt_read_text_file(const char *path, size_t max, char **buf, size_t *len, rt_error *err);

#endif
