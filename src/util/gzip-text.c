/* gzip-compressed text inputs (a PyTorch trace kept as .json.gz): inflated with zlib, every
 * member of the file, bounded like any text input, checked as text after. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "rooftime/util/gzip-text.h"
#include "rooftime/util/strings.h"

bool rt_is_gzip(const void *s, size_t n)
{
    const unsigned char *u = s;
    return n >= 2 && u[0] == 0x1F && u[1] == 0x8B;
}

/* The limit in the unit it was set in, as read-file.c words it. */
static void too_large(const char *shown, size_t max, rt_error *err)
{
    if (max >= ((size_t)1 << 20))
        rt_error_set(err,
                     "cannot read '%s': decompressed, it is larger than the limit of %zu MiB "
                     "(docs/limits.md)",
                     shown, max >> 20);
    else
        rt_error_set(err,
                     "cannot read '%s': decompressed, it is larger than the limit of %zu bytes "
                     "(docs/limits.md)",
                     shown, max);
}

/* Largest piece zlib takes in one call (its counts are unsigned int). */
#define PIECE ((size_t)1 << 30)

/* Inflate every gzip member of z[0, zn) into *out (grown as needed, at most max bytes); *n the
 * bytes written. 0, or -1 with the message in err. */
static int inflate_all(const unsigned char *z, size_t zn, const char *shown, size_t max, char **out,
                       size_t *n, rt_error *err)
{
    /* A first guess of the size: the last member's ISIZE is the text's size modulo 4 GiB; it is
     * trusted only up to 64 times the compressed size, so a forged one allocates little. */
    size_t cap = zn < ((size_t)1 << 20) ? ((size_t)1 << 20) : zn;
    if (zn >= 18) {
        size_t isize = (size_t)z[zn - 4] | (size_t)z[zn - 3] << 8 | (size_t)z[zn - 2] << 16 |
                       (size_t)z[zn - 1] << 24;
        if (isize + 1 > cap && isize / 64 <= zn)
            cap = isize + 1;
    }
    if (cap > max + 1)
        cap = max + 1;
    char *b = rt_xmalloc(cap);
    size_t used = 0, in = 0;
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK) { /* gzip wrapper only */
        rt_error_set(err, "cannot read '%s': zlib could not start: %s", shown,
                     s.msg ? s.msg : "out of memory");
        free(b);
        return -1;
    }
    int rc = -1;
    for (;;) {
        if (used == cap) {
            if (cap > max) {
                too_large(shown, max, err);
                goto done;
            }
            cap = cap > max / 2 ? max + 1 : 2 * cap;
            b = rt_xrealloc(b, cap);
        }
        size_t in_n = zn - in < PIECE ? zn - in : PIECE;
        size_t out_n = cap - used < PIECE ? cap - used : PIECE;
        s.next_in = (Bytef *)(z + in);
        s.avail_in = (uInt)in_n;
        s.next_out = (Bytef *)(b + used);
        s.avail_out = (uInt)out_n;
        int zr = inflate(&s, Z_NO_FLUSH);
        in += in_n - s.avail_in;
        used += out_n - s.avail_out;
        if (used > max) {
            too_large(shown, max, err);
            goto done;
        }
        if (zr == Z_STREAM_END) {
            if (in == zn)
                break;
            if (!rt_is_gzip(z + in, zn - in)) {
                rt_error_set(err,
                             "cannot read '%s': %zu bytes after the end of the gzip data (at "
                             "compressed byte %zu) are not gzip",
                             shown, zn - in, in);
                goto done;
            }
            inflateReset(&s); /* another member: gzip concatenates them */
            continue;
        }
        if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT || zr == Z_MEM_ERROR || zr == Z_STREAM_ERROR) {
            rt_error_set(err, "cannot read '%s': corrupt gzip data near compressed byte %zu: %s",
                         shown, in, s.msg ? s.msg : "invalid data");
            goto done;
        }
        if (in == zn && s.avail_out > 0) {
            rt_error_set(err,
                         "cannot read '%s': the gzip data ends early, at compressed byte %zu (the "
                         "file is cut short)",
                         shown, in);
            goto done;
        }
    }
    *out = b;
    *n = used;
    b = NULL;
    rc = 0;
done:
    inflateEnd(&s);
    free(b);
    return rc;
}

int rt_gunzip_text(const void *z, size_t zn, const char *shown, size_t max, char **buf, size_t *len,
                   rt_error *err)
{
    *buf = NULL;
    *len = 0;
    char *b;
    size_t n;
    if (inflate_all(z, zn, shown, max, &b, &n, err) != 0)
        return -1;
    const char *kind = rt_not_text_kind(b, n);
    const char *nul = kind ? NULL : memchr(b, '\0', n);
    if (kind || nul) {
        if (kind)
            rt_error_set(err, "cannot read '%s': decompressed, it is %s", shown, kind);
        else
            rt_error_set(err, "cannot read '%s': decompressed byte %zu is a NUL: not a text file",
                         shown, (size_t)(nul - b));
        free(b);
        return -1;
    }
    size_t bom = n >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    memmove(b, b + bom, n - bom);
    n -= bom;
    char *t = realloc(b, n + 1); /* the room doubling left over, given back */
    b = t ? t : b;
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}
