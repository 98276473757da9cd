/* The findings model: sections of lists, tables, paragraphs and callouts, built in order. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/findings.h"
#include "rooftime/util/strings.h"

rt_findings *rt_findings_new(const char *title)
{
    rt_findings *f = rt_xcalloc(1, sizeof *f);
    f->title = rt_strdup(title ? title : "");
    return f;
}

static void block_release(rt_findings_block *b)
{
    for (size_t i = 0; i < b->n_rows * b->n_cols; i++)
        free(b->cells[i]);
    free(b->cells);
    free(b->lead);
    free(b->text);
    free(b->note);
}

void rt_findings_free(rt_findings *f)
{
    if (!f)
        return;
    for (size_t s = 0; s < f->n_sections; s++) {
        rt_findings_section *sec = &f->sections[s];
        for (size_t b = 0; b < sec->n_blocks; b++)
            block_release(&sec->blocks[b]);
        free(sec->blocks);
        free(sec->heading);
        free(sec->id);
    }
    free(f->sections);
    free(f->title);
    free(f);
}

rt_findings_section *rt_findings_section_add(rt_findings *f, const char *heading)
{
    f->sections = rt_xrealloc(f->sections, (f->n_sections + 1) * sizeof *f->sections);
    rt_findings_section *s = &f->sections[f->n_sections++];
    memset(s, 0, sizeof *s);
    s->heading = rt_strdup(heading ? heading : "");
    return s;
}

static rt_findings_section *last_section(rt_findings *f)
{
    if (f->n_sections == 0)
        rt_findings_section_add(f, "");
    return &f->sections[f->n_sections - 1];
}

static rt_findings_block *block_add(rt_findings *f, rt_findings_block_kind kind)
{
    rt_findings_section *s = last_section(f);
    s->blocks = rt_xrealloc(s->blocks, (s->n_blocks + 1) * sizeof *s->blocks);
    rt_findings_block *b = &s->blocks[s->n_blocks++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->name_col = -1;
    return b;
}

static rt_findings_block *last_block(rt_findings *f)
{
    rt_findings_section *s = last_section(f);
    return s->n_blocks ? &s->blocks[s->n_blocks - 1] : NULL;
}

static void row_add(rt_findings_block *b, const char *const *cells)
{
    b->cells = rt_xrealloc(b->cells, (b->n_rows + 1) * b->n_cols * sizeof *b->cells);
    for (size_t c = 0; c < b->n_cols; c++)
        b->cells[b->n_rows * b->n_cols + c] = rt_strdup(cells[c] ? cells[c] : "");
    b->n_rows++;
}

void rt_findings_list(rt_findings *f)
{
    block_add(f, RT_FINDINGS_LIST)->n_cols = 1;
}

void rt_findings_item(rt_findings *f, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    rt_findings_block *b = last_block(f);
    if (!b || b->kind != RT_FINDINGS_LIST) {
        rt_findings_list(f);
        b = last_block(f);
    }
    const char *cell = buf;
    row_add(b, &cell);
}

void rt_findings_table(rt_findings *f, size_t n_cols, const char *const *head)
{
    rt_findings_block *b = block_add(f, RT_FINDINGS_TABLE);
    b->n_cols = n_cols;
    row_add(b, head);
}

void rt_findings_row(rt_findings *f, const char *const *cells)
{
    rt_findings_block *b = last_block(f);
    if (b && b->n_cols > 0 && (b->kind == RT_FINDINGS_TABLE || b->kind == RT_FINDINGS_CALLOUT))
        row_add(b, cells);
}

void rt_findings_paragraph(rt_findings *f, const char *text)
{
    block_add(f, RT_FINDINGS_PARAGRAPH)->text = rt_strdup(text ? text : "");
}

void rt_findings_name_col(rt_findings *f, int col)
{
    rt_findings_block *b = last_block(f);
    if (b)
        b->name_col = col;
}

void rt_findings_callout(rt_findings *f, const char *lead, const char *text)
{
    rt_findings_block *b = block_add(f, RT_FINDINGS_CALLOUT);
    b->lead = rt_strdup(lead ? lead : "");
    b->text = rt_strdup(text ? text : "");
}

void rt_findings_callout_table(rt_findings *f, size_t n_cols, const char *const *head)
{
    rt_findings_block *b = last_block(f);
    if (!b || b->kind != RT_FINDINGS_CALLOUT || b->n_cols)
        return;
    b->n_cols = n_cols;
    b->name_col = 0;
    row_add(b, head);
}

void rt_findings_note(rt_findings *f, const char *fmt, ...)
{
    rt_findings_block *b = last_block(f);
    if (!b)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    free(b->note);
    b->note = rt_strdup(buf);
}
