/* A measurement's progress on standard error: one line rewritten on a terminal, a line per stage
 * elsewhere. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli-progress.h"
#include "rooftime/util/clock.h"

void cli_progress_init(cli_progress *p, const char *who)
{
    memset(p, 0, sizeof *p);
    p->who = who;
    p->tty = isatty(STDERR_FILENO);
    p->t0 = rt_now();
}

void cli_progress_show(void *ctx, const char *stage, double fraction)
{
    cli_progress *p = ctx;
    if (p->tty) {
        fprintf(stderr, "\r[%s %3d%%] %-56.56s", p->who, (int)(fraction * 100 + 0.5), stage);
        p->drawn = true;
    } else {
        if (strncmp(p->stage, stage, sizeof p->stage - 1) == 0)
            return;
        snprintf(p->stage, sizeof p->stage, "%s", stage);
        fprintf(stderr, "rooftime: %s: [%4.0f s] %s\n", p->who, rt_now() - p->t0, stage);
    }
    fflush(stderr);
}

void cli_progress_end(cli_progress *p)
{
    if (p->drawn)
        fputc('\n', stderr);
    p->drawn = false;
}
