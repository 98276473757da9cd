/* Shared by the libFuzzer targets: an input as a file path, and the round-trip property. */
#ifndef ROOFTIME_FUZZ_COMMON_H
#define ROOFTIME_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <jansson.h>

#include "rooftime/core/profile.h"
#include "rooftime/formats/profile-json.h"

/* The bytes as an in-memory file, named by path (a /proc/self/fd link); -1 on failure. */
static inline int fuzz_memfile(const uint8_t *data, size_t size, char *path, size_t n)
{
    int fd = memfd_create("fuzz-input", 0);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)w;
    }
    snprintf(path, n, "/proc/self/fd/%d", fd);
    return fd;
}

/* What an importer accepted must survive JSON out and in unchanged, and the file the command saves
 * (written a kernel at a time) must be the dump of the profile's tree; abort otherwise (a
 * finding). */
static inline void fuzz_roundtrip(const rt_profile *p)
{
    rt_error err;
    if (rt_profile_check(p, &err) != 0) {
        fprintf(stderr, "accepted but not savable: %s\n", err.msg);
        abort();
    }
    json_t *j = rt_profile_to_json(p);
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(j);
    char *saved = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&saved, &n);
    if (!text || !mem || rt_profile_write_json(p, mem) != 0) {
        fprintf(stderr, "accepted but JSON encoding failed\n");
        abort();
    }
    fclose(mem);
    size_t tn = strlen(text);
    if (n != tn + 1 || memcmp(saved, text, tn) != 0 || saved[tn] != '\n') {
        fprintf(stderr, "the saved profile differs from its tree's dump\n");
        abort();
    }
    free(saved);
    json_error_t je;
    json_t *back = json_loads(text, 0, &je);
    free(text);
    rt_profile *q = NULL;
    if (!back || rt_profile_from_json(back, RT_JSON_NAMED("round trip"), &q, &err) != 0) {
        fprintf(stderr, "accepted but does not load back: %s\n", back ? err.msg : je.text);
        abort();
    }
    json_decref(back);
    if (!rt_profile_equal(p, q, &err)) {
        fprintf(stderr, "changed on the round trip: %s\n", err.msg);
        abort();
    }
    rt_profile_free(q);
}

#endif
