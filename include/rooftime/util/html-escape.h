/* Escaping text for HTML and XML (html-escape.c). */
#ifndef ROOFTIME_UTIL_HTML_ESCA_H
#define ROOFTIME_UTIL_HTML_ESCA_H

#include <stdio.h>

/* Write s escaped for HTML and XML text and attributes (&, <, >, quotes; control characters
 * become spaces): kernel names carry <, > and &. */
void rt_html_escape(FILE *fp, const char *s);

#endif
