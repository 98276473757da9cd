/* Whole inputs into memory (read-file.c): files, FIFOs and standard input ("-"), bounded; or
 * mapped. */
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
 * 'PATH': ". A UTF-8 byte order mark at the start is dropped (not in *buf or *len). Caller frees
 * *buf.
 */
int rt_read_text_file(const char *path, size_t max, char **buf, size_t *len, rt_error *err);
/* The same, and an input compressed with gzip (a trace kept as .json.gz) is decompressed, with
 * max bounding it decompressed too (rt_gunzip_text, gzip-text.h). */
int rt_read_text_file_gz(const char *path, size_t max, char **buf, size_t *len, rt_error *err);
/* "cannot read 'SHOWN': no such file" (or errno's text) after a failed open: every reader words it
 * alike. Returns -1. */
int rt_open_error(const char *shown, rt_error *err);

/* A text input's len bytes at s, not NUL-terminated. */
typedef struct rt_text {
    const char *s;
    size_t len;
    size_t mapped; /* bytes mapped at s - (mapped - len) (a byte order mark before s); 0: heap */
} rt_text;

/*
 * The same input, checks and messages as rt_read_text_file, without the copy where it can: a
 * regular file of 1 MiB or more is mapped (read-only, private), not read into the heap (a 370 MB
 * profile costs no 370 MB of fresh pages and no copy of them). Like every mapping of a file, it
 * assumes the file is not truncated while mapped (a write that cuts it short kills the reader
 * with SIGBUS); rooftime replaces the files it writes (atomic-file.c), never truncates them.
 * Release with rt_text_release.
 */
int rt_text_load(const char *path, size_t max, rt_text *t, rt_error *err);
void rt_text_release(rt_text *t);

#endif
