/* The importers' table (rooftime/import/importers.h): the rows, each defined beside its reader
 * in its room of src/import, and what several rows' options share. */
#include <stdlib.h>
#include <string.h>

#include "rooftime/import/importers.h"

/* The rows, in the order the usage and the list of an unknown importer show them, each
 * `rt_importer_NAME` defined beside its reader in its room (NAME/...). To add one: one line. */
#define ROWS(X)                                                                                    \
    X(ncu)                                                                                         \
    X(table)                                                                                       \
    X(onednn)                                                                                      \
    X(torch)                                                                                       \
    X(cupti)                                                                                       \
    /* the last line */

#define DECLARE(name) extern const rt_importer rt_importer_##name;
ROWS(DECLARE)
#define ROW(name) &rt_importer_##name,
const rt_importer *const rt_importers[] = {ROWS(ROW)};
const size_t rt_n_importers = sizeof rt_importers / sizeof rt_importers[0];

const rt_importer *rt_importer_find(const char *name)
{
    for (size_t i = 0; name && i < rt_n_importers; i++)
        if (strcmp(rt_importers[i]->name, name) == 0)
            return rt_importers[i];
    return NULL;
}

const rt_import_option *rt_import_option_find(const rt_importer *im, const char *name)
{
    for (size_t i = 0; name && i < im->n_options; i++)
        if (strcmp(im->options[i].name, name) == 0)
            return &im->options[i];
    return NULL;
}

int rt_import_parse_threads(const char *v, int *threads, rt_error *err)
{
    char *end;
    long t = strtol(v, &end, 10);
    if (end == v || *end || t < 1 || t > RT_MAX_THREADS) {
        rt_error_set(err, "--threads: '%s' is not a thread count (1 to %d)", v, RT_MAX_THREADS);
        return -1;
    }
    *threads = (int)t;
    return 0;
}

int rt_import_parse_conv(const char *v, rt_conv_flops *conv, rt_error *err)
{
    rt_error cerr;
    if (rt_conv_flops_parse(v, conv, &cerr) != 0) {
        rt_error_set(err, "--conv-flops: %s", cerr.msg);
        return -1;
    }
    return 0;
}

void rt_import_report_invocations(FILE *out, const char *output, const rt_profile *p)
{
    double calls = 0, t = 0;
    for (size_t i = 0; i < p->n_kernels; i++) {
        calls += p->kernels[i].invocations;
        t += p->kernels[i].time;
    }
    fprintf(out, "%s: %zu kernels, %.0f invocations, %.6g s\n", output, p->n_kernels, calls, t);
}
