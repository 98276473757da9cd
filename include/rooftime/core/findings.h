/* Findings as a structure: sections with a heading, each a run of blocks (lists of sentences,
 * tables, paragraphs, callouts). Computed once (the study's findings, the analysis's callouts and
 * summary) and written by any writer: plain text (formats/findings-text.c), the HTML report. */
#ifndef ROOFTIME_CORE_FINDINGS_H
#define ROOFTIME_CORE_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum rt_findings_block_kind {
    RT_FINDINGS_LIST = 0,  /* sentences, one per row (one column) */
    RT_FINDINGS_TABLE,     /* row 0 is the head */
    RT_FINDINGS_PARAGRAPH, /* text */
    RT_FINDINGS_CALLOUT,   /* a box: lead (bold) and text, then an optional table and note */
} rt_findings_block_kind;

typedef struct rt_findings_block {
    rt_findings_block_kind kind;
    char *lead;    /* callout: the bold first words; NULL otherwise */
    char *text;    /* paragraph, callout: plain UTF-8 text (writers escape it); a
                    * callout's starts with what joins it to the lead (" (no FLOPs", ": ") */
    size_t n_cols; /* list: 1; table: the columns; callout: its table's columns (0: none) */
    size_t n_rows; /* rows of cells (tables: the head included) */
    char **cells;  /* n_rows x n_cols, row by row */
    int name_col;  /* the column that holds names (left-aligned, wrapped); -1: none */
    char *note;    /* callout: a line under its table ("and 3 more"); NULL: none */
} rt_findings_block;

typedef struct rt_findings_section {
    char *heading;
    char *id; /* an anchor for the HTML writer; NULL: none */
    rt_findings_block *blocks;
    size_t n_blocks;
} rt_findings_section;

typedef struct rt_findings {
    char *title; /* "Findings" */
    rt_findings_section *sections;
    size_t n_sections;
} rt_findings;

rt_findings *rt_findings_new(const char *title);
void rt_findings_free(rt_findings *f);

/* Building: each call adds to the last section (and, for rows and items, its last block). */
rt_findings_section *rt_findings_section_add(rt_findings *f, const char *heading);
/* Begin a list; rt_findings_item adds a sentence to the last list (starting one if needed). */
void rt_findings_list(rt_findings *f);
void rt_findings_item(rt_findings *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Begin a table with its head; rows follow with rt_findings_row (n_cols cells each). */
void rt_findings_table(rt_findings *f, size_t n_cols, const char *const *head);
void rt_findings_row(rt_findings *f, const char *const *cells);
void rt_findings_paragraph(rt_findings *f, const char *text);
/* The column of the last table that holds names (-1: none; tables start with none, callouts'
 * tables with column 0). */
void rt_findings_name_col(rt_findings *f, int col);
/* A callout: lead and text; rows added with rt_findings_row go to its table once
 * rt_findings_callout_table gave the head. */
void rt_findings_callout(rt_findings *f, const char *lead, const char *text);
void rt_findings_callout_table(rt_findings *f, size_t n_cols, const char *const *head);
void rt_findings_note(rt_findings *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The cell of a table or list block. */
static inline const char *rt_findings_cell(const rt_findings_block *b, size_t row, size_t col)
{
    return b->cells[row * b->n_cols + col];
}

#endif
