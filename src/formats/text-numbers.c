/* Numbers of the text tables written by hand, as rt_fmt_seconds, rt_fmt_value and printf would
 * write them: the text of a million configs and kernels is some ten million numbers, and
 * snprintf's %g was most of its time. A value whose rounding cannot be told for sure (within a
 * hair of a tie) falls back on snprintf, so the text is the same byte for byte. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rooftime/util/format.h"
#include "text-numbers.h"

/* snprintf(buf, n, "%.<prec>g", v) for finite v, 1 <= prec <= 10, written by hand (at least 24
 * bytes); 0 when it cannot be sure of the rounding (a value within a hair of a tie) and the caller
 * should use snprintf. */
int rt_text_fast_g(char *buf, double v, int prec)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,
                                 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
                                 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27};
    if (!isfinite(v) || prec < 1 || prec > 10)
        return 0;
    char *o = buf;
    if (v == 0) {
        if (signbit(v))
            *o++ = '-';
        *o++ = '0';
        *o = '\0';
        return 1;
    }
    if (v < 0) {
        *o++ = '-';
        v = -v;
    }
    /* The decimal exponent from the binary one (log10(2^b) rounded down is at most one under
     * it: the loop below corrects that), not from log10, twenty million times a table. */
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int b = (int)((bits >> 52) & 0x7FF) - 1023;
    int e = b > -1022 ? (int)floor(b * 0.30102999566398120) : (int)floor(log10(v));
    /* In double: v x 10^k is within two units in the last place of the exact product (10^k is
     * exact to 10^22 and within half a unit beyond), some 1e-10 at 6 digits kept, 3e-7 at 9 and
     * 3e-6 at 10, inside the 1e-6 (7 to 10 digits: 1e-5) around a tie that goes to snprintf (x87
     * extended precision cost a floorl call per number). */
    double x = 0;
    unsigned long m = 0;
    for (int tries = 0; tries < 3; tries++) {
        int k = prec - 1 - e; /* x = v * 10^k has prec digits before the point */
        if (k > 27 || k < -27)
            return 0;
        x = k >= 0 ? v * p10[k] : v / p10[-k];
        if (x < p10[prec - 1]) {
            e--;
            continue;
        }
        if (x >= p10[prec]) {
            e++;
            continue;
        }
        double fl = floor(x), f = x - fl;
        if (fabs(f - 0.5) < (prec > 6 ? 1e-5 : 1e-6))
            return 0;
        m = (unsigned long)(f > 0.5 ? fl + 1 : fl);
        if (m == (unsigned long)p10[prec]) { /* rounded up to the next decade */
            m /= 10;
            e++;
        }
        break;
    }
    if (!m)
        return 0;
    char d[11] = {0};
    for (int i = prec - 1; i >= 0; i--, m /= 10)
        d[i] = (char)('0' + m % 10);
    int nd = prec; /* trailing zeros go (no '#' flag) */
    if (e < -4 || e >= prec) {
        while (nd > 1 && d[nd - 1] == '0')
            nd--;
        *o++ = d[0];
        if (nd > 1) {
            *o++ = '.';
            for (int i = 1; i < nd; i++)
                *o++ = d[i];
        }
        *o++ = 'e';
        *o++ = e < 0 ? '-' : '+';
        int ae = e < 0 ? -e : e;
        if (ae >= 100)
            *o++ = (char)('0' + ae / 100);
        *o++ = (char)('0' + ae / 10 % 10);
        *o++ = (char)('0' + ae % 10);
    } else if (e >= 0) {
        int ip = e + 1; /* digits before the point */
        while (nd > ip && d[nd - 1] == '0')
            nd--;
        for (int i = 0; i < ip; i++)
            *o++ = d[i];
        if (nd > ip) {
            *o++ = '.';
            for (int i = ip; i < nd; i++)
                *o++ = d[i];
        }
    } else {
        while (nd > 1 && d[nd - 1] == '0')
            nd--;
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -e - 1; i++)
            *o++ = '0';
        for (int i = 0; i < nd; i++)
            *o++ = d[i];
    }
    *o = '\0';
    return 1;
}

void rt_text_g9(char *buf, size_t n, double v)
{
    if (!rt_text_fast_g(buf, v, 9))
        snprintf(buf, n, "%.9g", v);
}

void rt_text_value(char *buf, size_t n, double v)
{
    if (isnan(v) || isinf(v) || !rt_text_fast_g(buf, v, 4))
        rt_fmt_value(buf, n, v);
}

void rt_text_seconds(char *buf, size_t n, double s)
{
    const char *unit;
    double x;
    if (isnan(s) || s == 0) {
        rt_fmt_seconds(buf, n, s);
        return;
    }
    if (fabs(s) >= 1)
        x = s, unit = " s";
    else if (fabs(s) >= 1e-3)
        x = s * 1e3, unit = " ms";
    else if (fabs(s) >= 1e-6)
        x = s * 1e6, unit = " \xc2\xb5s";
    else
        x = s * 1e9, unit = " ns";
    if (!rt_text_fast_g(buf, x, 3)) {
        rt_fmt_seconds(buf, n, s);
        return;
    }
    strcat(buf, unit);
}

/* v right-aligned in width columns, as "%*zu". */
char *rt_text_count(char *o, size_t v, int width)
{
    char d[24];
    int nd = 0;
    do
        d[nd++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    for (int i = nd; i < width; i++)
        *o++ = ' ';
    while (nd)
        *o++ = d[--nd];
    return o;
}

/* As "%.0f": a whole number by hand, anything else through snprintf. */
void rt_text_launches(char *buf, size_t n, double v)
{
    if (v >= 0 && v < 1e15 && v == floor(v) && !signbit(v))
        *rt_text_count(buf, (size_t)v, 0) = '\0';
    else
        snprintf(buf, n, "%.0f", v);
}

/* As "%*.1f": by hand from 0 to a million away from ties (where v x 10 rounds the same as v's
 * exact decimal value), anything else through snprintf (at most 63 bytes: |v| < 1e50). */
char *rt_text_fixed1(char *o, double v, int width)
{
    double x = v * 10, f = x - floor(x);
    if (!(v >= 0 && v < 1e6) || signbit(v) || fabs(f - 0.5) < 1e-6) {
        char b[64];
        int n = snprintf(b, sizeof b, "%*.1f", width, v);
        size_t len = n < 0 ? 0 : (size_t)n < sizeof b ? (size_t)n : sizeof b - 1;
        memcpy(o, b, len);
        return o + len;
    }
    size_t tenths = (size_t)floor(x + 0.5);
    char d[24];
    int nd = 0;
    d[nd++] = (char)('0' + tenths % 10);
    d[nd++] = '.';
    tenths /= 10;
    do
        d[nd++] = (char)('0' + tenths % 10);
    while ((tenths /= 10) != 0);
    for (int i = nd; i < width; i++)
        *o++ = ' ';
    while (nd)
        *o++ = d[--nd];
    return o;
}
