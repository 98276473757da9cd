/* The profiles a report reads, named once per tool and command. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report-internal.h"
#include "rooftime/core/profile.h"
#include "rooftime/util/strings.h"

/* The length of a command without a last parenthesis: a study names each of its profiles
 * "rooftime study (im2col fp32 conv2d forward)", and the page names that command once. */
static size_t command_stem(const char *cmd)
{
    size_t n = strlen(cmd);
    const char *open = strrchr(cmd, '(');
    if (n < 2 || cmd[n - 1] != ')' || !open || open == cmd || open[-1] != ' ')
        return n;
    return (size_t)(open - cmd) - 1;
}

static bool same_command(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    size_t na = command_stem(a);
    return na == command_stem(b) && strncmp(a, b, na) == 0;
}

/* The profiles, each distinct tool and command once with a count (a study's profiles share
 * one command line, told apart by a parenthesis). */
void rt_report_profiles(FILE *fp, rt_profile *const *profiles, size_t n)
{
    fputs("<p class=\"note\">Profiles:", fp);
    bool first = true;
    for (size_t p = 0; p < n; p++) {
        const char *tool = profiles[p]->tool ? profiles[p]->tool : "profile";
        const char *cmd = profiles[p]->command;
        bool seen = false, alike = true; /* alike: the whole commands are equal too */
        size_t count = 0;
        for (size_t q = 0; q < n; q++) {
            const char *t2 = profiles[q]->tool ? profiles[q]->tool : "profile";
            const char *c2 = profiles[q]->command;
            if (strcmp(tool, t2) != 0 || !same_command(cmd, c2))
                continue;
            seen |= q < p;
            alike &= !cmd || strcmp(cmd, c2) == 0;
            count++;
        }
        if (seen)
            continue;
        fputs(first ? " " : "; ", fp);
        first = false;
        rt_report_esc(fp, tool);
        if (cmd) {
            char *shown = rt_strndup(cmd, alike ? strlen(cmd) : command_stem(cmd));
            fputs(" <code>", fp);
            rt_report_esc(fp, shown);
            fputs("</code>", fp);
            free(shown);
        }
        if (count > 1)
            fprintf(fp, " (%zu profiles)", count);
    }
    fputs(".</p>\n", fp);
}
