/* The findings as plain text: one "== heading ==" per section, "- " per sentence, tables as
 * rows of cells joined by " | ". */
#include <stdio.h>
#include <stdlib.h>

#include "rooftime/core/findings.h"
#include "rooftime/formats/findings-text.h"

static void rows(const rt_findings_block *b, FILE *fp)
{
    for (size_t r = 0; r < b->n_rows; r++) {
        for (size_t c = 0; c < b->n_cols; c++)
            fprintf(fp, "%s%s", c ? " | " : "", rt_findings_cell(b, r, c));
        fputc('\n', fp);
    }
}

static void block(const rt_findings_block *b, FILE *fp)
{
    switch (b->kind) {
    case RT_FINDINGS_LIST:
        for (size_t r = 0; r < b->n_rows; r++)
            fprintf(fp, "- %s\n", rt_findings_cell(b, r, 0));
        break;
    case RT_FINDINGS_TABLE:
        rows(b, fp);
        break;
    case RT_FINDINGS_PARAGRAPH:
        fprintf(fp, "%s\n", b->text);
        break;
    case RT_FINDINGS_CALLOUT:
        fprintf(fp, "%s%s\n", b->lead, b->text); /* the text starts with its separator */
        rows(b, fp);
        if (b->note)
            fprintf(fp, "%s\n", b->note);
        break;
    }
}

int rt_findings_write_text(const rt_findings *f, FILE *fp)
{
    for (size_t s = 0; s < f->n_sections; s++) {
        fprintf(fp, "\n== %s ==\n", f->sections[s].heading);
        for (size_t b = 0; b < f->sections[s].n_blocks; b++)
            block(&f->sections[s].blocks[b], fp);
    }
    return ferror(fp) ? -1 : 0;
}

char *rt_findings_text(const rt_findings *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp)
        abort(); /* out of memory, the library's policy */
    rt_findings_write_text(f, fp);
    fclose(fp);
    return buf;
}
