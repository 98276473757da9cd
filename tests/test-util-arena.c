/* Tests of the arena: pieces aligned and apart, pieces larger than a block, strings copied and
 * shared while recent. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/arena.h"
#include "rooftime/util/strings.h"
#include "testutil.h"

static void test_pieces(void **state)
{
    (void)state;
    rt_arena_free(NULL);
    rt_arena *a = rt_arena_new();
    char *prev = NULL;
    for (size_t i = 0; i < 100000; i++) { /* several blocks */
        size_t n = 1 + i % 37;
        char *p = rt_arena_alloc(a, n);
        assert_int_equal((uintptr_t)p % 16, 0);
        memset(p, (int)(i & 0xff), n);
        if (prev)
            assert_int_equal((unsigned char)prev[0], (unsigned char)((i - 1) & 0xff));
        prev = p;
    }
    char *big = rt_arena_alloc(a, 3 << 20); /* larger than a block: its own */
    memset(big, 1, 3 << 20);
    char *after = rt_arena_alloc(a, 8);
    memset(after, 2, 8);
    assert_int_equal(big[(3 << 20) - 1], 1);
    rt_arena_free(a);
}

static void test_strings(void **state)
{
    (void)state;
    rt_arena *a = rt_arena_new();
    const char *x = rt_arena_string(a, "layer=L1", 5);
    assert_string_equal(x, "layer");
    assert_ptr_equal(rt_arena_string(a, "layer", 5), x); /* recent: shared */
    const char *y = rt_arena_string(a, "lay\0er", 6);    /* all len bytes count */
    assert_true(y != x);
    assert_int_equal(memcmp(y, "lay\0er", 7), 0);
    assert_string_equal(rt_arena_string(a, "", 0), "");
    for (int i = 0; i < 100000; i++) { /* the cache forgets; copies stay */
        char s[32];
        int n = snprintf(s, sizeof s, "v%d", i);
        assert_string_equal(rt_arena_string(a, s, (size_t)n), s);
    }
    assert_string_equal(x, "layer");
    rt_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pieces),
        cmocka_unit_test(test_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
