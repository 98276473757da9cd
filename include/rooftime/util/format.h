/* Numbers for people (format.c): SI prefixes, times, bytes, decades, one spelling each.
 * Microseconds are always "µs". NaN prints as "-", infinities as "inf". */
#ifndef ROOFTIME_UTIL_FORMAT_H
#define ROOFTIME_UTIL_FORMAT_H

#include <stddef.h>

/* "107.5 TFLOP/s" style: v with an SI prefix (y .. Y) and 4 significant digits, then unit. */
void rt_fmt_si(char *buf, size_t n, double v, const char *unit);
/* Seconds with an SI prefix and 4 significant digits: "4.2 µs", "1.5 ms", "12 s". */
void rt_fmt_time(char *buf, size_t n, double s);
/* Seconds for tables: 3 significant digits in s, ms, µs or ns ("1.23 ms"); "0 s" for zero. */
void rt_fmt_seconds(char *buf, size_t n, double s);
/* Label of 10^k among labels of the decades lo..hi (k among them): "0.01" .. "1000" when all of
 * lo..hi read as plain numbers (-2..3), else "10⁻⁵" .. "10⁴" for each, so that one axis never
 * mixes the two ("10⁻³" beside "0.01"). */
void rt_fmt_decade(char *buf, size_t n, int k, int lo, int hi);
/* Compact number for chart labels: 4 significant digits (3 when very large or small). */
void rt_fmt_num(char *buf, size_t n, double v);
/* Number for tables: 4 significant digits. */
void rt_fmt_value(char *buf, size_t n, double v);
/* A size in binary units: "32 KiB", "1.5 MiB", "2 GiB" (3 significant digits). */
void rt_fmt_bytes(char *buf, size_t n, double bytes);

/* A share as a percentage with one decimal, "12.5%", but "under 0.1%" for a share above zero
 * that would print as "0.0%" (and "over 99.9%" for one below 1 that would print as "100.0%"). */
void rt_fmt_share(char *buf, size_t n, double fraction);

/* The printf field width that makes UTF-8 text s fill `width` columns ("%*s" counts bytes; "µ"
 * is two bytes and one column). */
int rt_fmt_field(const char *s, int width);

/* A time as people write it, back into seconds: "4.2us", "3e-6", "0.5 ms", "2 µs" (s, ms, us,
 * µs, ns, or no unit for seconds). 0, or -1 when s is not a finite time >= 0 in those units. */
int rt_parse_time(const char *s, double *seconds);

#endif
