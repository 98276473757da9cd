/* The phases of a generation loop in a PyTorch trace (import/torch/torch-phase.c), on traces
 * written here: from the attention operators' query length (a softmax and the _softmax it calls
 * counted once, whichever the trace lists first and where rounding has it end after its caller; a
 * phase begins at the forward's embedding lookup; the set-up before it has none), and from the
 * user's rooftime:phase=NAME marks. */
#include <math.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/error.h"

#define OP(name, ts, dur, dims)                                                                    \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts       \
    ",\"dur\":" #dur ",\"args\":{\"Input Dims\":" dims "}}"
#define MARK(name, ts, dur)                                                                        \
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,"         \
    "\"ts\":" #ts ",\"dur\":" #dur "}"

/* A forward: its embedding lookup, a softmax over `q` query tokens with the _softmax it calls
 * (listed first, starting at t + cs for cd microseconds), a matrix product. */
#define FORWARD(t, q, cs, cd)                                                                      \
    OP("aten::embedding", t##0, 2, "[[8,4],[1," #q "]]")                                           \
    "," OP("aten::_softmax", t##cs, cd, "[[1,2," #q ",9],[],[]]") "," OP(                          \
        "aten::softmax", t##5, 4, "[[1,2," #q ",9],[],[]]") "," OP("aten::addmm", t##9, 1,         \
                                                                   "[[4],[" #q ",4],[4,4],[],[]]")

/* The _softmax at the softmax's start and shorter, then one that starts a microsecond later and
 * seems to end a microsecond after it (torch 1.13's rounding). */
static const char trace_auto[] =
    "{\"traceEvents\": [" OP("aten::normal_", 1, 2, "[[8,4],[],[],[]]") "," FORWARD(
        2, 5, 5, 3) "," FORWARD(3, 1, 6, 4) "," FORWARD(4, 1, 5, 3) "]}";

static const char trace_marks[] =
    "{\"traceEvents\": [" MARK("rooftime:phase=prompt", 20, 10) "," FORWARD(2, 5, 5, 3) "," MARK(
        "rooftime:phase=a phase", 30, 20) "," FORWARD(3, 1, 5, 3) "]}";

/* A GPU trace: each forward's softmax launches one kernel (the launch inside the operator's span,
 * the kernel by the launch's correlation), which runs after the next forward has begun on the
 * host for the last one. */
#define GPU_EV(cat, name, pid, ts, dur, args)                                                      \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":" #pid                        \
    ",\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{" args "}}"
#define GPU_FORWARD(t, q, c)                                                                       \
    GPU_EV("cpu_op", "aten::embedding", 1, t##00, 2, "\"Input Dims\":[[8,4],[1," #q "]]")          \
    "," GPU_EV("cpu_op", "aten::softmax", 1, t##05, 10,                                            \
               "\"Input Dims\":[[1,2," #q                                                          \
               ",9],[],[]]") "," GPU_EV("cuda_runtime", "cudaLaunchKernel", 1, t##07, 2,           \
                                        "\"correlation\":" #c) "," GPU_EV("kernel",                \
                                                                          "softmax_kernel", 0,     \
                                                                          t##20, 3,                \
                                                                          "\"correlation\":" #c)

static const char trace_gpu[] = "{\"traceEvents\": [" GPU_FORWARD(1, 5, 1) "," GPU_FORWARD(
    2, 1, 2) "," GPU_FORWARD(3, 1, 3) "]}";

static rt_profile *import(const char *trace, rt_warnings *w)
{
    rt_torch_options o = {0};
    rt_profile *p = NULL;
    rt_error err = {{0}};
    if (rt_import_torch_text_opts(trace, strlen(trace), "t.json", &o, &p, w, &err) != 0)
        fail_msg("%s", err.msg);
    return p;
}

/* The phase of the kernels whose name begins with prefix: all the same, or "mixed". */
static const char *phase_of(const rt_profile *p, const char *prefix, int *n)
{
    const char *ph = NULL;
    *n = 0;
    for (size_t i = 0; i < p->n_kernels; i++) {
        if (strncmp(p->kernels[i].name, prefix, strlen(prefix)) != 0)
            continue;
        const char *t = rt_tags_get(&p->kernels[i].tags, "phase");
        t = t ? t : "none";
        if (ph && strcmp(ph, t) != 0)
            return "mixed";
        ph = t;
        ++*n;
    }
    return ph ? ph : "absent";
}

static void test_query_length(void **state)
{
    (void)state;
    rt_warnings w = {0};
    rt_profile *p = import(trace_auto, &w);
    const char *note = rt_tags_get(&p->provenance.notes, "phases");
    assert_non_null(note);
    /* the softmax and its _softmax are one call: 1 over 5 query tokens, 2 over one */
    if (!strstr(note, "(1 calls over more than one query token, 2 over one)"))
        fail_msg("%s", note);
    int n;
    assert_string_equal(phase_of(p, "aten::normal_", &n), "none"); /* set-up */
    /* each phase's calls a kernel of their own: prefill at [5, 4], decode at [1, 4] */
    size_t prefill = 0, decode = 0;
    for (size_t i = 0; i < p->n_kernels; i++) {
        const char *t = rt_tags_get(&p->kernels[i].tags, "phase");
        bool q5 = strstr(p->kernels[i].name, "[5,") || strstr(p->kernels[i].name, ",5]") ||
                  strstr(p->kernels[i].name, ",5,");
        if (t && strcmp(t, "prefill") == 0) {
            assert_true(q5);
            prefill++;
        } else if (t && strcmp(t, "decode") == 0) {
            assert_false(q5);
            decode++;
        }
    }
    assert_int_equal(prefill, 4); /* embedding, _softmax, softmax, addmm */
    assert_int_equal(decode, 4);
    for (size_t i = 0; i < w.n; i++) /* the cost model's, none of the phases' */
        assert_null(strstr(w.msg[i], "phase"));
    rt_warnings_release(&w);
    rt_profile_free(p);
}

static void test_marks(void **state)
{
    (void)state;
    rt_warnings w = {0};
    rt_profile *p = import(trace_marks, &w);
    const char *note = rt_tags_get(&p->provenance.notes, "phases");
    assert_non_null(note);
    if (!strstr(note, "from the 1 ranges named rooftime:phase=NAME (the user's marks)"))
        fail_msg("%s", note);
    int n;
    /* the first forward inside the mark: its name; the second's mark has a bad name: none */
    for (size_t i = 0; i < p->n_kernels; i++) {
        const char *t = rt_tags_get(&p->kernels[i].tags, "phase");
        if (strstr(p->kernels[i].name, "[1,5]") || strstr(p->kernels[i].name, "[1,2,5,9]"))
            assert_string_equal(t ? t : "none", "prompt");
    }
    assert_string_equal(phase_of(p, "aten::addmm", &n), "mixed");
    size_t bad = 0;
    for (size_t i = 0; i < w.n; i++)
        bad += strstr(w.msg[i], "1 ranges named rooftime:phase=NAME with a name that is not") != 0;
    assert_int_equal(bad, 1);
    rt_warnings_release(&w);
    rt_profile_free(p);
}

/* The device profile of a GPU trace: each kernel takes its operator's phase. */
static void test_device_profile(void **state)
{
    (void)state;
    rt_warnings w = {0};
    rt_profile *p = import(trace_gpu, &w);
    const char *note = rt_tags_get(&p->provenance.notes, "phases");
    if (!note || !strstr(note, "(1 calls over more than one query token, 2 over one)"))
        fail_msg("phases: %s", note ? note : "none");
    double prefill = 0, decode = 0;
    for (size_t i = 0; i < p->n_kernels; i++) {
        if (strcmp(p->kernels[i].name, "softmax_kernel") != 0)
            continue;
        const char *t = rt_tags_get(&p->kernels[i].tags, "phase");
        assert_non_null(t);
        if (strcmp(t, "prefill") == 0)
            prefill += p->kernels[i].invocations;
        else if (strcmp(t, "decode") == 0)
            decode += p->kernels[i].invocations;
    }
    assert_true(prefill == 1 && decode == 2);
    rt_warnings_release(&w);
    rt_profile_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_query_length),
                                       cmocka_unit_test(test_marks),
                                       cmocka_unit_test(test_device_profile)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
