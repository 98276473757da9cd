/* A measurement's progress on standard error (cli-progress.c), for `machine measure` and the
 * studies that measure the machine first. */
#ifndef ROOFTIME_CLI_PROGRESS_H
#define ROOFTIME_CLI_PROGRESS_H

#include <stdbool.h>

typedef struct cli_progress {
    const char *who; /* the line's prefix: "machine" */
    bool tty;        /* standard error is a terminal */
    bool drawn;      /* a terminal line is open, to end with a newline */
    double t0;       /* when the measurement began */
    char stage[96];  /* the stage last told, cut to its room */
} cli_progress;

/* Ready p for a measurement that begins now. */
void cli_progress_init(cli_progress *p, const char *who);

/* An rt_progress_fn (ctx: a cli_progress): on a terminal one line rewritten in place with the
 * percentage; into a log or a pipe one line as each stage begins, with the seconds since the
 * start, so that a run stopped part-way (a time box, a kernel that never ends) shows where. */
void cli_progress_show(void *ctx, const char *stage, double fraction);

/* End the terminal line, if one is open. */
void cli_progress_end(cli_progress *p);

#endif
