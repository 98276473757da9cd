/* The torch cost model's tests share one fixture: the table of data/torch/ops.json loaded once per
 * group (ops), setup and teardown for cmocka_run_group_tests. */
#ifndef ROOFTIME_TESTS_TORCH_OPS_FIXTURE_H
#define ROOFTIME_TESTS_TORCH_OPS_FIXTURE_H

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

#endif
