/* Helpers shared by the cmocka tests: fixtures, temporary directories, files, running the command.
 */
#ifndef ROOFTIME_TESTUTIL_H
#define ROOFTIME_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* The shared fixtures directory ($ROOFTIME_FIXTURES), or NULL (with a note on stderr) when absent.
 */
const char *tu_fixtures(void);
/* A path under the fixtures directory (static buffer), or NULL when fixtures are absent. */
const char *tu_fixture(const char *rel);
/* The rooftime binary ($ROOFTIME_BIN) and the source tree ($ROOFTIME_SRC). */
const char *tu_bin(void);
const char *tu_src(void);
/* A fresh temporary directory (removed by tu_rmtree); caller frees the string. */
char *tu_tmpdir(void);
void tu_rmtree(const char *dir);
/* Whole file into a NUL-terminated heap buffer, or NULL. */
char *tu_read_file(const char *path, size_t *len);
int tu_write_file(const char *path, const char *text);
int tu_exists(const char *path);
/* Run a shell command; capture stdout and stderr (heap strings, may be NULL args); returns exit
 * code. */
int tu_run(const char *cmd, char **out, char **err);
/* "line L, column C: " (static buffer): where the first occurrence of at lies in text, lines and
 * columns (characters) counted from 1, as a JSON field error names its place. */
const char *tu_place(const char *text, const char *at);
/* Relative closeness. */
int tu_close(double a, double b, double rel);
#define assert_close(a, b, rel)                                                                    \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!tu_close(a_, b_, rel))                                                                \
            fail_msg("%s = %.12g, expected %.12g (rel %g)", #a, a_, b_, (double)(rel));            \
    } while (0)

#endif
