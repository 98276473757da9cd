/* The output of a command run by `rooftime profile`: oneDNN verbose records to the reader, the
 * rest through to our standard output, in bounded memory. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "cli-profile.h"
#include "rooftime/util/error.h"
#include "rooftime/util/line-reader.h"

/* Write all of buf, or return -1. */
static int write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

/* One line of the command's standard output: verbose records go to the reader (and the kept log),
 * everything else (including text before a marker on the same line) to our standard output. */
static void route_line(rt_onednn_reader *r, FILE *log, const char *line, size_t n, int has_nl)
{
    ssize_t at = rt_onednn_marker(r, line, n);
    if (at < 0) {
        write_all(STDOUT_FILENO, line, n + (has_nl ? 1 : 0));
        return;
    }
    if (at > 0)
        write_all(STDOUT_FILENO, line, (size_t)at);
    /* the output's last line without a newline: a record cut when the command died */
    (has_nl ? rt_onednn_reader_line : rt_onednn_reader_last_line)(r, line, n);
    if (log) {
        fwrite(line + at, 1, n - (size_t)at, log);
        fputc('\n', log);
    }
}

/* The command's standard output, line by line: verbose records to the reader (and the kept log),
 * everything else through to our standard output. */
void cli_profile_route(int fd, rt_onednn_reader *r, FILE *log)
{
    /* Lines in bounded memory: a line longer than RT_MAX_LINE cannot be a verbose record, so
     * its pieces go straight through (constant memory, linear time, however long it is). */
    rt_line_reader lr;
    rt_line_reader_init(&lr, fd, "the command's output", RT_MAX_LINE, false);
    const char *piece;
    size_t plen;
    bool ends, in_long = false;
    rt_error rerr;
    while (rt_line_reader_next(&lr, &piece, &plen, &ends, &rerr) == 1) {
        if (in_long || !ends) {
            write_all(STDOUT_FILENO, piece, plen);
            if (ends && lr.newline)
                write_all(STDOUT_FILENO, "\n", 1);
        } else {
            route_line(r, log, piece, plen, lr.newline);
        }
        in_long = !ends;
    }
    rt_line_reader_release(&lr);
}
