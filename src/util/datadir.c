/* Where the shipped data files live. */
#include <stdlib.h>
#include <sys/stat.h>

#include "rooftime-config.h"
#include "rooftime/util/datadir.h"

static int is_dir(const char *p)
{
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *rt_datadir(void)
{
    const char *env = getenv("ROOFTIME_DATADIR");
    if (env && *env)
        return env;
    if (is_dir(RT_SOURCE_DATADIR))
        return RT_SOURCE_DATADIR;
    return RT_INSTALL_DATADIR;
}
