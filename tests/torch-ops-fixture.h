/* The torch cost model's tests share one fixture: the table of data/torch/ops.json loaded once per
 * group (ops), setup and teardown for cmocka_run_group_tests, and the check of a table refused. */
#ifndef ROOFTIME_TESTS_TORCH_OPS_FIXTURE_H
#define ROOFTIME_TESTS_TORCH_OPS_FIXTURE_H

#include <string.h>

#include "rooftime/import/torch-cost.h"
#include "testutil.h"

static rt_torch_ops *ops;

static int setup(void **state)
{
    (void)state;
    rt_error err;
    if (rt_torch_ops_load(NULL, &ops, &err) != 0)
        fail_msg("%s", err.msg);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rt_torch_ops_free(ops);
    return 0;
}

/* A table with text written to path is refused, the error naming path and saying msg. */
static inline void expect_table_refused(const char *path, const char *text, const char *msg)
{
    assert_int_equal(tu_write_file(path, text), 0);
    rt_torch_ops *o = NULL;
    rt_error err;
    assert_int_equal(rt_torch_ops_load(path, &o, &err), -1);
    assert_null(o);
    if (!strstr(err.msg, msg))
        fail_msg("'%s' does not say '%s'", err.msg, msg);
    assert_non_null(strstr(err.msg, path));
}

#endif
