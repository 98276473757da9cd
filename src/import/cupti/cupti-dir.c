/* The collector's directories as files: whether a directory holds only what the collector writes,
 * and removing one. */
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rooftime/import/cupti-dir.h"
#include "rooftime/util/strings.h"

/* name is PREFIX then numbers separated by dots, then SUFFIX ("counterdata.12.1.0.bin"). */
static int numbered(const char *name, const char *prefix, size_t numbers, const char *suffix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0)
        return 0;
    const char *s = name + n;
    for (size_t i = 0; i < numbers; i++) {
        if (i > 0 && *s++ != '.')
            return 0;
        if (*s < '0' || *s > '9')
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return strcmp(s, suffix) == 0;
}

bool rt_cupti_is_collector_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
            continue;
        ok = numbered(n, "collector.", 1, ".txt") || numbered(n, "kernels.", 1, ".csv") ||
             numbered(n, "launches.", 1, ".csv") || numbered(n, "ranges.", 1, ".csv") ||
             numbered(n, "images.", 1, ".csv") || numbered(n, "marks.", 1, ".csv") ||
             numbered(n, "config.", 2, ".bin") || numbered(n, "counterdata.", 3, ".bin") ||
             numbered(n, "counterdata.", 3, ".bin.names");
    }
    closedir(d);
    return ok;
}

void rt_cupti_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *p = rt_asprintf("%s/%s", dir, e->d_name);
        unlink(p);
        free(p);
    }
    closedir(d);
    rmdir(dir);
}
