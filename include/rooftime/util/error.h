/* Error reporting convention shared by the whole library. */
#ifndef ROOFTIME_ERROR_H
#define ROOFTIME_ERROR_H

#include <stddef.h>

/*
 * Convention: library functions that can fail return 0 on success and -1 on
 * error, and fill the caller's rt_error (which may be NULL) with a message that
 * carries its context: file, line, column and field where they are known.
 * Library code never prints and never exits.
 */
typedef struct rt_error {
    char msg[2048];
} rt_error;

/* Replace the message. */
void rt_error_set(rt_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Put "<context>: " in front of the current message. */
void rt_error_prefix(rt_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A growable list of warnings, each a heap string owned by the list. */
typedef struct rt_warnings {
    char **msg;
    size_t n, cap;
} rt_warnings;

void rt_warnings_add(rt_warnings *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append src's messages to dst's, in their order; src is left empty. */
void rt_warnings_move(rt_warnings *dst, rt_warnings *src);
void rt_warnings_release(rt_warnings *w);

#endif
