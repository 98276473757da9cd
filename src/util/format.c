/* Numbers for people: SI prefixes, times, bytes and decades, each spelled one way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/format.h"

static const char *const si_prefix[] = {"y", "z", "a", "f", "p", "n", "µ", "m", "",
                                        "k", "M", "G", "T", "P", "E", "Z", "Y"};

void rt_fmt_si(char *buf, size_t n, double v, const char *unit)
{
    if (isnan(v)) {
        snprintf(buf, n, "-");
        return;
    }
    if (!isfinite(v) || v == 0) {
        snprintf(buf, n, "%s%s%s", isfinite(v) ? "0" : "inf", unit[0] ? " " : "", unit);
        return;
    }
    int e3 = (int)floor(log10(fabs(v)) / 3);
    if (e3 < -8)
        e3 = -8;
    if (e3 > 8)
        e3 = 8;
    double mant = v / pow(10, 3 * e3);
    char num[32];
    snprintf(num, sizeof num, "%.4g", mant);
    if (fabs(atof(num)) >= 1000 && e3 < 8) { /* 999.96 rounds up to the next prefix */
        e3++;
        snprintf(num, sizeof num, "%.4g", v / pow(10, 3 * e3));
    }
    snprintf(buf, n, "%s %s%s", num, si_prefix[e3 + 8], unit);
}

void rt_fmt_time(char *buf, size_t n, double s)
{
    rt_fmt_si(buf, n, s, "s");
}

void rt_fmt_seconds(char *buf, size_t n, double s)
{
    if (isnan(s))
        snprintf(buf, n, "-");
    else if (s == 0)
        snprintf(buf, n, "0 s");
    else if (fabs(s) >= 1)
        snprintf(buf, n, "%.3g s", s);
    else if (fabs(s) >= 1e-3)
        snprintf(buf, n, "%.3g ms", s * 1e3);
    else if (fabs(s) >= 1e-6)
        snprintf(buf, n, "%.3g µs", s * 1e6);
    else
        snprintf(buf, n, "%.3g ns", s * 1e9);
}

void rt_fmt_decade(char *buf, size_t n, int k, int lo, int hi)
{
    static const char *const sup[10] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    static const char *const plain[] = {"0.01", "0.1", "1", "10", "100", "1000"};
    if (k >= -2 && k <= 3 && lo >= -2 && hi <= 3) {
        snprintf(buf, n, "%s", plain[k + 2]);
        return;
    }
    char digits[16];
    snprintf(digits, sizeof digits, "%d", k < 0 ? -k : k);
    size_t len = (size_t)snprintf(buf, n, "10%s", k < 0 ? "⁻" : "");
    for (const char *p = digits; *p && len < n; p++)
        len += (size_t)snprintf(buf + len, n - len, "%s", sup[*p - '0']);
}

void rt_fmt_num(char *buf, size_t n, double v)
{
    if (fabs(v) >= 1e5 || (fabs(v) < 1e-3 && v != 0))
        snprintf(buf, n, "%.3g", v);
    else
        snprintf(buf, n, "%.4g", v);
}

void rt_fmt_value(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else if (isinf(v))
        snprintf(buf, n, "%sinf", v < 0 ? "-" : "");
    else
        snprintf(buf, n, "%.4g", v);
}

void rt_fmt_bytes(char *buf, size_t n, double b)
{
    if (b >= 1024.0 * 1024 * 1024)
        snprintf(buf, n, "%.3g GiB", b / (1024.0 * 1024 * 1024));
    else if (b >= 1024.0 * 1024)
        snprintf(buf, n, "%.3g MiB", b / (1024.0 * 1024));
    else
        snprintf(buf, n, "%.3g KiB", b / 1024.0);
}

void rt_fmt_share(char *buf, size_t n, double f)
{
    if (f > 0 && f < 0.0005)
        snprintf(buf, n, "under 0.1%%");
    else if (f < 1 && f >= 0.9995)
        snprintf(buf, n, "over 99.9%%");
    else
        snprintf(buf, n, "%.1f%%", 100 * f);
}

int rt_fmt_field(const char *s, int width)
{
    int extra = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        extra += (*p & 0xC0) == 0x80; /* continuation bytes take no column */
    return width + extra;
}

int rt_parse_time(const char *s, double *seconds)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v < 0)
        return -1;
    while (*end == ' ')
        end++;
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}, {"ns", 1e-9}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(end, units[i].unit) == 0) {
            *seconds = v * units[i].scale;
            return 0;
        }
    return -1;
}
