/* libFuzzer target: a kernel name from an untrusted file (ncu's CSV, a collector's directory, a
 * profile): demangled with its output bounded (util/demangle.c) and its name key
 * (core/kernel-name-key.c), which demangles it too. Seeds: mangled names (scripts/fuzz.sh). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/core/kernel-name-key.h"
#include "rooftime/util/demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    free(rt_demangle((const char *)data, size));
    char *name = malloc(size + 1);
    if (!name)
        return 0;
    memcpy(name, data, size);
    name[size] = '\0'; /* a name of the profile: a C string, cut at a NUL inside */
    free(rt_kernel_name_key(name));
    free(name);
    return 0;
}
