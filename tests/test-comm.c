/* Tests of the communication patterns: a name matches a pattern of '*' and literal bytes exactly
 * when fnmatch says so, and patterns with other wildcards still go through fnmatch. */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "rooftime/core/comm.h"
#include "testutil.h"

static void test_stars_as_fnmatch(void **state)
{
    (void)state;
    static const char *const pats[] = {"nccl*", "*ncclKernel*",
                                       "MPI_*", "record_param_comms",
                                       "*",     "**",
                                       "a*b*c", "*a*a*",
                                       "*.cu",  ".*",
                                       "*/x",   "ab*",
                                       "*ab",   "",
                                       "a**b",  "*aab*",
                                       "x*y*z*"};
    static const char alphabet[] = "abxyzc./_N";
    uint64_t r = 2463534242u;
    rt_comm_patterns one = {0};
    for (size_t p = 0; p < sizeof pats / sizeof *pats; p++) {
        rt_comm_patterns_add(&one, pats[p], "L");
        assert_true(one.v[0].stars_only);
        for (int i = 0; i < 20000; i++) {
            char name[16];
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            size_t len = r % 12;
            for (size_t j = 0; j < len; j++)
                name[j] = alphabet[(r >> (4 + 3 * j)) % (sizeof alphabet - 1)];
            name[len] = '\0';
            if (i < 4) /* and some that match */
                snprintf(name, sizeof name, "%s",
                         i == 0   ? "ncclAllReduce"
                         : i == 1 ? "xncclKernely"
                         : i == 2 ? "aabc"
                                  : "MPI_Send");
            int want = fnmatch(pats[p], name, 0) == 0;
            if ((rt_comm_library(&one, name) != NULL) != want)
                fail_msg("pattern '%s', name '%s': fnmatch says %d", pats[p], name, want);
        }
        rt_comm_patterns_release(&one);
    }
}

static void test_other_globs(void **state)
{
    (void)state;
    rt_comm_patterns ps = {0};
    rt_comm_patterns_add(&ps, "nccl?ernel", "A");
    rt_comm_patterns_add(&ps, "[mM]pi_*", "B");
    rt_comm_patterns_add(&ps, "gloo\\*", "C");
    assert_false(ps.v[0].stars_only);
    assert_false(ps.v[1].stars_only);
    assert_false(ps.v[2].stars_only);
    assert_string_equal(rt_comm_library(&ps, "ncclKernel"), "A");
    assert_string_equal(rt_comm_library(&ps, "Mpi_send"), "B");
    assert_string_equal(rt_comm_library(&ps, "gloo*"), "C");
    assert_null(rt_comm_library(&ps, "glooX"));
    rt_comm_patterns_release(&ps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stars_as_fnmatch),
        cmocka_unit_test(test_other_globs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
