/* Numbers of the text tables written by hand, byte for byte as the printf formats named
 * (text-numbers.c). */
#ifndef ROOFTIME_FORMATS_TEXT_NUMBERS_H
#define ROOFTIME_FORMATS_TEXT_NUMBERS_H

#include <stddef.h>

/* As snprintf "%.<prec>g" for finite v and 1 <= prec <= 10 (buf: at least 24 bytes), or 0 when
 * the rounding cannot be told for sure without snprintf (a value within a hair of a tie). */
int rt_text_fast_g(char *buf, double v, int prec);
/* As rt_fmt_value: "%.4g", "-" for NaN, "inf". */
void rt_text_value(char *buf, size_t n, double v);
/* As "%.9g" (the CSV's numbers); at least 32 bytes. */
void rt_text_g9(char *buf, size_t n, double v);
/* As rt_fmt_seconds: "%.3g" and a unit (s, ms, µs, ns). */
void rt_text_seconds(char *buf, size_t n, double s);
/* As "%.0f". */
void rt_text_launches(char *buf, size_t n, double v);
/* v right-aligned in width columns, as "%*zu" (no NUL); the end. */
char *rt_text_count(char *o, size_t v, int width);
/* v as "%*.1f" (no NUL); the end. */
char *rt_text_fixed1(char *o, double v, int width);

#endif
