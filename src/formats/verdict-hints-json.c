/* data/verdict-hints.json: {"schema": "rooftime.verdict-hints/1", "hints": [{"bound", "detail"?,
 * "hint"}]}. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "json-write.h"
#include "rooftime/core/verdict-hints.h"
#include "rooftime/formats/verdict-hints-json.h"
#include "rooftime/util/data-file.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

static const char *const classes[] = {"zero-ai", "overhead", "bandwidth", "compute", "none"};

static int from_json(const json_t *root, const char *origin, rt_verdict_hints *out, rt_error *err)
{
    rt_jr r = {.origin = origin, .err = err};
    const json_t *arr;
    if (rt_jr_object(&r, root, "") != 0 ||
        rt_jr_schema(&r, root, "rooftime.verdict-hints/1") != 0 ||
        rt_jr_array(&r, root, "", "hints", true, &arr) != 0)
        return -1;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *h = json_array_get(arr, i);
        char path[48];
        snprintf(path, sizeof path, "hints[%zu]", i);
        char *bound = NULL, *detail = NULL, *text = NULL;
        int rc = -1;
        if (rt_jr_object(&r, h, path) == 0 &&
            rt_jr_string(&r, h, path, "bound", true, &bound) == 0 &&
            rt_jr_string(&r, h, path, "detail", false, &detail) == 0 &&
            rt_jr_string(&r, h, path, "hint", true, &text) == 0) {
            size_t c = 0;
            while (c < sizeof classes / sizeof *classes && strcmp(classes[c], bound) != 0)
                c++;
            if (c == sizeof classes / sizeof *classes)
                rt_jr_fail(&r, path, "bound",
                           "unknown bound '%s' (zero-ai, overhead, bandwidth, compute or none)",
                           bound);
            else {
                rt_verdict_hints_add(out, bound, detail, text);
                rc = 0;
            }
        }
        free(bound);
        free(detail);
        free(text);
        if (rc != 0) {
            rt_verdict_hints_release(out);
            return -1;
        }
    }
    return 0;
}

int rt_verdict_hints_parse(const char *text, size_t len, const char *origin, rt_verdict_hints *out,
                           rt_error *err)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        rt_error_set(err, "cannot read '%s': line %d, column %d: %s", origin, je.line, je.column,
                     je.text);
        return -1;
    }
    int rc = from_json(root, origin, out, err);
    json_decref(root);
    return rc;
}

int rt_verdict_hints_load(const char *path, rt_verdict_hints *out, rt_error *err)
{
    memset(out, 0, sizeof *out);
    rt_data_file f; /* the one loader of data files; from_json checks the schema */
    int rc = rt_data_file_load(&f, path, "verdict-hints.json", NULL, err);
    if (rc == 0) {
        rc = from_json(f.root, f.path, out, err);
        rt_data_file_release(&f);
    }
    return rc;
}
