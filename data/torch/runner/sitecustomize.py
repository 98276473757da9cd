"""rooftime's PyTorch runner: profiles an unmodified script from the outside.

`rooftime profile --torch -- python3 train.py` puts this directory first on PYTHONPATH, so Python
runs this file at start-up (then Debian's own sitecustomize, which it would otherwise hide). It
starts torch's profiler (record_shapes, with_stack, with_modules, with_flops) before the script
runs and writes the recorded operators as a chrome trace in Kineto's layout when the interpreter
exits. The Python package's rooftime.torch.profile() calls start() below around a block of code in
the same process instead. Settings come from the environment:

  ROOFTIME_TORCH_TRACE  the trace to write (nothing happens without it)
  ROOFTIME_TORCH_OPS    rooftime's cost model (data/torch/ops.json): which operators take which
                        concrete arguments ('Concrete Inputs'), recorded for convolutions and
                        pooling, whose FLOPs need stride, padding and dilation
  ROOFTIME_TORCH_STEPS  FIRST:LAST, keep only what runs after optimizer step FIRST ends up to the
                        end of step LAST (1-based; steady state without the first steps)

Debian's torch 1.13 has no Kineto, so its own export drops shapes, types and stacks; they are in
the profiler's events, which this writes. What the events lack, the runner records in ranges
("rooftime::args {...}", "rooftime::source ...", "rooftime::step {...}") that the writer turns into
fields of the operators inside them (and of their backward, through the autograd sequence number):

- convolution and pooling arguments (torch.nn.functional's conv/pool functions, torch's defaults
  filled in, padding "same"/"valid" made numbers) as 'Concrete Inputs';
- the shapes and types of tensor lists (torch.cat, torch.stack, torch._foreach_*), which torch 1.13
  records as [] of type 'TensorList', into 'Input Dims' and 'Input type';
- the user's file:line (Python's frames: torch 1.13's stack line numbers are wrong on Python 3.11,
  so there only torch's 'nn.Module:' entries are kept) of each nn.Module call, torch.nn.functional
  and torch function (tensor factories included: module-level statements get their line) called
  from the user's code, Tensor.backward and optimizer step, and the nearest user line of each
  torch.nn.init function (a layer's weight initialisation) and Optimizer.zero_grad, first in
  'Call stack'; what has no user line gets none;
- which optimizer object stepped, so --steps counts the steps of one of them.

A script that starts torch's profiler itself stops with a message saying why (one profiler a
thread). rooftime study's client (scripts/torch-client.py) loads this file by its path and uses
instrument() and write_trace(), so that its traces carry what the cost model needs for bytes.
"""
import atexit
import json
import os
import sys


def _chain_site():
    """Run the sitecustomize this file hides (Debian's), if any."""
    here = os.path.dirname(os.path.abspath(__file__))
    for d in sys.path:
        if not d or os.path.abspath(d) == here:
            continue
        f = os.path.join(d, "sitecustomize.py")
        if os.path.isfile(f):
            try:
                with open(f) as fh:
                    code = compile(fh.read(), f, "exec")
                exec(code, {"__name__": "sitecustomize", "__file__": f})
            except Exception as e:  # noqa: BLE001 - never break the user's program
                print("rooftime runner: %s: %s" % (f, e), file=sys.stderr)
            return


ARGS = "rooftime::args "
SRC = "rooftime::source "
STEP = "rooftime::step "

# What the writer fills in for tensor lists, which torch 1.13 records as [] ('TensorList')
DTYPES = {}


def _pairs(v, k):
    if isinstance(v, (list, tuple)):
        return [int(x) for x in v]
    return [int(v)] * k


_LIB = []
_LIBCACHE = {}
_REL = {}


def _library(filename):
    """Library code rather than the user's: torch, installed packages, the standard library,
    this runner."""
    lib = _LIBCACHE.get(filename)
    if lib is None:
        lib = filename.startswith("<") or filename == __file__ or \
            filename.startswith(tuple(_LIB)) or "/site-packages/" in filename or \
            "/dist-packages/" in filename
        _LIBCACHE[filename] = lib
    return lib


def _frame_text(f):
    fn = f.f_code.co_filename
    rel = _REL.get(fn)
    if rel is None:
        rel = _REL[fn] = os.path.relpath(fn)
    return "%s(%d): %s" % (rel, f.f_lineno, f.f_code.co_name)


def _caller(depth):
    """The user's line that called the function `depth` frames up, or None when library code
    called it (the nn.Module range around it names the user's line then)."""
    f = sys._getframe(depth + 1)
    if _library(f.f_code.co_filename):
        return None
    return _frame_text(f)


def _user_line(depth):
    """The nearest user line up the stack from the frame `depth` up, or None."""
    try:
        f = sys._getframe(depth + 1)
    except ValueError:
        return None
    while f is not None and _library(f.f_code.co_filename):
        f = f.f_back
    return _frame_text(f) if f is not None else None


def _sourced(a, depth):
    """a with the user's line that called the function `depth` frames up, when there is one."""
    src = _caller(depth + 1)
    if src:
        a["source"] = src
    return a


def _jit_alias(orig, w):
    """TorchScript compiles a call by what the function is: keep it seeing the original."""
    w._rooftime_orig = orig
    try:
        from torch.jit import _builtins
        name = _builtins._find_builtin(orig)
        if name is not None:
            _builtins._register_builtin(w, name)
    except Exception:  # noqa: BLE001 - another torch: TorchScript may not see through
        pass
    try:
        from torch import _jit_internal
        if orig in _jit_internal.boolean_dispatched:
            _jit_internal.boolean_dispatched[w] = _jit_internal.boolean_dispatched[orig]
    except Exception:  # noqa: BLE001
        pass
    return w


def _lists(torch, args, kwargs, names=()):
    """Shapes and types of the tensor-list arguments by position: torch 1.13 records a list as
    [] of type 'TensorList'."""
    lists, types = {}, {}
    vals = list(args) + [kwargs[n] for n in names[len(args):] if n in kwargs]
    for i, a in enumerate(vals):
        if isinstance(a, (list, tuple)) and a and all(isinstance(t, torch.Tensor) for t in a):
            lists[i] = [list(t.shape) for t in a]
            dt = {t.dtype for t in a}
            types[i] = DTYPES.get(next(iter(dt)), "") if len(dt) == 1 else ""
    return lists, types


# torch's functions that make tensors from no tensor: their operators get the user's line
FACTORIES = ("arange", "as_strided", "as_tensor", "asarray", "bartlett_window", "blackman_window",
             "empty", "empty_strided", "eye", "from_file", "from_numpy", "frombuffer", "full",
             "hamming_window", "hann_window", "kaiser_window", "linspace", "logspace", "normal",
             "ones", "rand", "randint", "randn", "randperm", "scalar_tensor", "sparse_coo_tensor",
             "tensor", "tril_indices", "triu_indices", "vander", "zeros")


def _wrap(torch, sources=True):
    import functools
    import inspect
    import torch.nn.functional as F
    from torch.autograd.profiler import record_function

    for dt, name in ((torch.float32, "float"), (torch.float64, "double"),
                     (torch.float16, "c10::Half"), (torch.bfloat16, "c10::BFloat16"),
                     (torch.int64, "long int"), (torch.int32, "int"), (torch.int16, "short int"),
                     (torch.int8, "signed char"), (torch.uint8, "unsigned char"),
                     (torch.bool, "bool")):
        DTYPES[dt] = name

    def ranged(fn, a):
        with record_function(ARGS + json.dumps(a)):
            return fn()

    def conv(fn, k):
        @functools.wraps(fn)
        def w(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
            call = functools.partial(fn, input, weight, bias, stride, padding, dilation, groups)
            try:
                dil = _pairs(dilation, k)
                if padding == "valid":
                    pad = [0] * k
                elif padding == "same":
                    # torch pads d (k - 1) // 2 on both sides (and the odd one more on the right
                    # into a padded copy of the input, which the operator then reads)
                    pad = [dil[i] * (int(weight.shape[2 + i]) - 1) // 2 for i in range(k)]
                else:
                    pad = _pairs(padding, k)
                a = {"stride": _pairs(stride, k), "padding": pad, "dilation": dil,
                     "groups": int(groups),
                     "output_mask": [bool(input.requires_grad), bool(weight.requires_grad),
                                     bool(bias is not None and bias.requires_grad)]}
            except (TypeError, ValueError, AttributeError, IndexError):
                return call()
            return ranged(call, _sourced(a, 1))
        return _jit_alias(fn, w)

    def pool(fn, k, names, adaptive):
        @functools.wraps(fn)
        def w(*args, **kwargs):
            call = functools.partial(fn, *args, **kwargs)
            vals = dict(zip(names, args[1:]))
            vals.update((n, kwargs[n]) for n in names if n in kwargs)
            try:
                if adaptive:
                    size = args[0].shape if args else kwargs["input"].shape
                    o = vals["output_size"]
                    o = list(o) if isinstance(o, (list, tuple)) else [o] * k
                    a = {"output_size": [int(size[len(size) - k + i]) if x is None else int(x)
                                         for i, x in enumerate(o)]}
                else:
                    # torch's defaults: stride the kernel, padding 0, dilation 1, no ceil_mode
                    kern = _pairs(vals["kernel_size"], k)
                    s = vals.get("stride")
                    a = {"kernel": kern,
                         "stride": kern if s is None or s == [] or s == () else _pairs(s, k),
                         "padding": _pairs(vals.get("padding", 0), k),
                         "dilation": _pairs(vals.get("dilation", 1), k),
                         "ceil_mode": bool(vals.get("ceil_mode", False))}
            except (TypeError, ValueError, KeyError, IndexError, AttributeError):
                return call()
            return ranged(call, _sourced(a, 1))
        return _jit_alias(fn, w)

    def source(fn, outer=False):
        """fn in a range naming the user's line that called it; outer: the nearest user line
        up the stack (weight initialisation inside nn.Conv2d(...), zero_grad's zero_), where
        library code calls it. Without sources: fn itself."""
        if not sources:
            return fn
        @functools.wraps(fn)
        def w(*args, **kwargs):
            src = _user_line(1) if outer else _caller(1)
            if src is None:
                return fn(*args, **kwargs)
            with record_function(SRC + src):
                return fn(*args, **kwargs)
        return _jit_alias(fn, w)

    def lists(fn, names=()):
        @functools.wraps(fn)
        def w(*args, **kwargs):
            try:
                ls, ts = _lists(torch, args, kwargs, names)
            except Exception:  # noqa: BLE001 - never break the call
                ls = None
            if not ls:
                return fn(*args, **kwargs)
            a = _sourced({"lists": ls, "list_types": ts}, 1)
            with record_function(ARGS + json.dumps(a)):
                return fn(*args, **kwargs)
        return _jit_alias(fn, w)

    done = set()
    for name, k in (("conv1d", 1), ("conv2d", 2), ("conv3d", 3)):
        setattr(F, name, conv(getattr(F, name), k))
        done.add(name)
    mp = ["kernel_size", "stride", "padding", "dilation", "ceil_mode"]
    ap = ["kernel_size", "stride", "padding", "ceil_mode"]
    for name, k, names in (("max_pool1d", 1, mp), ("max_pool2d", 2, mp), ("max_pool3d", 3, mp),
                           ("avg_pool1d", 1, ap), ("avg_pool2d", 2, ap), ("avg_pool3d", 3, ap),
                           ("adaptive_avg_pool1d", 1, ["output_size"]),
                           ("adaptive_avg_pool2d", 2, ["output_size"]),
                           ("adaptive_avg_pool3d", 3, ["output_size"]),
                           ("adaptive_max_pool1d", 1, ["output_size"]),
                           ("adaptive_max_pool2d", 2, ["output_size"]),
                           ("adaptive_max_pool3d", 3, ["output_size"])):
        if hasattr(F, name):
            setattr(F, name, pool(getattr(F, name), k, names, name.startswith("adaptive")))
            done.add(name)
    # tensor lists: their shapes, for the cost model
    for name in ("cat", "concat", "stack", "hstack", "vstack", "dstack"):
        if hasattr(torch, name):
            setattr(torch, name, lists(getattr(torch, name), ("tensors",)))
            done.add(name)
    for name in dir(torch):
        if name.startswith("_foreach_"):
            setattr(torch, name, lists(getattr(torch, name)))
    # the user's line of every other functional call: torch.nn.functional, and torch's own
    # functions of tensors (builtins; torch.functional's Python ones are left to TorchScript)
    skip = {"has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
            "handle_torch_function", "boolean_dispatch", "assert_int_or_pair"}
    for name in dir(F):
        fn = getattr(F, name)
        if name.startswith("_") or name in done or name in skip or isinstance(fn, type) or \
                not (inspect.isfunction(fn) or inspect.isbuiltin(fn)):
            continue
        setattr(F, name, source(fn))
    try:
        import torch.overrides
        tensor_fns = list(torch.overrides.get_overridable_functions().get(torch, []))
        # and the factories, of no tensor argument (module-level statements get their line)
        tensor_fns += [getattr(torch, n) for n in FACTORIES if hasattr(torch, n)]
    except Exception:  # noqa: BLE001
        tensor_fns = []
    for fn in tensor_fns:
        name = getattr(fn, "__name__", "")
        if inspect.isbuiltin(fn) and name and not name.startswith("_") and name not in done \
                and getattr(torch, name, None) is fn:
            setattr(torch, name, source(fn))
    # weight initialisation (nn.Conv2d(...) calls init.kaiming_uniform_) and zero_grad: the
    # nearest user line up the stack
    import torch.nn.init as init
    for name in dir(init):
        fn = getattr(init, name)
        if not name.startswith("_") and inspect.isfunction(fn) and fn.__module__ == init.__name__:
            setattr(init, name, source(fn, outer=True))
    torch.optim.Optimizer.zero_grad = source(torch.optim.Optimizer.zero_grad, outer=True)
    # backward: the user's line that started it
    torch.Tensor.backward = source(torch.Tensor.backward)
    torch.autograd.backward = source(torch.autograd.backward)
    try:
        import torch.jit._recursive as rec
        compile_fn = rec.try_compile_fn

        def try_compile_fn(fn, loc):
            return compile_fn(getattr(fn, "_rooftime_orig", fn), loc)
        rec.try_compile_fn = try_compile_fn
    except Exception:  # noqa: BLE001
        pass


def _hook_optimizers(torch):
    """Each optimizer step in a range naming the optimizer object and the user's line that
    stepped it: --steps counts the steps of one optimizer, told apart from another of its class."""
    import functools
    import threading
    from torch.autograd.profiler import record_function

    opt = torch.optim.Optimizer
    hook = "_hook_for_profile" if hasattr(opt, "_hook_for_profile") else \
        "_patch_step_function" if hasattr(opt, "_patch_step_function") else None
    if hook is None:
        return
    local = threading.local()
    orig = getattr(opt, hook)

    def step_range(step):
        @functools.wraps(step)
        def w(self, *args, **kwargs):
            if getattr(local, "inside", False):
                return step(self, *args, **kwargs)  # a subclass's step calling its parent's
            a = _sourced({"id": id(self)}, 1)
            local.inside = True
            try:
                with record_function(STEP + json.dumps(a)):
                    return step(self, *args, **kwargs)
            finally:
                local.inside = False
        w._rooftime_step = True
        return w

    def hooked(self, *args, **kwargs):
        r = orig(self, *args, **kwargs)
        cls = self.__class__
        if not getattr(cls.step, "_rooftime_step", False):
            cls.step = step_range(cls.step)
        return r

    setattr(opt, hook, hooked)


def _guard_profiler(torch):
    """A script that starts torch's profiler itself cannot run under this one (one profiler a
    thread): say so plainly instead of torch's 'Profiler is already enabled on this thread'."""
    msg = ("rooftime runner: the script starts torch's profiler itself (torch.profiler.profile "
           "or torch.autograd.profiler.profile), which cannot run inside `rooftime profile "
           "--torch`: torch allows one profiler per thread. Remove the script's profiler (rooftime "
           "records the same operators), or run the script without --torch and import its trace "
           "with `rooftime import torch`")
    import torch.autograd.profiler as prof

    def guard(orig):
        def w(*args, **kwargs):
            if _ACTIVE:
                raise RuntimeError(msg)
            return orig(*args, **kwargs)
        return w

    for mod, name in ((prof, "_enable_profiler"), (prof, "_enable_profiler_legacy"),
                      (prof, "_prepare_profiler")):
        if hasattr(mod, name):
            setattr(mod, name, guard(getattr(mod, name)))
    try:
        import torch.autograd.profiler_legacy as legacy
        if hasattr(legacy, "_enable_profiler_legacy"):
            legacy._enable_profiler_legacy = guard(legacy._enable_profiler_legacy)
    except ImportError:
        pass


_ACTIVE = []
# Whether torch's own stack frames have right line numbers: torch 1.x on Python 3.11 writes the
# code object's first line (or 0) for every frame, so only the runner's own lines are kept there
_TORCH_LINES = [True]


def _hook_modules(torch):
    """Each nn.Module call opens a range named after the user's line that made it: Python's own
    frames give the right line where torch 1.13's stacks on Python 3.11 do not."""
    import threading
    from torch.autograd.profiler import record_function

    mod = torch.nn.modules.module
    if not hasattr(mod, "register_module_forward_pre_hook"):
        return
    local = threading.local()

    def pre(module, inputs):
        f = sys._getframe(1)
        while f is not None and _library(f.f_code.co_filename):
            f = f.f_back
        src = _frame_text(f) if f is not None else ""
        r = record_function(SRC + src)
        r.__enter__()
        st = getattr(local, "stack", None)
        if st is None:
            st = local.stack = []
        st.append(r)

    def post(module, inputs, output):
        st = getattr(local, "stack", None)
        if st:
            st.pop().__exit__(None, None, None)

    mod.register_module_forward_pre_hook(pre)
    mod.register_module_forward_hook(post)


def _positions(path):
    """Operator -> {argument: position} of the cost model's entries that read concrete ones
    (none for an empty path: no cost model given, nothing to report)."""
    pos = {}
    if not path:
        return pos
    try:
        with open(path) as f:
            table = json.load(f)
        for e in table.get("ops", []):
            if isinstance(e, dict) and isinstance(e.get("concrete"), dict):
                for op in e.get("ops", []):
                    pos[op] = e["concrete"]
    except (OSError, ValueError) as e:
        print("rooftime runner: cannot read %s: %s" % (path, e), file=sys.stderr)
    return pos


def _concrete_text(name, v):
    if name in ("groups", "dim"):
        return str(int(v))
    if name == "ceil_mode":
        return "True" if v else "False"
    if name == "output_mask":
        return "[" + ", ".join("True" if x else "False" for x in v) + "]"
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


def _is_op(name):
    return "::" in name or name.endswith(("Backward0", "Backward1"))


def _step_ends(events, steps):
    """The ends of the steps of the first optimizer object that steps (a script may step several
    per iteration, two of one class among them); torch's own Optimizer.step#CLASS ranges when the
    runner's are missing."""
    mine = []
    for e in events:
        if e[0].startswith(STEP):
            try:
                mine.append((e[2], e[3], json.loads(e[0][len(STEP):])["id"]))
            except (ValueError, KeyError, TypeError):
                pass
    if mine:
        which = min(mine)[2]
        return sorted(end for start, end, i in mine if i == which)
    stepping = sorted((e[2], e[0]) for e in events if e[0].startswith("Optimizer.step#"))
    which = stepping[0][1] if stepping else None
    return sorted(e[3] for e in events if e[0] == which)


# Arguments an operator gets from the one that called it, where the trace records neither:
# aten::embedding gathers rows with aten::index_select along dimension 0
FROM_CALLER = {("aten::embedding", "aten::index_select"): {"dim": 0}}


def _latest(seen, start, default):
    """The parameters of the latest (start, params) in seen that started before start."""
    best = None
    for at, p in seen or ():
        if at <= start and (best is None or at >= best[0]):
            best = (at, p)
    return best[1] if best else default


def _overlapping(events, within):
    """Whether each event overlaps a range named within on its thread."""
    import bisect

    ranges = {}
    for e in events:
        if e[0] == within:
            ranges.setdefault(e[1], []).append((e[2], e[3]))
    starts = {}
    for t, v in ranges.items():
        v.sort()
        starts[t] = [r[0] for r in v]
    keep = []
    for e in events:
        v = ranges.get(e[1])
        # ranges do not overlap one another: the one starting last before e ends is the candidate
        i = bisect.bisect_right(starts[e[1]], e[3]) if v else 0
        keep.append(i > 0 and v[i - 1][1] >= e[2])
    return keep


def _write(path, events, positions, steps, t_start, within=None):
    # steady state: between the end of optimizer step FIRST and the end of step LAST
    lo, hi = None, None
    if steps:
        ends = _step_ends(events, steps)
        first, last = steps
        if len(ends) >= last:
            lo, hi = ends[first - 1] if first > 0 else min(e[2] for e in events), ends[last - 1]
        else:
            print("rooftime runner: only %d optimizer steps ran, fewer than %d: the whole run is "
                  "kept" % (len(ends), last), file=sys.stderr)
    # concrete arguments: from the rooftime::args ranges down to the operators inside them, and
    # through (forward thread, sequence number) to the backward nodes and their operators
    order = sorted(range(len(events)), key=lambda i: (events[i][1], events[i][2], -events[i][3]))
    params = [None] * len(events)
    by_seq = {}
    stack = []
    thread = None
    for i in order:
        name, tid, start, end, seq, fwd, _ = events[i]
        if tid != thread:
            stack, thread = [], tid
        while stack and stack[-1][0] <= start:
            stack.pop()
        p = stack[-1][1] if stack else None
        if name.startswith(SRC):
            p = dict(p or {}, source=name[len(SRC):])  # the innermost user line
        elif name.startswith((ARGS, STEP)):
            try:
                a = json.loads(name[len(ARGS if name.startswith(ARGS) else STEP):])
                a.pop("id", None)
                p = dict(p or {}, **a)
            except (ValueError, TypeError):
                pass
        elif seq >= 0 and p is not None and not name.endswith(("Backward0", "Backward1")):
            # torch reuses sequence numbers (an operator inside one backward call takes the number
            # of the next iteration's forward): a backward node takes its latest forward before it
            by_seq.setdefault((tid, seq), []).append((start, p))
        elif seq >= 0 and name.endswith(("Backward0", "Backward1")):
            p = _latest(by_seq.get((fwd if fwd else tid, seq)) or by_seq.get((tid, seq)),
                        start, p)
        given = FROM_CALLER.get((stack[-1][2] if stack else None, name))
        params[i] = dict(p or {}, **given) if given else p
        stack.append((end, p, name))
    out = []
    pid = os.getpid()
    # only what overlaps the measured ranges (the study's client): the importer's --within makes
    # the exact choice; the forward before a measured backward is left out, half the trace
    keep = _overlapping(events, within) if within else None
    for i, (name, tid, start, end, seq, fwd, ev) in enumerate(events):
        if name.startswith((ARGS, SRC, STEP)) or name in ("[memory]", "[OutOfMemory]"):
            continue
        if (lo is not None and (start < lo or end > hi)) or (keep is not None and not keep[i]):
            continue
        # what only a written event needs, asked of torch for those alone (a measured backward's
        # forward, outside the ranges, is half a study trace)
        shapes, types, stack_, flops = ev.shapes(), ev.dtypes(), ev.stack(), ev.flops() or 0
        args = {}
        p = params[i]
        if shapes:
            ls = p.get("lists") if p else None
            if ls:
                # the tensor lists the runner recorded, where torch wrote [] ('TensorList')
                shapes, types = list(shapes), list(types)
                for k, v in ls.items():
                    at = int(k)
                    if at < len(shapes) and shapes[at] == [] and at < len(types) and \
                            types[at] == "TensorList":
                        shapes[at] = v
                        types[at] = p.get("list_types", {}).get(k, "") or "TensorList"
            args["Input Dims"] = shapes
            args["Input type"] = types
            pos = positions.get(name)
            if pos and p:
                c = [""] * len(shapes)
                for k, at in pos.items():
                    if k in p and isinstance(at, int) and 0 <= at < len(c):
                        c[at] = _concrete_text(k, p[k])
                args["Concrete Inputs"] = c
        frames = [x for x in stack_ or [] if _TORCH_LINES[0] or x.startswith("nn.Module: ")]
        if p and "source" in p:
            frames.insert(0, p["source"])
        if frames:
            args["Call stack"] = ";".join(frames)
        if flops > 0:
            args["flops"] = flops
        out.append({"ph": "X", "cat": "cpu_op" if _is_op(name) else "user_annotation",
                    "name": name, "pid": pid, "tid": tid, "ts": start, "dur": end - start,
                    "args": args})
    if lo is not None:
        # the optimizer steps inside it, for per-step figures (`diff --gate`: launches per step)
        out.append({"ph": "X", "cat": "user_annotation", "name": "rooftime:window", "pid": pid,
                    "tid": 0, "ts": lo, "dur": hi - lo, "args": {"steps": steps[1] - steps[0]}})
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(json.dumps({"schemaVersion": 1, "displayTimeUnit": "ms",
                            "traceName": "rooftime torch runner",
                            "traceEvents": out}))
        f.write("\n")
    os.replace(tmp, path)


def instrument(torch, ops_path, sources=True):
    """Wrap torch's functions so that the trace gets what the events lack (concrete arguments,
    tensor lists, and with sources the user's lines); the cost model's concrete-argument
    positions (read from ops_path) for write_trace. rooftime study's client
    (scripts/torch-client.py) calls this too, without sources: their ranges would put
    record_function's own operators inside its measured ranges."""
    import sysconfig

    for d in (os.path.dirname(torch.__file__) + os.sep, sysconfig.get_paths()["stdlib"] + os.sep):
        if d not in _LIB:
            _LIB.append(d)
    _wrap(torch, sources)
    try:
        old = int(torch.__version__.split(".")[0]) < 2
    except ValueError:
        old = True
    _TORCH_LINES[0] = not (old and sys.version_info >= (3, 11))
    return _positions(ops_path)


def write_trace(path, result, positions, steps=None, within=None):
    """The events of torch.autograd._disable_profiler()'s result as a chrome trace at path;
    within: only those overlapping ranges of that name on their thread."""
    t0 = result.trace_start_us()
    evs = []
    for e in result.events():
        st = e.start_us() - t0
        evs.append((e.name(), e.start_thread_id(), st, st + e.duration_us(), e.sequence_nr(),
                    e.fwd_thread_id(), e))
    _write(path, evs, positions, steps, t0, within)


_INSTALLED = []


def start(path, steps=None, ops_path="", library_dirs=()):
    """Start the profiler with the runner's hooks (installed once per process); returns finish(),
    which stops it and writes the trace to path. `profile --torch` calls it at start-up with the
    settings of the environment and finish at exit; the Python package's rooftime.torch.profile()
    around a block of the user's code (library_dirs: its own files, never the user's line)."""
    import torch
    from torch.autograd import profiler

    if not _INSTALLED:
        instrument(torch, "")
        _hook_modules(torch)
        _hook_optimizers(torch)
        _INSTALLED.append(True)
    for d in library_dirs:
        if d not in _LIB:
            _LIB.append(d)
            _LIBCACHE.clear()
    positions = _positions(ops_path)
    prof = profiler.profile(record_shapes=True, with_stack=True, with_modules=True,
                            with_flops=True)
    prof.__enter__()
    if len(_INSTALLED) == 1:
        _guard_profiler(torch)
        _INSTALLED.append(True)
    _ACTIVE.append(True)

    def finish():
        _ACTIVE.clear()
        write_trace(path, torch.autograd._disable_profiler(), positions, steps)

    return finish


def _start():
    path = os.environ.get("ROOFTIME_TORCH_TRACE")
    if not path:
        return
    steps = None
    s = os.environ.get("ROOFTIME_TORCH_STEPS")
    if s:
        a, _, b = s.partition(":")
        steps = (int(a), int(b))
    finish = start(path, steps, os.environ.get("ROOFTIME_TORCH_OPS", ""))

    def at_exit():
        try:
            finish()
        except Exception as e:  # noqa: BLE001 - report, never hide the program's own exit
            print("rooftime runner: cannot write the trace %s: %s" % (path, e), file=sys.stderr)

    atexit.register(at_exit)


# At start-up as sitecustomize (`profile --torch`); the study's client and the Python package load
# this file by its path and only take its definitions.
if __name__ == "sitecustomize":
    _chain_site()
    try:
        _start()
    except Exception as e:  # noqa: BLE001
        print("rooftime runner: profiler not started: %s" % e, file=sys.stderr)
