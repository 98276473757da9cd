/* The Range Profiler's host side without a GPU, for tests/cli-cupti-host.sh and
 * scripts/cupti-tensor-metrics.sh. Built unsanitized in src/collect: libnvperf_host is loaded with
 * RTLD_DEEPBIND, which the sanitizers' runtime refuses.
 *
 *   cupti-host-check [--chips GA100,GH100] METRIC...
 *     the metrics added in one call on each chip (default GV100 to GH100); prints the pass count
 *     per chip. Exit 0 when every chip builds a configuration, 1 otherwise.
 *   cupti-host-check [--chips ...] --list SUBSTRING
 *     the chip's base counters whose name contains SUBSTRING, one "CHIP NAME" line each, sorted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti-host.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(int argc, char **argv)
{
    static const char *const all[] = {"GV100", "TU102", "GA100", "GA102", "AD102", "GH100"};
    const char *chips[16];
    size_t n_chips = 0;
    char *chip_arg = NULL;
    const char *list = NULL;
    int a = 1;
    for (; a < argc && strncmp(argv[a], "--", 2) == 0; a++) {
        if (strcmp(argv[a], "--chips") == 0 && a + 1 < argc)
            chip_arg = argv[++a];
        else if (strcmp(argv[a], "--list") == 0 && a + 1 < argc)
            list = argv[++a];
        else
            break;
    }
    if (chip_arg) {
        for (char *s = chip_arg, *tok; (tok = strsep(&s, ",")) != NULL && n_chips < 16;)
            if (*tok)
                chips[n_chips++] = tok;
    } else {
        for (size_t c = 0; c < sizeof all / sizeof all[0]; c++)
            chips[n_chips++] = all[c];
    }
    if ((!list && a >= argc) || (list && a != argc) || n_chips == 0) {
        fprintf(stderr, "usage: cupti-host-check [--chips A,B] METRIC... | --list SUBSTRING\n");
        return 2;
    }
    const char *const *known = NULL;
    size_t n_known = rtc_host_chips(&known);
    int rc = 0;
    for (size_t c = 0; c < n_chips; c++) {
        int listed = 0;
        for (size_t i = 0; i < n_known; i++)
            listed |= strcmp(known[i], chips[c]) == 0;
        char err[1024] = "";
        rtc_host *h = listed ? rtc_host_new(chips[c], NULL, err, sizeof err) : NULL;
        if (!h) {
            fprintf(stderr, "%s: %s\n", chips[c], listed ? err : "not among the supported chips");
            rc = 1;
            continue;
        }
        if (list) {
            const char *const *names = NULL;
            long n = rtc_host_base_counters(h, &names, err, sizeof err);
            if (n < 0) {
                fprintf(stderr, "%s: %s\n", chips[c], err);
                rc = 1;
            }
            const char **hit = calloc((size_t)(n > 0 ? n : 1), sizeof *hit);
            size_t n_hit = 0;
            for (long i = 0; hit && i < n; i++)
                if (strstr(names[i], list))
                    hit[n_hit++] = names[i];
            if (hit)
                qsort(hit, n_hit, sizeof *hit, by_name);
            for (size_t i = 0; i < n_hit; i++)
                printf("%s %s\n", chips[c], hit[i]);
            free(hit);
            rtc_host_free(h);
            continue;
        }
        uint8_t *config = NULL;
        size_t size = 0, passes = 0;
        if (rtc_host_config(h, (const char *const *)argv + a, (size_t)(argc - a), &config, &size,
                            &passes, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", chips[c], err);
            rc = 1;
        } else {
            printf("%s: %d metrics, config image %zu bytes, %zu passes\n", chips[c], argc - a, size,
                   passes);
        }
        free(config);
        rtc_host_free(h);
    }
    return rc;
}
