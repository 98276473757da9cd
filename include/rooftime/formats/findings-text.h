/* Findings as plain text (findings-text.c): "== heading ==", "- sentence", "a | b" rows. */
#ifndef ROOFTIME_FORMATS_FINDINGS_TEXT_H
#define ROOFTIME_FORMATS_FINDINGS_TEXT_H

#include <stdio.h>

#include "rooftime/core/findings.h"

/* Write f to fp; 0, or -1 when the stream failed. */
int rt_findings_write_text(const rt_findings *f, FILE *fp);
/* The same text in a heap string (caller frees). */
char *rt_findings_text(const rt_findings *f);

#endif
