/* The library's two import contracts (issue 44): every importer's result passes rt_profile_check
 * inside the library call (rt_import_check), and a text importer reads no byte past the length it
 * is given (the texts here end exactly at a page that cannot be read, no NUL after them: a read
 * past the end is a crash, which ASan's strtod does not report by itself). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "testutil.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/import-check.h"
#include "rooftime/import/ncu.h"
#include "rooftime/import/onednn.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/error.h"

/* text ending exactly where an unreadable page starts (release with unmap_exact) */
static char *exact(const char *text, size_t *len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    *len = strlen(text);
    assert_true(*len <= page);
    char *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(mprotect(m + page, page, PROT_NONE), 0);
    char *b = m + page - *len;
    memcpy(b, text, *len);
    return b;
}

static void unmap_exact(char *b, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    munmap(b + len - page, 2 * page);
}

static int torch_text(const char *text, rt_profile **p, rt_error *err)
{
    size_t n;
    char *b = exact(text, &n);
    rt_warnings w = {0};
    int rc = rt_import_torch_text(b, n, "t.json", NULL, p, &w, err);
    rt_warnings_release(&w);
    unmap_exact(b, n);
    return rc;
}

/* A trace cut inside the number of ts or dur: an error, and no read past the buffer. */
static void test_torch_unterminated_numbers(void **state)
{
    (void)state;
    static const char *const cut[] = {"[{\"ts\":0", "[{\"dur\":1", "[{\"ts\":-12.5e3",
                                      "{\"traceEvents\":[{\"ph\":\"X\",\"dur\":7",
                                      "[{\"args\":{\"flops\":1}, \"dur\":2"};
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        rt_profile *p = NULL;
        rt_error err = {{0}};
        assert_int_equal(torch_text(cut[i], &p, &err), -1);
        assert_null(p);
        assert_non_null(strstr(err.msg, "t.json"));
    }
    /* the same numbers, whole: read as before */
    rt_profile *p = NULL;
    rt_error err = {{0}};
    assert_int_equal(torch_text("[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"k\",\"ts\":0,"
                                "\"dur\":12.5,\"args\":{\"flops\":7}}]",
                                &p, &err),
                     0);
    assert_int_equal(p->n_kernels, 1);
    assert_true(p->kernels[0].time > 12.4e-6 && p->kernels[0].time < 12.6e-6);
    rt_profile_free(p);
}

/* A kernel of 2e150 s: refused by the importer, with the check's message naming the input. */
static void test_torch_checked(void **state)
{
    (void)state;
    rt_profile *p = NULL;
    rt_error err = {{0}};
    assert_int_equal(
        torch_text("[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"k\",\"ts\":0,\"dur\":2e156}]", &p,
                   &err),
        -1);
    assert_null(p);
    assert_non_null(strstr(err.msg, "'t.json': kernel 0 'k': time"));
    assert_non_null(strstr(err.msg, "over the limit of 1e+150 s"));
}

static void test_onednn_checked(void **state)
{
    (void)state;
    char z[60];
    memset(z, '1', 59);
    z[59] = '\0';
    char line[1024];
    snprintf(line, sizeof line,
             "onednn_verbose,exec,cpu,matmul,brg:avx512_core,undef,src_f32::blocked:ab:f0 "
             "wei_f32::blocked:ab:f0 dst_f32::blocked:ab:f0,,,%sx%s:%sx%s:%sx%s,0.03\n",
             z, z, z, z, z, z);
    size_t n;
    char *b = exact(line, &n);
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_onednn_text(b, n, "dnn.log", &p, &w, &err), -1);
    assert_null(p);
    assert_non_null(strstr(err.msg, "'dnn.log': kernel 0 'matmul "));
    assert_non_null(strstr(err.msg, "FLOPs is over the limit of 1e+150 FLOPs"));
    rt_warnings_release(&w);
    unmap_exact(b, n);
}

static void test_ncu_checked(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/bad-inputs/ncu-sum-time.csv", tu_src());
    const char *paths[1] = {path};
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    assert_int_equal(rt_import_ncu(paths, 1, NULL, &p, &w, &err), -1);
    assert_null(p);
    assert_non_null(strstr(err.msg, "ncu-sum-time.csv': kernel 0 'k': time: the sum of its "));
    rt_warnings_release(&w);
}

/* The shared step itself: a good profile is kept, a bad one freed. */
static void test_import_check(void **state)
{
    (void)state;
    rt_profile *p = rt_profile_new();
    rt_kernel *k = rt_profile_add_kernel(p, "k");
    k->time = 1;
    k->invocations = 1;
    rt_error err = {{0}};
    assert_int_equal(rt_import_check(&p, "in", &err), 0);
    assert_non_null(p);
    p->kernels[0].time = 1e300;
    assert_int_equal(rt_import_check(&p, "in", &err), -1);
    assert_null(p);
    assert_non_null(strstr(err.msg, "'in': kernel 0 'k': time"));
    assert_int_equal(rt_import_check(&p, "in", &err), 0); /* nothing to check */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_torch_unterminated_numbers),
        cmocka_unit_test(test_torch_checked),
        cmocka_unit_test(test_onednn_checked),
        cmocka_unit_test(test_ncu_checked),
        cmocka_unit_test(test_import_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
