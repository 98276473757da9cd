/* SHA-256 (sha256.c): names a data file by its content. */
#ifndef ROOFTIME_UTIL_SHA256_H
#define ROOFTIME_UTIL_SHA256_H

#include <stddef.h>

/* The SHA-256 of n bytes as 64 lower-case hex digits and a NUL, as `sha256sum` prints it. */
void rt_sha256_hex(const void *data, size_t n, char out[65]);

#endif
