/* The profile reader's scanning: strings (escapes decoded, UTF-8 checked) and numbers (reals
 * correctly rounded without strtod where one rounding is exact). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile-json-scan.h"
#include "rooftime/util/strings.h"

static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

void rt_pjs_reserve(fr *f, int which, size_t need)
{
    if (need > f->cap[which]) {
        f->cap[which] = need < 256 ? 256 : 2 * need;
        f->str[which] = rt_xrealloc(f->str[which], f->cap[which]);
    }
}

static char *utf8_put(char *o, unsigned u)
{
    if (u < 0x80) {
        *o++ = (char)u;
    } else if (u < 0x800) {
        *o++ = (char)(0xC0 | (u >> 6));
        *o++ = (char)(0x80 | (u & 0x3F));
    } else if (u < 0x10000) {
        *o++ = (char)(0xE0 | (u >> 12));
        *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
        *o++ = (char)(0x80 | (u & 0x3F));
    } else {
        *o++ = (char)(0xF0 | (u >> 18));
        *o++ = (char)(0x80 | ((u >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
        *o++ = (char)(0x80 | (u & 0x3F));
    }
    return o;
}

/* A string into f->str[which], NUL-terminated (a NUL inside: give up). */
int rt_pjs_string(fr *f, int which)
{
    if (!eat(f, '"'))
        return GIVE_UP;
    const char *p = f->s, *q = p;
    int high = 0, esc = 0;
    while (q < f->e && *q != '"') {
        unsigned char c = (unsigned char)*q;
        if (c < 0x20)
            return GIVE_UP; /* a control character */
        high |= c >= 0x80;
        if (c == '\\') {
            esc = 1;
            q++;
        }
        q++;
    }
    if (q >= f->e)
        return GIVE_UP;
    rt_pjs_reserve(f, which, (size_t)(q - p) + 1); /* the decoded text is never longer */
    char *o = f->str[which];
    if (!esc) {
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
    } else {
        for (const char *r = p; r < q;) {
            if (*r != '\\') {
                *o++ = *r++;
                continue;
            }
            char c = r[1];
            r += 2;
            if (c == 'u') {
                unsigned u, lo;
                if (q - r < 4 || hex4(r, &u) != 0)
                    return GIVE_UP;
                r += 4;
                if (u == 0 || (u >= 0xDC00 && u <= 0xDFFF))
                    return GIVE_UP;
                if (u >= 0xD800 && u <= 0xDBFF) {
                    if (q - r < 6 || r[0] != '\\' || r[1] != 'u' || hex4(r + 2, &lo) != 0 ||
                        lo < 0xDC00 || lo > 0xDFFF)
                        return GIVE_UP;
                    r += 6;
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                }
                o = utf8_put(o, u);
            } else {
                static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
                const char *w = c ? memchr(from, c, 8) : NULL;
                if (!w)
                    return GIVE_UP;
                *o++ = to[w - from];
            }
        }
    }
    *o = '\0';
    f->len[which] = (size_t)(o - f->str[which]);
    f->s = q + 1;
    if (high && !rt_utf8_valid(f->str[which]))
        return GIVE_UP;
    return 0;
}

#if defined(__x86_64__) && LDBL_MANT_DIG == 64
/* m x 10^e by one rounding in x87 extended precision (64-bit significand), which holds every
 * m < 2^64 and 10^|e| up to 10^27 exactly: the result r is the exact value rounded once. Its
 * rounding to double is then the exact value's correct rounding unless r fell exactly halfway
 * between two doubles (its 11 bits below a double's significand 10000000000): a decimal there
 * goes to strtod. A profile's 17-digit times thus cost a multiply or a divide, not strtod's
 * multi-precision work (a million per profile of a million kernels). 0: done. */
static int decimal(uint64_t m, long e, double *out)
{
    static const long double p10[28] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
                                        1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
                                        1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
                                        1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};
    if (e < -27 || e > 27)
        return -1;
    long double r = e < 0 ? (long double)m / p10[-e] : (long double)m * p10[e];
    uint64_t sig;
    memcpy(&sig, &r, sizeof sig); /* the x87 format's low 8 bytes: the significand */
    if ((sig & 0x7FF) == 0x400)
        return -1;
    *out = (double)r;
    return 0;
}
#else
static int decimal(uint64_t m, long e, double *out)
{
    (void)m, (void)e, (void)out;
    return -1;
}
#endif

/* A number as jansson reads it: integers exactly (up to 18 digits here), reals correctly rounded
 * (decimal(), else strtod). */
int rt_pjs_number(fr *f, double *out)
{
    ws(f);
    const char *p = f->s, *q = p;
    int neg = q < f->e && *q == '-';
    q += neg;
    const char *d0 = q;
    uint64_t v = 0; /* the digits, integer and fraction, while at most 19 count */
    while (q < f->e && *q >= '0' && *q <= '9')
        v = v * 10 + (uint64_t)(*q++ - '0');
    size_t nd = (size_t)(q - d0), nf = 0, lead = v ? 0 : nd; /* leading zeros: none count */
    if (nd == 0 || (nd > 1 && *d0 == '0'))
        return GIVE_UP;
    int real = 0;
    if (q < f->e && *q == '.') {
        real = 1;
        const char *s = ++q;
        while (q < f->e && *q >= '0' && *q <= '9') {
            lead += !v && *q == '0';
            v = v * 10 + (uint64_t)(*q++ - '0');
        }
        nf = (size_t)(q - s);
        if (nf == 0)
            return GIVE_UP;
    }
    long ex = 0;
    if (q < f->e && (*q == 'e' || *q == 'E')) {
        real = 1;
        q++;
        int eneg = q < f->e && *q == '-';
        if (q < f->e && (*q == '+' || *q == '-'))
            q++;
        const char *s = q;
        while (q < f->e && *q >= '0' && *q <= '9') {
            if (ex < 100000)
                ex = ex * 10 + (*q - '0');
            q++;
        }
        if (q == s)
            return GIVE_UP;
        if (eneg)
            ex = -ex;
    }
    if (!real) {
        if (nd > 18)
            return GIVE_UP;
        long long ll = neg ? -(long long)v : (long long)v;
        *out = (double)ll;
    } else {
        char buf[64];
        if ((size_t)(q - p) >= sizeof buf)
            return GIVE_UP;
        if (nd + nf - lead <= 19 && decimal(v, ex - (long)nf, out) == 0) {
            if (neg)
                *out = -*out;
        } else {
            memcpy(buf, p, (size_t)(q - p));
            buf[q - p] = '\0';
            *out = strtod(buf, NULL);
        }
        if (!isfinite(*out))
            return GIVE_UP;
    }
    f->s = q;
    return 0;
}
