/* The check every importer's result passes, in the one place every importer ends: a C or Python
 * caller of the library never holds a profile that will not save or load. */
#include "rooftime/import/import-check.h"

int rt_import_check(rt_profile **p, const char *input, rt_error *err)
{
    rt_error why = {{0}};
    if (!*p || rt_profile_check(*p, &why) == 0)
        return 0;
    rt_error_set(err, "'%s': %s", input ? input : "input", why.msg);
    rt_profile_free(*p);
    *p = NULL;
    return -1;
}
