/* Where the shipped data files live, and how a profile names one of them. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rooftime-config.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/sha256.h"
#include "rooftime/util/strings.h"

static int is_dir(const char *p)
{
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *set_dir;

void rt_datadir_set(const char *dir)
{
    free(set_dir);
    set_dir = NULL;
    if (dir && *dir) {
        size_t n = strlen(dir) + 1;
        set_dir = malloc(n);
        if (set_dir)
            memcpy(set_dir, dir, n);
    }
}

const char *rt_datadir(void)
{
    const char *env = getenv("ROOFTIME_DATADIR");
    if (env && *env)
        return env;
    if (set_dir)
        return set_dir;
    if (is_dir(RT_SOURCE_DATADIR))
        return RT_SOURCE_DATADIR;
    return RT_INSTALL_DATADIR;
}

char *rt_data_file_label(const char *path, const void *text, size_t len)
{
    char hex[65];
    rt_sha256_hex(text, len, hex);
    const char *dir = rt_datadir();
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (strncmp(path, dir, n) == 0 && path[n] == '/') {
        const char *rel = path + n + 1;
        while (*rel == '/')
            rel++;
        return rt_asprintf("data/%s sha256:%s", rel, hex);
    }
    return rt_asprintf("%s sha256:%s", path, hex);
}
