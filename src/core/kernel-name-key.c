/* The key of a kernel's name that __cxa_demangle's printing (the collector's), Nsight Compute's
 * own shortened printing and the mangled name share (rooftime/core/kernel-name-key.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/kernel-name-key.h"
#include "rooftime/util/demangle.h"
#include "rooftime/util/strings.h"

static const char anon[] = "(anonymous namespace)";

static bool ident(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$';
}

static bool at(const char *s, size_t n, size_t i, const char *lit)
{
    size_t l = strlen(lit);
    return i + l <= n && memcmp(s + i, lit, l) == 0;
}

/* Where the parameter list starts: the first '(' outside every bracket that does not open
 * "(anonymous namespace)" (n: none); *start gets where the name starts, after the return type
 * (the last blank outside brackets before it). */
static size_t name_span(const char *s, size_t n, size_t *start)
{
    long depth = 0;
    *start = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '(' && at(s, n, i, anon)) {
            i += sizeof anon - 2;
            continue;
        }
        if (c == '(' && depth == 0)
            return i;
        if (c == '<' || c == '(' || c == '[' || c == '{')
            depth++;
        else if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0)
            depth--;
        else if (c == ' ' && depth == 0)
            *start = i + 1;
    }
    return n;
}

/* Append s[i..k) to out: a number without its suffix (1ul: 1), true and false as 1 and 0, const
 * and volatile left out. */
static void put_word(char *out, size_t *w, const char *s, size_t i, size_t k)
{
    size_t l = k - i;
    if ((l == 5 && memcmp(s + i, "const", 5) == 0) || (l == 8 && memcmp(s + i, "volatile", 8) == 0))
        return;
    if (l == 4 && memcmp(s + i, "true", 4) == 0) {
        out[(*w)++] = '1';
        return;
    }
    if (l == 5 && memcmp(s + i, "false", 5) == 0) {
        out[(*w)++] = '0';
        return;
    }
    size_t d = i;
    while (d < k && isdigit((unsigned char)s[d]))
        d++;
    size_t u = d;
    while (u < k && strchr("uUlL", s[u]))
        u++;
    if (d > i && u == k) /* digits and an integer suffix */
        k = d;
    memcpy(out + *w, s + i, k - i);
    *w += k - i;
}

char *rt_kernel_name_key(const char *name)
{
    char *dm = rt_demangle(name, strlen(name));
    const char *s = dm ? dm : name;
    size_t start, cut = name_span(s, strlen(s), &start);
    char *out = rt_xmalloc(cut - start + 1);
    size_t w = 0;
    for (size_t i = start; i < cut;) {
        char c = s[i];
        if (isspace((unsigned char)c)) {
            i++;
        } else if (c == '(' && at(s, cut, i, anon) && at(s, cut, i + sizeof anon - 1, "::")) {
            i += sizeof anon + 1; /* "(anonymous namespace)::" */
        } else if (c == ':' && at(s, cut, i, "::") && (w == 0 || strchr("<,( ", out[w - 1]))) {
            i += 2; /* a leading "::", the global namespace */
        } else if (ident(c)) {
            size_t k = i;
            while (k < cut && ident(s[k]))
                k++;
            if (at(s, cut, k, "::") && !isdigit((unsigned char)c))
                i = k + 2; /* a qualifier: at::, std::, cudnn::detail:: */
            else {
                put_word(out, &w, s, i, k);
                i = k;
            }
        } else {
            out[w++] = c;
            i++;
        }
    }
    out[w] = '\0';
    if (w == 0) { /* nothing before the parameters: the name without its blanks */
        free(out);
        size_t n = strlen(s);
        out = rt_xmalloc(n + 1);
        for (size_t i = 0; i < n; i++)
            if (!isspace((unsigned char)s[i]))
                out[w++] = s[i];
        out[w] = '\0';
    }
    free(dm);
    return out;
}
