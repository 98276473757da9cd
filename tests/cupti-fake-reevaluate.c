/* A stand-in for librooftime-cupti.so's re-evaluation entry point, for
 * tests/cli-cupti-reevaluate.sh: `import cupti --reevaluate` loads it through ROOFTIME_CUPTI_LIB,
 * so the command's side (finding, loading, the scratch directory, the import of its rows, the
 * errors) is tested in every build, sanitized or not and with or without CUPTI. It copies
 * DIR/fake-ranges.PID.csv to OUT/ranges.PID.csv and warns once; with DIR/fake-error it fails with
 * that file's first line. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "rooftime/import/cupti.h"

__attribute__((visibility("default"))) long
rooftime_cupti_reevaluate(const char *dir, const char *out_dir,
                          void (*warn)(void *ctx, const char *msg), void *ctx, char *err,
                          size_t errn)
{
    char path[4096], line[4096];
    snprintf(path, sizeof path, "%s/fake-error", dir);
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = '\0';
        line[strcspn(line, "\n")] = '\0';
        fclose(f);
        snprintf(err, errn, "%s", line);
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errn, "fake: cannot read %s", dir);
        return -1;
    }
    long rows = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid;
        int used = 0;
        if (sscanf(e->d_name, "fake-ranges.%ld.csv%n", &pid, &used) != 1 || e->d_name[used])
            continue;
        char from[4096], to[4096];
        snprintf(from, sizeof from, "%s/%s", dir, e->d_name);
        snprintf(to, sizeof to, "%s/ranges.%ld.csv", out_dir, pid);
        FILE *in = fopen(from, "r"), *out = fopen(to, "w");
        for (long n = 0; in && out && fgets(line, sizeof line, in); n++) {
            fputs(line, out);
            rows += n > 0;
        }
        if (in)
            fclose(in);
        if (out)
            fclose(out);
    }
    closedir(d);
    if (warn)
        warn(ctx, "fake: a warning from the re-evaluation");
    return rows;
}
