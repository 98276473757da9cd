/* libFuzzer target: the field locator of JSON errors (util/json-locate.c) on any text and any
 * path. The input is a path, a newline, then the text. A place found lies inside the text. */
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "rooftime/util/json-locate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size < 512 ? size : 512);
    if (!nl)
        return 0;
    size_t plen = (size_t)(nl - data);
    char *path = malloc(plen + 1);
    memcpy(path, data, plen);
    path[plen] = '\0';
    const char *text = (const char *)nl + 1;
    size_t len = size - plen - 1;
    /* The text on the heap at its exact size: a read past it is a finding. */
    char *copy = malloc(len ? len : 1);
    memcpy(copy, text, len);
    size_t line, col, lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += copy[i] == '\n';
    if (rt_json_locate(copy, len, path, &line, &col) == 0 &&
        (line < 1 || line > lines || col < 1 || col > len + 1)) {
        fprintf(stderr, "'%s': line %zu, column %zu outside the text\n", path, line, col);
        abort();
    }
    free(copy);
    free(path);
    return 0;
}
