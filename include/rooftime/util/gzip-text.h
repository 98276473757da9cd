/* gzip-compressed text inputs, decompressed in memory with zlib (gzip-text.c). */
#ifndef ROOFTIME_UTIL_GZIP_TEXT_H
#define ROOFTIME_UTIL_GZIP_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "rooftime/util/error.h"

/* Whether s starts with gzip's magic bytes (1F 8B). */
bool rt_is_gzip(const void *s, size_t n);

/*
 * Decompress the gzip data z[0, zn) (every member of a file gzip concatenated) into a heap buffer
 * with a NUL after its *len bytes, and check it as rt_read_text_file checks a text: more than max
 * bytes once decompressed (a decompression bomb, or a text past the input limit) is refused as
 * soon as inflating passes it, as are corrupt or cut data, bytes after the last member that are
 * not gzip, a NUL byte and a text in another encoding. A UTF-8 byte order mark is dropped.
 * Messages start "cannot read 'SHOWN': ". Caller frees *buf.
 */
int rt_gunzip_text(const void *z, size_t zn, const char *shown, size_t max, char **buf, size_t *len,
                   rt_error *err);

#endif
