/* The report's coverage line: what the profiles explain of their runs, as `analyze` says it. */
#include <stdio.h>

#include "report-internal.h"
#include "rooftime/core/coverage.h"

void rt_report_coverage(FILE *fp, rt_profile *const *profiles, size_t n)
{
    for (size_t p = 0; p < n; p++) {
        rt_wall_coverage wc;
        char cov[1024];
        int wall = rt_profile_wall_coverage(profiles[p], &wc) == 0;
        int has_cov = rt_cost_coverage_text(profiles[p], cov, sizeof cov) == 0;
        rt_report_launch_side(fp, profiles[p], p, n);
        if (!wall && !has_cov)
            continue;
        fputs("<p class=\"note\">Coverage", fp);
        if (n > 1)
            fprintf(fp, " of profile %zu", p + 1);
        fputs(": ", fp);
        if (wall) {
            char buf[512];
            rt_wall_coverage_text(&wc, buf, sizeof buf);
            rt_report_esc(fp, buf);
        }
        if (has_cov) {
            fputs(wall ? ". Cost model: " : "cost model: ", fp);
            rt_report_esc(fp, cov);
        }
        fputs(".</p>\n", fp);
    }
}

void rt_report_launch_side(FILE *fp, const rt_profile *prof, size_t p, size_t n)
{
    /* a GPU trace's device profile (import torch): its launch side */
    static const char *const gpu[][2] = {{"torch_launch_side", "Launch side"},
                                         {"overhead_method", "Launch overhead"}};
    for (size_t k = 0; k < sizeof gpu / sizeof gpu[0]; k++) {
        const char *v = rt_tags_get(&prof->provenance.notes, gpu[k][0]);
        if (!v)
            continue;
        fprintf(fp, "<p class=\"note\">%s", gpu[k][1]);
        if (n > 1)
            fprintf(fp, " of profile %zu", p + 1);
        fputs(": ", fp);
        rt_report_esc(fp, v);
        fputs(".</p>\n", fp);
    }
}
