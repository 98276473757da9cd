/* The stragglers section of the report: who is slow, on what, by how much, and the box chart. */
#include <stdio.h>
#include <stdlib.h>

#include "rooftime/core/across.h"
#include "rooftime/render/across-html.h"
#include "rooftime/render/chart-across.h"
#include "rooftime/util/format.h"
#include "rooftime/util/html-escape.h"

static const char *const kind_name[] = {"kernel", "config", "the whole run"};

char *rt_across_section_html(const rt_across *a, const rt_machine *m, size_t top, rt_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp) {
        rt_error_set(err, "out of memory");
        return NULL;
    }
    char med[32], mn[32], mx[32];
    rt_fmt_seconds(med, sizeof med, a->total_median);
    rt_fmt_seconds(mn, sizeof mn, a->total_min);
    rt_fmt_seconds(mx, sizeof mx, a->total_max);
    fprintf(fp,
            "<p class=\"note\">%zu ranks, %zu kernels, %zu configs. Time per rank: median %s, "
            "min %s (rank %ld), max %s (rank %ld). A straggler is a rank more than %.4g%% above "
            "the median of a kernel, a config or the whole run (medians within %.4g%%).</p>\n",
            a->n_profiles, a->n_kernels, a->n_configs, med, mn, a->total_min_rank, mx,
            a->total_max_rank, a->opts.straggler * 100, a->opts.accuracy * 100);
    size_t shown = top && top < a->n_stragglers ? top : a->n_stragglers;
    if (shown == 0) {
        fputs("<p>No stragglers.</p>\n", fp);
    } else {
        fprintf(fp, "<table>\n<tr><th>rank</th><th>time</th><th>median</th><th>excess</th>"
                    "<th>on</th></tr>\n");
        for (size_t i = 0; i < shown; i++) {
            const rt_straggler *s = &a->stragglers[i];
            char t[32], md[32];
            rt_fmt_seconds(t, sizeof t, s->time);
            rt_fmt_seconds(md, sizeof md, s->median);
            fprintf(fp, "<tr><td>%ld</td><td>%s</td><td>%s</td><td>%+.1f%%</td><td>%s ", s->rank, t,
                    md, s->median > 0 ? (s->time / s->median - 1) * 100 : 0, kind_name[s->kind]);
            if (s->kind < 2)
                rt_html_escape(fp, s->kind ? a->configs[s->entry].name : a->kernels[s->entry].name);
            fputs("</td></tr>\n", fp);
        }
        fputs("</table>\n", fp);
        if (shown < a->n_stragglers)
            fprintf(fp,
                    "<p class=\"note\">%zu more stragglers: `rooftime analyze --across rank` "
                    "lists them all.</p>\n",
                    a->n_stragglers - shown);
    }
    fputs("<div class=\"chart\">\n", fp);
    int rc = rt_chart_across_svg(a, m, fp, err);
    fputs("</div>\n", fp);
    if (fclose(fp) != 0 || rc != 0) {
        if (rc == 0)
            rt_error_set(err, "out of memory");
        free(buf);
        return NULL;
    }
    return buf;
}
