/* The Range Profiler's host side without a GPU, for tests/cli-cupti-host.sh: the metrics given as
 * arguments added in one call on each chip from GV100 to GH100; prints the pass count per chip.
 * Built unsanitized in src/collect: libnvperf_host is loaded with RTLD_DEEPBIND, which the
 * sanitizers' runtime refuses. Exit 0 when every chip builds a configuration, 1 otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti-host.h"

int main(int argc, char **argv)
{
    static const char *const chips[] = {"GV100", "TU102", "GA100", "GA102", "AD102", "GH100"};
    const char *const *known = NULL;
    size_t n_known = rtc_host_chips(&known);
    int rc = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: cupti-host-check METRIC...\n");
        return 2;
    }
    for (size_t c = 0; c < sizeof chips / sizeof chips[0]; c++) {
        int listed = 0;
        for (size_t i = 0; i < n_known; i++)
            listed |= strcmp(known[i], chips[c]) == 0;
        char err[1024] = "";
        rtc_host *h = rtc_host_new(chips[c], NULL, err, sizeof err);
        uint8_t *config = NULL;
        size_t size = 0, passes = 0;
        if (!listed || !h ||
            rtc_host_config(h, (const char *const *)argv + 1, (size_t)argc - 1, &config, &size,
                            &passes, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", chips[c], listed ? err : "not among the supported chips");
            rc = 1;
        } else {
            printf("%s: %d metrics, config image %zu bytes, %zu passes\n", chips[c], argc - 1, size,
                   passes);
        }
        free(config);
        rtc_host_free(h);
    }
    return rc;
}
