"""rooftime's PyTorch runner: profiles an unmodified script from the outside.

`rooftime profile --torch -- python3 train.py` puts this directory first on PYTHONPATH, so Python
runs this file at start-up (then Debian's own sitecustomize, which it would otherwise hide). It
starts torch's profiler (shapes, FLOPs, and stacks where this torch's events carry them) before
the script runs and writes the recorded operators as a chrome trace in Kineto's layout when the
interpreter exits (rooftime_torch_events.py beside this file: the writer, and what each profiler
generation, torch 1.13 and 2.x, takes). The Python package's rooftime.torch.profile() calls start() below around a block of code in
the same process instead. Settings come from the environment:

  ROOFTIME_TORCH_TRACE  the trace to write (nothing happens without it)
  ROOFTIME_TORCH_OPS    rooftime's cost model (data/torch/ops.json): which operators take which
                        concrete arguments ('Concrete Inputs'), recorded for convolutions and
                        pooling, whose FLOPs need stride, padding and dilation
  ROOFTIME_TORCH_STEPS  FIRST:LAST, keep only what runs after optimizer step FIRST ends up to the
                        end of step LAST (1-based; steady state without the first steps)

Debian's torch 1.13 has no Kineto, so its own export drops shapes, types and stacks; they are in
the profiler's events, which this writes. What the events lack, the runner records in ranges
("rooftime::args {...}", "rooftime::source ...", "rooftime::module ...", "rooftime::step {...}")
that the writer turns into fields of the operators inside them (and of their backward, through the
autograd sequence number):

- convolution and pooling arguments (torch.nn.functional's conv/pool functions, torch's defaults
  filled in, padding "same"/"valid" made numbers) as 'Concrete Inputs';
- the shapes and types of tensor lists (torch.cat, torch.stack, torch._foreach_*, the fused Adam
  and AdamW), which torch 1.13 records as [] of type 'TensorList' and 2.x with their shapes but of
  type 'TensorList', into 'Input Dims' and 'Input type';
- the user's file:line (Python's frames: torch 1.13's stack line numbers are wrong on Python 3.11,
  so there only torch's 'nn.Module:' entries are kept) of each nn.Module call, torch.nn.functional
  and torch function (tensor factories included: module-level statements get their line) called
  from the user's code, Tensor.backward and optimizer step, and the nearest user line of each
  torch.nn.init function (a layer's weight initialisation) and Optimizer.zero_grad, first in
  'Call stack'; what has no user line gets none;
- on torch 2.x, whose events carry no stacks without the Python tracer (an event per Python call),
  the nn.Module of each call, named as torch names them ('nn.Module: Linear_0');
- which optimizer object stepped, so --steps counts the steps of one of them.

A script that starts torch's profiler itself stops with a message saying why (one profiler a
thread). Code that torch.compile traces runs the wrapped functions unchanged (no ranges, no frames
looked at): Dynamo would break its graph on them. rooftime study's client (scripts/torch-client.py)
loads this file by its path and uses instrument(), profiler_options(), stop() and write_trace(), so
that its traces carry what the cost model needs for bytes.
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


def _sibling(name):
    """A module beside this file, loaded by its path (the package and the client load this one so,
    and PYTHONPATH holds this directory only under `profile --torch`)."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_events = _sibling("rooftime_torch_events")
ARGS, SRC, STEP, MOD = _events.ARGS, _events.SRC, _events.STEP, _events.MOD
# The trace writer, for the client: write_trace(path, result, positions, steps=None, within=None)
write_trace = _events.write_trace
# Whether torch.compile is tracing the code now (the wrappers then call through unchanged)
_COMPILING = [lambda: False]

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
    this runner, the code torch.compile generates (its cache: /tmp/torchinductor_USER or
    TORCHINDUCTOR_CACHE_DIR)."""
    lib = _LIBCACHE.get(filename)
    if lib is None:
        lib = filename.startswith("<") or filename == __file__ or \
            filename.startswith(tuple(_LIB)) or "/site-packages/" in filename or \
            "/dist-packages/" in filename or "/torchinductor_" in filename
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
    """Shapes and types of the tensor-list arguments by position (an empty one too: the fused
    optimizers' unused state): torch 1.13 records a list as [] of type 'TensorList', 2.x its shapes
    but not its elements' type."""
    lists, types = {}, {}
    vals = list(args) + [kwargs[n] for n in names[len(args):] if n in kwargs]
    for i, a in enumerate(vals):
        if isinstance(a, list) and not a:
            lists[i], types[i] = [], ""
        elif isinstance(a, (list, tuple)) and a and all(isinstance(t, torch.Tensor) for t in a):
            lists[i] = [list(t.shape) for t in a]
            dt = {t.dtype for t in a}
            types[i] = DTYPES.get(next(iter(dt)), "") if len(dt) == 1 else ""
    return lists, types


# Tensor methods that run no operator (what a tensor is, where it lives) or that the runner wraps
# itself: the user's line is not looked for in their calls
NOT_OPERATORS = {"backward", "const_data_ptr", "cpu", "cuda", "data_ptr", "dense_dim", "dim",
                 "dim_order", "element_size", "get_device", "ipu", "module_load", "mtia",
                 "ndimension", "nelement", "numel", "numpy", "register_hook", "retain_grad",
                 "requires_grad_", "size", "sparse_dim", "storage_offset", "stride", "tolist",
                 "type", "untyped_storage", "apply_", "map_", "map2_", "qscheme",
                 "pin_memory", "share_memory_"}

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

    compiling = _COMPILING[0]
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
            if compiling():
                return fn(input, weight, bias, stride, padding, dilation, groups)
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
            if compiling():
                return fn(*args, **kwargs)
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
            if compiling():
                return fn(*args, **kwargs)
            src = _user_line(1) if outer else _caller(1)
            if src is None:
                return fn(*args, **kwargs)
            with record_function(SRC + src):
                return fn(*args, **kwargs)
        return _jit_alias(fn, w)

    def lists(fn, names=()):
        @functools.wraps(fn)
        def w(*args, **kwargs):
            if compiling():
                return fn(*args, **kwargs)
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
        if name.startswith(("_foreach_", "_fused_adam")):
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
    # Tensor methods called from the user's code (loss.pow(2).mean(), logits.argmax(-1)): their
    # line, which torch 2.x's events carry nowhere (and 1.13's stacks wrongly on Python 3.11);
    # not the methods that ask a tensor about itself, which run no operator
    if sources:
        methods = torch.overrides.get_overridable_functions().get(torch.Tensor, []) \
            if hasattr(torch, "overrides") else []
        for fn in methods:
            name = getattr(fn, "__name__", "")
            if not name or name.startswith(("_", "is_", "q_")) or name in NOT_OPERATORS or \
                    getattr(torch.Tensor, name, None) is not fn or \
                    not (inspect.ismethoddescriptor(fn) or inspect.isbuiltin(fn)):
                continue
            setattr(torch.Tensor, name, source(fn))
        # and indexing, which decode loops do at the top level (logits[:, -1])
        for name in ("__getitem__", "__setitem__"):
            fn = getattr(torch.Tensor, name, None)
            if fn is not None:
                setattr(torch.Tensor, name, source(fn))
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
    compiling = _COMPILING[0]

    def step_range(step):
        @functools.wraps(step)
        def w(self, *args, **kwargs):
            if getattr(local, "inside", False) or compiling():
                # a subclass's step calling its parent's, or a compiled step
                return step(self, *args, **kwargs)
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


def _hook_modules(torch):
    """Each nn.Module call opens a range named after the user's line that made it: Python's own
    frames give the right line where torch 1.13's stacks on Python 3.11 do not. Where this torch's
    events carry no stacks (2.x), the range names the module too, as torch's stacks name it: its
    class and the count of that class's modules seen before it ('Linear_0')."""
    import threading
    import weakref
    from torch.autograd.profiler import record_function

    mod = torch.nn.modules.module
    if not hasattr(mod, "register_module_forward_pre_hook"):
        return
    local = threading.local()
    compiling = _COMPILING[0]
    named = _events.generation(torch)["stacks"] == "none"
    names, per_class = weakref.WeakKeyDictionary(), {}

    def module_name(module):
        try:
            n = names.get(module)
        except TypeError:  # a module that cannot be weakly referenced: named once per call
            n = None
        if n is None:
            cls = type(module).__name__
            n = "%s_%d" % (cls, per_class.get(cls, 0))
            per_class[cls] = per_class.get(cls, 0) + 1
            try:
                names[module] = n
            except TypeError:
                pass
        return n

    def pre(module, inputs):
        if compiling():
            return
        f = sys._getframe(1)
        while f is not None and _library(f.f_code.co_filename):
            f = f.f_back
        src = _frame_text(f) if f is not None else ""
        r = record_function((MOD + module_name(module) + " " + src) if named else (SRC + src))
        r.__enter__()
        st = getattr(local, "stack", None)
        if st is None:
            st = local.stack = []
        st.append((id(module), r))

    def post(module, inputs, output):
        st = getattr(local, "stack", None)
        if compiling() or not st or not any(m == id(module) for m, _ in st):
            return  # its pre-hook ran while compiled code was traced: no range was opened
        # close this module's range (and any a graph break left open inside it)
        while st:
            m, r = st.pop()
            r.__exit__(None, None, None)
            if m == id(module):
                break

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


def instrument(torch, ops_path, sources=True):
    """Wrap torch's functions so that the trace gets what the events lack (concrete arguments,
    tensor lists, and with sources the user's lines); the cost model's concrete-argument
    positions (read from ops_path) for write_trace. rooftime study's client
    (scripts/torch-client.py) calls this too, without sources: their ranges would put
    record_function's own operators inside its measured ranges."""
    import sysconfig

    dirs = [os.path.dirname(torch.__file__), sysconfig.get_paths()["stdlib"]]
    if os.environ.get("TORCHINDUCTOR_CACHE_DIR"):
        dirs.append(os.path.abspath(os.environ["TORCHINDUCTOR_CACHE_DIR"]))
    for d in (x + os.sep for x in dirs):
        if d not in _LIB:
            _LIB.append(d)
    compiler = getattr(torch, "compiler", None)
    _COMPILING[0] = getattr(compiler, "is_compiling", None) or (lambda: False)
    _wrap(torch, sources)
    return _positions(ops_path)


def profiler_options():
    """torch.autograd.profiler.profile's arguments for this torch (rooftime_torch_events.py's
    GENERATIONS): shapes, FLOPs, and stacks where its events carry them."""
    import torch

    return _events.options(torch)


def stop(prof):
    """Stop prof (a torch.autograd.profiler.profile entered with profiler_options()) and return
    the result write_trace() reads, as this torch gives it (rooftime_torch_events.py)."""
    import torch

    return _events.stop(torch, prof)


_INSTALLED = []


def _compiled_kernels():
    """torch.compile's CPU kernels as events of their own (inductor's kernel profiling, its
    TORCHINDUCTOR_CPP_ENABLE_KERNEL_PROFILE): their time is then theirs, not their compiled
    region's. A user's own setting stands; code compiled before this call keeps what it was
    compiled with."""
    if os.environ.setdefault("TORCHINDUCTOR_CPP_ENABLE_KERNEL_PROFILE", "1") != "1":
        return
    config = sys.modules.get("torch._inductor.config")
    cpp = getattr(config, "cpp", None)
    if cpp is not None and hasattr(cpp, "enable_kernel_profile"):
        cpp.enable_kernel_profile = True


def start(path, steps=None, ops_path="", library_dirs=()):
    """Start the profiler with the runner's hooks (installed once per process); returns finish(),
    which stops it and writes the trace to path. `profile --torch` calls it at start-up with the
    settings of the environment and finish at exit; the Python package's rooftime.torch.profile()
    around a block of the user's code (library_dirs: its own files, never the user's line)."""
    _compiled_kernels()  # before torch's import, which may read inductor's settings
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
    prof = profiler.profile(**profiler_options())
    prof.__enter__()
    if len(_INSTALLED) == 1:
        _guard_profiler(torch)
        _INSTALLED.append(True)
    _ACTIVE.append(True)

    def finish():
        _ACTIVE.clear()
        write_trace(path, stop(prof), positions, steps)

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
