/* Where the study's client scripts are (scripts/torch-client.py, scripts/study-gpu-*.py). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rooftime-config.h"
#include "rooftime/study/study-scripts.h"
#include "rooftime/util/strings.h"

char *rt_study_script(const char *rel, rt_error *err)
{
    /* RT_SOURCE_DATADIR is "<source>/data": the clients are in "<source>/scripts" */
    const char *src = RT_SOURCE_DATADIR;
    size_t sl = strlen(src);
    if (sl >= 5 && strcmp(src + sl - 5, "/data") == 0)
        sl -= 5;
    const char *env = getenv("ROOFTIME_SRC");
    char *cand[3] = {env && *env ? rt_asprintf("%s/%s", env, rel) : NULL,
                     rt_asprintf("%.*s/%s", (int)sl, src, rel),
                     rt_asprintf("%s/%s", RT_INSTALL_DATADIR, rel)};
    char *found = NULL;
    for (int i = 0; i < 3 && !found; i++)
        if (cand[i] && access(cand[i], R_OK) == 0) {
            found = cand[i];
            cand[i] = NULL;
        }
    if (!found)
        rt_error_set(err, "cannot find %s (looked in %s%s%s, %s)", rel, cand[0] ? cand[0] : "",
                     cand[0] ? ", " : "", cand[1], cand[2]);
    for (int i = 0; i < 3; i++)
        free(cand[i]);
    return found;
}
