/* torch 2.x's Python frames (import/torch/torch-pyframes.c): on a trace torch 2.15 recorded here
 * with with_stack=True (tests/data/torch-2.15-with-stack.json), each operator's source line and
 * nn.Module; on traces written here, the frames' order in the file, a frame that outlives its
 * caller (left out, counted), an operator that outlives its frame, threads with no frames, the
 * backward pass tagged as its forward calls (autograd's sequence number), the
 * frames' missing or negative times (an error naming the field), both parsers, a "Call stack"
 * kept. */
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "rooftime/core/profile.h"
#include "rooftime/import/torch.h"
#include "rooftime/util/error.h"

#define REC "torch-stack-recorder.py"

/* The kernel named name with that source (NULL: none). */
static const rt_kernel *find(const rt_profile *p, const char *name, const char *source)
{
    for (size_t i = 0; i < p->n_kernels; i++) {
        const char *s = rt_tags_get(&p->kernels[i].tags, "source");
        if (strcmp(p->kernels[i].name, name) == 0 &&
            (source ? s && strcmp(s, source) == 0 : s == NULL))
            return &p->kernels[i];
    }
    fail_msg("no kernel '%s' with source %s", name, source ? source : "(none)");
    return NULL;
}

static void expect(const rt_profile *p, const char *name, const char *source, const char *module)
{
    const rt_kernel *k = find(p, name, source);
    const char *m = rt_tags_get(&k->tags, "module");
    if (module ? !m || strcmp(m, module) != 0 : m != NULL)
        fail_msg("'%s': module %s, expected %s", name, m ? m : "(none)",
                 module ? module : "(none)");
}

static int warned(const rt_warnings *w, const char *what)
{
    for (size_t i = 0; i < w->n; i++)
        if (strstr(w->msg[i], what))
            return 1;
    return 0;
}

static void test_recorded(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/torch-2.15-with-stack.json", tu_src());
    rt_torch_options o = {.by_source = 1};
    rt_profile *p = NULL;
    rt_warnings w = {0};
    rt_error err = {{0}};
    if (rt_import_torch_opts(path, &o, &p, &w, &err) != 0)
        fail_msg("%s", err.msg);
    /* each Linear by the user's line that called it, in Block.forward or in step() */
    expect(p, "aten::addmm [[128],[16,64],[64,128],[],[]]", REC ":19", "Linear_0");
    expect(p, "aten::addmm [[64],[16,128],[128,64],[],[]]", REC ":20", "Linear_1");
    expect(p, "aten::addmm [[8],[16,64],[64,8],[],[]]", REC ":24", "Linear_2");
    expect(p, "aten::relu [[16,128]]", REC ":19", "ReLU_0");
    expect(p, "aten::tanh [[16,64]]", REC ":20", "Block_0");
    /* `+ x` has no call event of its own: the line known outside, step()'s call of the model */
    expect(p, "aten::add [[16,64],[16,64],[]]", REC ":24", "Block_0");
    expect(p, "aten::mean [[16,8],[]]", REC ":25", NULL);
    /* the backward pass (on this thread, CPU, inside loss.backward()) as its forward calls */
    expect(p, "AddmmBackward0 [[16,8]]", REC ":24", "Linear_2");
    expect(p, "aten::mm [[16,8],[8,64]]", REC ":24", "Linear_2");
    expect(p, "ReluBackward0 [[16,128]]", REC ":19", "ReLU_0");
    expect(p, "aten::threshold_backward [[16,128],[16,128],[]]", REC ":19", "ReLU_0");
    expect(p, "MeanBackward0 [[]]", REC ":25", NULL);
    /* what no backward node holds keeps the frames' line: loss.backward() */
    expect(p, "aten::ones_like [[],[],[],[],[],[]]", REC ":26", NULL);
    expect(p, "torch::autograd::AccumulateGrad [[8]]", REC ":26", NULL);
    const char *note = rt_tags_get(&p->provenance.notes, "torch_source_coverage");
    assert_non_null(note);
    assert_non_null(strstr(note, "100.0% of the operator self time with the user's source line"));
    assert_non_null(strstr(note, "172 of 172 operator calls inside the user's code, 0 on threads"));
    assert_non_null(strstr(note, "102 in the backward pass tagged as the forward call"));
    /* profiler.py's stop_trace ends a rounding step (1 ns) after its caller: inside it */
    assert_false(warned(&w, "python_function"));
    rt_profile_free(p);
    rt_warnings_release(&w);
}

#define EV(cat, name, tid, ts, dur, args)                                                          \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid              \
    ",\"ts\":" #ts ",\"dur\":" #dur ",\"args\":{" args "}}"
#define PY(name, tid, ts, dur, from) EV("python_function", name, tid, ts, dur, "\"CallFrom\":" from)
#define OP(name, tid, ts, dur) EV("cpu_op", name, tid, ts, dur, "\"Input Dims\":[[2]]")

static rt_profile *import(const char *text, rt_warnings *w, rt_error *err)
{
    rt_torch_options o = {.by_source = 1};
    rt_profile *p = NULL;
    /* the length given, no NUL after it read */
    if (rt_import_torch_text_opts(text, strlen(text), "t.json", &o, &p, w, err) != 0)
        return NULL;
    return p;
}

/* The operators listed before the frames; a module's frame; a user function's callee naming its
 * line; an escape in a CallFrom (jansson reads that event) read as the scanner would. */
// clang-format off
static const char nested[] = "["
    OP("aten::relu", 1, 14, 2) ","
    OP("aten::mm", 1, 30, 2) ","
    OP("aten::abs", 2, 14, 2) ","
    PY("<string>(1): <module>", 1, 200, 10, "\"<string>:1\"") ","
    PY("nn.Module: Linear_3", 1, 201, 5, "\"<string>:1\"") ","
    OP("aten::neg", 1, 202, 1) ","
    PY("m.py(1): <module>", 1, 0, 100, "\"m.py:1\"") ","
    PY("m.py(5): f", 1, 10, 50, "\"m.py:2\"") ","
    PY("nn.Module: ReLU_0", 1, 12, 6, "\"m.py:7\"") ","
    PY("torch/nn/functional.py(9): relu", 1, 13, 4, "\"torch/nn/modules/activation.py:3\"") ","
    PY("<built-in method mm>", 1, 29, 4, "\"m\\u002epy:8\"") "]";
// clang-format on

static void test_nesting(void **state)
{
    (void)state;
    rt_warnings w = {0};
    rt_error err = {{0}};
    rt_profile *p = import(nested, &w, &err);
    assert_non_null(p);
    expect(p, "aten::relu [[2]]", "m.py:7", "ReLU_0");
    expect(p, "aten::mm [[2]]", "m.py:8", NULL);
    expect(p, "aten::abs [[2]]", NULL, NULL); /* thread 2 has no frames */
    /* inside no frame of the user's code (python -c: "<string>"), a module all the same */
    expect(p, "aten::neg [[2]]", NULL, "Linear_3");
    const char *note = rt_tags_get(&p->provenance.notes, "torch_source_coverage");
    assert_non_null(strstr(note, "2 of 4 operator calls inside the user's code, 1 on threads"));
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* A frame that outlives its caller is left out (the operator inside both takes the caller's
 * line); an operator that outlives its innermost frame gets nothing; both counted. */
// clang-format off
static const char crossing[] = "["
    PY("m.py(1): <module>", 1, 0, 100, "\"m.py:1\"") ","
    PY("m.py(5): f", 1, 10, 20, "\"m.py:2\"") ","
    PY("<built-in method x>", 1, 25, 10, "\"m.py:6\"") ","
    OP("aten::relu", 1, 26, 2) ","
    PY("<built-in method y>", 1, 40, 5, "\"m.py:3\"") ","
    OP("aten::mm", 1, 41, 9) "]";
// clang-format on

static void test_crossing(void **state)
{
    (void)state;
    rt_warnings w = {0};
    rt_error err = {{0}};
    rt_profile *p = import(crossing, &w, &err);
    assert_non_null(p);
    expect(p, "aten::relu [[2]]", "m.py:2", NULL);
    expect(p, "aten::mm [[2]]", NULL, NULL);
    assert_true(warned(&w, "1 python_function events left out"));
    assert_true(warned(&w, "1 operators end after the innermost Python frame"));
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* The backward pass on autograd's own thread (no Python frames): a backward node and what runs
 * inside it take the line and module of the latest forward operator before it with its sequence
 * number; a node whose number no tagged forward operator has, and what it holds, get nothing. */
#define SEQ(name, tid, ts, dur, seq)                                                               \
    EV("cpu_op", name, tid, ts, dur, "\"Input Dims\":[[2]],\"Sequence number\":" #seq)
// clang-format off
static const char backward[] = "["
    PY("m.py(1): <module>", 1, 0, 100, "\"m.py:1\"") ","
    PY("nn.Module: Linear_0", 1, 10, 10, "\"m.py:4\"") ","
    SEQ("aten::linear", 1, 11, 2, 7) ","
    PY("nn.Module: Linear_1", 1, 20, 10, "\"m.py:5\"") ","
    SEQ("aten::linear", 1, 21, 2, 8) ","
    SEQ("AddmmBackward0", 2, 50, 5, 7) ","
    OP("aten::mm", 2, 51, 2) ","
    SEQ("AddmmBackward0", 2, 60, 5, 9) ","
    OP("aten::t", 2, 61, 1) "]";
// clang-format on

static void test_backward(void **state)
{
    (void)state;
    rt_warnings w = {0};
    rt_error err = {{0}};
    rt_profile *p = import(backward, &w, &err);
    assert_non_null(p);
    expect(p, "aten::linear [[2]]", "m.py:4", "Linear_0");
    expect(p, "aten::mm [[2]]", "m.py:4", "Linear_0");
    expect(p, "AddmmBackward0 [[2]]", "m.py:4", "Linear_0");
    expect(p, "AddmmBackward0 [[2]]", NULL, NULL);
    expect(p, "aten::t [[2]]", NULL, NULL);
    const char *note = rt_tags_get(&p->provenance.notes, "torch_source_coverage");
    assert_non_null(strstr(note, "2 of 6 operator calls inside the user's code, 4 on threads"));
    assert_non_null(strstr(note, "; 2 in the backward pass"));
    rt_profile_free(p);
    rt_warnings_release(&w);
}

/* A frame with no duration or a negative one: the file, the event and the field. */
static void test_malformed(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        {"[" OP("aten::mm", 1, 1, 1) ",{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":"
                                     "\"m.py(1): f\",\"pid\":1,\"tid\":1,\"ts\":0}]",
         "'t.json': line 1, column 105: trace event 2 ('m.py(1): f'): field 'dur' missing"},
        {"[" PY("m.py(1): f", 1, 0, -3, "\"m.py:1\"") "]",
         "trace event 1 ('m.py(1): f'): field 'dur' is negative"},
        {"[{\"ph\":\"X\",\"cat\":\"python_function\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}]",
         "trace event 1 ('?'): field 'name' missing"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rt_warnings w = {0};
        rt_error err = {{0}};
        assert_null(import(bad[i][0], &w, &err));
        if (!strstr(err.msg, bad[i][1]))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i][1]);
        rt_warnings_release(&w);
    }
}

/* An operator's own "Call stack" (torch 1.13, the runner) decides over the frames around it. */
static void test_call_stack_kept(void **state)
{
    (void)state;
    static const char t[] = "[" PY("m.py(1): <module>", 1, 0, 100, "\"m.py:1\"") "," PY(
        "<built-in method x>", 1, 5, 10,
        "\"m.py:4\"") "," EV("cpu_op", "aten::mm", 1, 6, 2,
                             "\"Input Dims\":[[2]],\"Call stack\":\"u.py(9): g\"") "]";
    rt_warnings w = {0};
    rt_error err = {{0}};
    rt_profile *p = import(t, &w, &err);
    assert_non_null(p);
    expect(p, "aten::mm [[2]]", "u.py:9", NULL);
    rt_profile_free(p);
    rt_warnings_release(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recorded),  cmocka_unit_test(test_nesting),
        cmocka_unit_test(test_crossing),  cmocka_unit_test(test_backward),
        cmocka_unit_test(test_malformed), cmocka_unit_test(test_call_stack_kept)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
