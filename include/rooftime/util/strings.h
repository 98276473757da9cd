/* Strings and allocation: allocators that abort on out-of-memory, formatted strings, number parsing
 * (strings.c). */
#ifndef ROOFTIME_UTIL_STRIN_H
#define ROOFTIME_UTIL_STRIN_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* strcmp(a, b) == 0, the usual answers found without the call: the same string (a loaded
 * profile's repeated names are shared) or different first bytes. Lookups among a million
 * kernels' tags and values call it tens of millions of times. */
static inline bool rt_str_eq(const char *a, const char *b)
{
    return a == b || (a[0] == b[0] && strcmp(a, b) == 0);
}

/* strdup that aborts on out-of-memory (the only allocation policy of the library). */
char *rt_strdup(const char *s);
/* The one copy of the text s, shared by every caller for the rest of the process (never freed):
 * for short texts a program holds millions of times among few distinct ones, such as a verdict's
 * label. Thread-safe; a text asked for again on the same thread costs no lock. Every distinct
 * text stays: only for texts drawn from a small set. */
const char *rt_intern(const char *s);
char *rt_strndup(const char *s, size_t n);
/* malloc/calloc/realloc that abort on out-of-memory. */
void *rt_xmalloc(size_t n);
void *rt_xcalloc(size_t n, size_t size);
void *rt_xrealloc(void *p, size_t n);
/* Heap string from a printf format. */
char *rt_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parse a whole string as a finite double; returns false on junk or overflow. */
bool rt_parse_double(const char *s, double *out);

/* Length in bytes of the longest prefix of s (len bytes) that is at most max bytes and does not
 * end inside a UTF-8 character: cut there, text stays valid UTF-8. */
size_t rt_utf8_prefix(const char *s, size_t len, size_t max);

/* s shortened to at most max bytes (max >= 24) into out (max + 1 bytes), "..." marking what is left
 * out and never cutting a UTF-8 character, so that it stays told apart from the n strings of
 * others (s among them is skipped): the head when s differs from all of them early enough, else
 * the head, "...", and the stretch where s first differs from the one it shares most with (the
 * tail of a C++ template name, a tag deep in a config's label). Returns out. */
char *rt_utf8_shorten_distinct(const char *s, const char *const *others, size_t n, size_t max,
                               char *out);

/* True when s is valid UTF-8 (RFC 3629: no overlong forms, surrogates or code points above
 * U+10FFFF). */
bool rt_utf8_valid(const char *s);
/* A heap copy of s where every byte that does not start a valid UTF-8 character becomes U+FFFD
 * (the replacement character): the one rule every importer follows, so whatever is saved loads. */
char *rt_strdup_utf8(const char *s);

/* What a file whose first n bytes are s is when rooftime cannot read it as text: UTF-16 or UTF-32
 * (a byte order mark, or ASCII with every other byte NUL), or compressed (gzip, xz, zstd, zip), as
 * a phrase that says what to do ("UTF-16 text: convert it to UTF-8 first (iconv ...)"); NULL for
 * anything else. */
const char *rt_not_text_kind(const char *s, size_t n);

/* "a,b,c" into n heap strings (blanks before a name and empty names dropped); NULL and n = 0 for
 * NULL or nothing. Free with rt_free_list. */
char **rt_split_list(const char *s, size_t *n);
void rt_free_list(char **list, size_t n);

#endif
