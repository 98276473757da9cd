/* data/comm/kernels.json: which kernel names are communication, and of which library. */
#include <stdlib.h>

#include "json-write.h"
#include "rooftime/core/comm.h"
#include "rooftime/formats/comm-json.h"
#include "rooftime/util/data-file.h"
#include "rooftime/util/strings.h"

/* More patterns than any library needs: a file with more is not a patterns file. */
#define MAX_PATTERNS 10000

int rt_comm_patterns_from_json(const json_t *j, const rt_json_src *src, rt_comm_patterns *out,
                               rt_error *err)
{
    rt_jr r = {*src, err};
    const json_t *arr;
    if (rt_jr_object(&r, j, "") != 0 || rt_jr_array(&r, j, "", "patterns", true, &arr) != 0)
        return -1;
    if (json_array_size(arr) > MAX_PATTERNS) {
        rt_jr_fail(&r, "", "patterns", "more than %d patterns", MAX_PATTERNS);
        return -1;
    }
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *o = json_array_get(arr, i);
        char path[48];
        snprintf(path, sizeof path, "patterns[%zu]", i);
        char *match = NULL, *lib = NULL;
        if (rt_jr_object(&r, o, path) != 0 ||
            rt_jr_string(&r, o, path, "match", true, &match) != 0 ||
            rt_jr_string(&r, o, path, "library", false, &lib) != 0) {
            free(match);
            return -1;
        }
        if (!*match) {
            free(match);
            free(lib);
            rt_jr_fail(&r, path, "match", "empty pattern");
            return -1;
        }
        rt_comm_patterns_add(out, match, lib);
        free(match);
        free(lib);
    }
    return 0;
}

int rt_comm_patterns_load(const char *path, rt_comm_patterns *out, rt_error *err)
{
    rt_data_file f; /* the one loader of data files; from_json checks the schema */
    int rc = rt_data_file_load(&f, path, "comm/kernels.json", NULL, err);
    if (rc == 0) {
        rt_json_src src = rt_data_file_src(&f);
        rc = rt_comm_patterns_from_json(f.root, &src, out, err);
        rt_data_file_release(&f);
    }
    return rc;
}
