/* The CHECK of the check programs that are no cmocka tests (tests/cupti-*-check.c, built with the
 * collector, unsanitized): one "ok"/"FAIL" line per check, the failures counted in fails. */
#ifndef ROOFTIME_TESTS_PLAIN_CHECK_H
#define ROOFTIME_TESTS_PLAIN_CHECK_H

#include <stdio.h>

static int fails;

#define CHECK(what, cond)                                                                          \
    do {                                                                                           \
        int ok_ = (cond);                                                                          \
        printf("%s %s\n", ok_ ? "ok  " : "FAIL", what);                                            \
        fails += !ok_;                                                                             \
    } while (0)

#endif
