/* libFuzzer target: `import ncu` on one file, or two; byte 0 picks --per-launch (bit 0),
 * --allow-missing (bit 1), two files (bit 2: the rest splits at its first blank line pair
 * "\n\n\n"), so that the join across files, by launch or per kernel name, is fuzzed too, and the
 * seed authors' recipe (bit 3, --recipe paper). The seeds (scripts/fuzz.sh) hold ncu 2025's shapes:
 * rule columns and rule rows, short metric rows, scaled units, n/a, section pages, mangled names.
 */
#include <string.h>

#include "fuzz-common.h"
#include "rooftime/import/ncu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *body = data + 1;
    size_t n = size - 1, cut = n;
    if ((data[0] >> 2) & 1) {
        const uint8_t *sep = memmem(body, n, "\n\n\n", 3);
        if (sep)
            cut = (size_t)(sep - body) + 1;
    }
    char path[2][64];
    int fd[2] = {-1, -1};
    fd[0] = fuzz_memfile(body, cut, path[0], sizeof path[0]);
    if (fd[0] < 0)
        return 0;
    size_t nfiles = 1;
    if (cut < n) {
        fd[1] = fuzz_memfile(body + cut + 2, n - cut - 2, path[1], sizeof path[1]);
        if (fd[1] < 0) {
            close(fd[0]);
            return 0;
        }
        nfiles = 2;
    }
    rt_ncu_options o = {.per_launch = data[0] & 1,
                        .allow_missing = (data[0] >> 1) & 1,
                        .recipe = (data[0] >> 3) & 1 ? "paper" : NULL};
    const char *paths[2] = {path[0], path[1]};
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err;
    if (rt_import_ncu(paths, nfiles, &o, &p, &w, &err) == 0)
        fuzz_roundtrip(p);
    rt_profile_free(p);
    rt_warnings_release(&w);
    for (size_t i = 0; i < nfiles; i++)
        close(fd[i]);
    return 0;
}
