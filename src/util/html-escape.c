/* HTML escaping of untrusted text (kernel names carry <, > and &). */
#include "rooftime/util/html-escape.h"

void rt_html_escape(FILE *fp, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        switch (*p) {
        case '&':
            fputs("&amp;", fp);
            break;
        case '<':
            fputs("&lt;", fp);
            break;
        case '>':
            fputs("&gt;", fp);
            break;
        case '"':
            fputs("&quot;", fp);
            break;
        case '\'':
            fputs("&#39;", fp);
            break;
        default:
            if (*p < 0x20 && *p != '\n' && *p != '\t')
                fputc(' ', fp);
            else
                fputc(*p, fp);
        }
    }
}
