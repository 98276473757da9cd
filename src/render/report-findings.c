/* The findings structure as HTML: lists, tables, paragraphs and callout boxes, every text
 * escaped. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "report-internal.h"
#include "rooftime/core/findings.h"
#include "rooftime/util/html-escape.h"

void rt_report_esc(FILE *fp, const char *s)
{
    rt_html_escape(fp, s ? s : "");
}

/* A cell longer than this may be cut to one line with an ellipsis (the summary's tables): it
 * carries its whole text in a title, shown on hover. */
#define TITLE_MIN_LEN 40

/* Rows of a table block: the head as <th>, then <td> (the first column a name when marked). */
static void table_rows(FILE *fp, const rt_findings_block *b)
{
    for (size_t r = 0; r < b->n_rows; r++) {
        fputs("<tr>", fp);
        for (size_t c = 0; c < b->n_cols; c++) {
            const char *tag = r == 0 ? "th" : "td";
            const char *text = rt_findings_cell(b, r, c);
            fprintf(fp, "<%s", tag);
            if (r > 0 && (int)c == b->name_col)
                fputs(" class=\"name\"", fp);
            if (r > 0 && text && strlen(text) > TITLE_MIN_LEN) {
                fputs(" title=\"", fp);
                rt_report_esc(fp, text);
                fputc('"', fp);
            }
            fputc('>', fp);
            rt_report_esc(fp, text);
            fprintf(fp, "</%s>", tag);
        }
        fputs("</tr>\n", fp);
    }
}

static void block(FILE *fp, const rt_findings_block *b)
{
    switch (b->kind) {
    case RT_FINDINGS_LIST:
        fputs("<ul>\n", fp);
        for (size_t r = 0; r < b->n_rows; r++) {
            fputs("<li>", fp);
            rt_report_esc(fp, rt_findings_cell(b, r, 0));
            fputs("</li>\n", fp);
        }
        fputs("</ul>\n", fp);
        break;
    case RT_FINDINGS_TABLE:
        fputs("<table class=\"findings\">", fp);
        table_rows(fp, b);
        fputs("</table>\n", fp);
        break;
    case RT_FINDINGS_PARAGRAPH:
        fputs("<p>", fp);
        rt_report_esc(fp, b->text);
        fputs("\n</p>\n", fp);
        break;
    case RT_FINDINGS_CALLOUT:
        fputs("<div class=\"callout\"><b>", fp);
        rt_report_esc(fp, b->lead);
        fputs("</b>", fp);
        rt_report_esc(fp, b->text);
        if (b->n_cols) {
            fputs("<table>", fp);
            table_rows(fp, b);
            fputs("</table>", fp);
        }
        if (b->note) {
            fputs("<p class=\"note\">", fp);
            rt_report_esc(fp, b->note);
            fputs("</p>", fp);
        }
        fputs("</div>\n", fp);
        break;
    }
}

void rt_report_findings(FILE *fp, const rt_findings *f, bool titled)
{
    if (!f)
        return;
    if (titled) {
        fputs("<h2>", fp);
        rt_report_esc(fp, f->title);
        fputs("</h2>\n", fp);
    }
    for (size_t s = 0; s < f->n_sections; s++) {
        const rt_findings_section *sec = &f->sections[s];
        const char *h = titled ? "h3" : "h2";
        if (sec->id) {
            fprintf(fp, "<%s id=\"", h);
            rt_report_esc(fp, sec->id);
            fputs("\">", fp);
        } else {
            fprintf(fp, "<%s>", h);
        }
        rt_report_esc(fp, sec->heading);
        fprintf(fp, "</%s>\n", h);
        for (size_t b = 0; b < sec->n_blocks; b++)
            block(fp, &sec->blocks[b]);
    }
    if (titled)
        fputc('\n', fp);
}
