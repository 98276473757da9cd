/* The report's warnings grouped by cause: one expandable line per cause with its count, the
 * messages inside. A cause is the message with its quoted names and its numbers taken out. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-internal.h"
#include "rooftime/util/error.h"
#include "rooftime/util/name-index.h"
#include "rooftime/util/strings.h"

/* Messages listed inside one group; the rest are counted. */
#define MAX_LISTED 200

/* The cause of a message: 'quoted' parts and numbers replaced by placeholders. */
static char *cause(const char *msg)
{
    size_t n = strlen(msg);
    char *out = rt_xmalloc(n + 1), *o = out;
    for (const char *p = msg; *p;) {
        if (*p == '\'') {
            const char *q = strchr(p + 1, '\'');
            if (q) {
                *o++ = '\'';
                *o++ = '\'';
                p = q + 1;
                continue;
            }
        }
        if (isdigit((unsigned char)*p)) {
            while (isdigit((unsigned char)*p) || *p == '.' || *p == 'e' ||
                   ((*p == '-' || *p == '+') && p[-1] == 'e'))
                p++;
            *o++ = '#';
            continue;
        }
        *o++ = *p++;
    }
    *o = '\0';
    return out;
}

void rt_report_warnings(FILE *fp, const rt_warnings *w)
{
    if (!w->n)
        return;
    rt_name_index ix = {0};
    size_t *group = rt_xmalloc(w->n * sizeof *group);
    for (size_t i = 0; i < w->n; i++) {
        char *c = cause(w->msg[i]);
        group[i] = rt_name_index_intern(&ix, c, strlen(c));
        free(c);
    }
    size_t ng = ix.n;
    size_t *count = rt_xcalloc(ng, sizeof *count), *first = rt_xcalloc(ng, sizeof *first);
    for (size_t i = w->n; i-- > 0;) {
        count[group[i]]++;
        first[group[i]] = i;
    }
    fprintf(fp,
            "<h2 id=\"warnings\">Warnings</h2>\n<p class=\"note\">%zu warning%s in %zu group%s "
            "by cause; open a line for every message.</p>\n",
            w->n, w->n == 1 ? "" : "s", ng, ng == 1 ? "" : "s");
    for (size_t g = 0; g < ng; g++) {
        fprintf(fp, "<details class=\"warn\"><summary><b>%zu</b> &#215; ", count[g]);
        rt_report_esc(fp, w->msg[first[g]]);
        if (count[g] > 1)
            fputs(" <i>(and alike)</i>", fp);
        fputs("</summary>\n<ul>\n", fp);
        size_t listed = 0;
        for (size_t i = first[g]; i < w->n && listed < MAX_LISTED; i++) {
            if (group[i] != g)
                continue;
            fputs("<li>", fp);
            rt_report_esc(fp, w->msg[i]);
            fputs("</li>\n", fp);
            listed++;
        }
        if (count[g] > listed)
            fprintf(fp, "<li>and %zu more</li>\n", count[g] - listed);
        fputs("</ul></details>\n", fp);
    }
    free(count);
    free(first);
    free(group);
    rt_name_index_release(&ix);
}
