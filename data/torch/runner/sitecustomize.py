"""rooftime's PyTorch runner: profiles an unmodified script from the outside.

`rooftime profile --torch -- python3 train.py` puts this directory first on PYTHONPATH, so Python
runs this file at start-up (then Debian's own sitecustomize, which it would otherwise hide). It
starts torch's profiler (record_shapes, with_stack, with_modules, with_flops) before the script
runs and writes the recorded operators as a chrome trace in Kineto's layout when the interpreter
exits. Settings come from the environment:

  ROOFTIME_TORCH_TRACE  the trace to write (nothing happens without it)
  ROOFTIME_TORCH_OPS    rooftime's cost model (data/torch/ops.json): which operators take which
                        concrete arguments ('Concrete Inputs'), recorded for convolutions and
                        pooling, whose FLOPs need stride, padding and dilation
  ROOFTIME_TORCH_STEPS  FIRST:LAST, keep only what runs after optimizer step FIRST ends up to the
                        end of step LAST (1-based; steady state without the first steps)

Debian's torch 1.13 has no Kineto, so its own export drops shapes, types and stacks; they are in
the profiler's events, which this writes. Convolution and pooling arguments are not in the events
at all: torch.nn.functional's conv/pool functions are wrapped to open a range named after them
("rooftime::args {...}") that the writer turns into 'Concrete Inputs' on the operators inside, and
on their backward through the autograd sequence number.
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


def _pairs(v, k):
    if isinstance(v, (list, tuple)):
        return [int(x) for x in v]
    return [int(v)] * k


def _wrap(torch):
    import functools
    import torch.nn.functional as F
    from torch.autograd.profiler import record_function

    def conv(fn, k):
        @functools.wraps(fn)
        def w(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
            if isinstance(padding, str):
                return fn(input, weight, bias, stride, padding, dilation, groups)
            a = {"stride": _pairs(stride, k), "padding": _pairs(padding, k),
                 "dilation": _pairs(dilation, k), "groups": int(groups),
                 "output_mask": [bool(input.requires_grad), bool(weight.requires_grad),
                                 bool(bias is not None and bias.requires_grad)]}
            with record_function(ARGS + json.dumps(a)):
                return fn(input, weight, bias, stride, padding, dilation, groups)
        return w

    def pool(fn, k, names):
        @functools.wraps(fn)
        def w(*args, **kwargs):
            a = {}
            vals = dict(zip(names, args[1:]))
            vals.update((n, kwargs[n]) for n in names if n in kwargs)
            try:
                for n, v in vals.items():
                    if n in ("kernel", "padding", "dilation", "output_size"):
                        a[n] = _pairs(v, k)
                    elif n == "stride":
                        a[n] = [] if v is None or v == [] else _pairs(v, k)
                    elif n == "ceil_mode":
                        a[n] = bool(v)
            except (TypeError, ValueError):
                return fn(*args, **kwargs)
            with record_function(ARGS + json.dumps(a)):
                return fn(*args, **kwargs)
        return w

    for name, k in (("conv1d", 1), ("conv2d", 2), ("conv3d", 3)):
        setattr(F, name, conv(getattr(F, name), k))
    mp = ["kernel", "stride", "padding", "dilation", "ceil_mode"]
    ap = ["kernel", "stride", "padding", "ceil_mode"]
    for name, k, names in (("max_pool1d", 1, mp), ("max_pool2d", 2, mp), ("max_pool3d", 3, mp),
                           ("avg_pool1d", 1, ap), ("avg_pool2d", 2, ap), ("avg_pool3d", 3, ap),
                           ("adaptive_avg_pool2d", 2, ["output_size"]),
                           ("adaptive_avg_pool3d", 3, ["output_size"]),
                           ("adaptive_max_pool2d", 2, ["output_size"])):
        if hasattr(F, name):
            setattr(F, name, pool(getattr(F, name), k, names))


_LIB = []


def _library(filename):
    """Library code rather than the user's: torch, installed packages, the standard library,
    this runner."""
    if filename.startswith("<") or filename == __file__:
        return True
    return filename.startswith(tuple(_LIB)) or "/site-packages/" in filename or \
        "/dist-packages/" in filename


def _hook_modules(torch):
    """Each nn.Module call opens a range named after the user's line that made it: Python's own
    frames give the right line where torch 1.13's stacks on Python 3.11 do not."""
    import threading
    from torch.autograd.profiler import record_function

    import sysconfig
    _LIB.append(os.path.dirname(torch.__file__) + os.sep)
    _LIB.append(sysconfig.get_paths()["stdlib"] + os.sep)
    mod = torch.nn.modules.module
    if not hasattr(mod, "register_module_forward_pre_hook"):
        return
    local = threading.local()

    def pre(module, inputs):
        f = sys._getframe(1)
        while f is not None and _library(f.f_code.co_filename):
            f = f.f_back
        src = "%s(%d): %s" % (os.path.relpath(f.f_code.co_filename), f.f_lineno,
                              f.f_code.co_name) if f is not None else ""
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
    """Operator -> {argument: position} of the cost model's entries that read concrete ones."""
    pos = {}
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
    if name == "groups":
        return str(int(v))
    if name == "ceil_mode":
        return "True" if v else "False"
    if name == "output_mask":
        return "[" + ", ".join("True" if x else "False" for x in v) + "]"
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


def _is_op(name):
    return "::" in name or name.endswith(("Backward0", "Backward1"))


def _write(path, events, positions, steps, t_start):
    # steady state: between the end of optimizer step FIRST and the end of step LAST
    lo, hi = None, None
    if steps:
        # the steps of the first optimizer that steps (a script may step several per iteration)
        stepping = sorted((e[2], e[0]) for e in events if e[0].startswith("Optimizer.step#"))
        which = stepping[0][1] if stepping else None
        ends = sorted(e[3] for e in events if e[0] == which)
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
        name, tid, start, end, shapes, types, stack_, flops, seq, fwd = events[i]
        if tid != thread:
            stack, thread = [], tid
        while stack and stack[-1][0] <= start:
            stack.pop()
        p = stack[-1][1] if stack else None
        if name.startswith(SRC):
            p = dict(p or {}, source=name[len(SRC):])  # the innermost user line
        elif name.startswith(ARGS):
            try:
                p = dict(p or {}, **json.loads(name[len(ARGS):]))
            except ValueError:
                pass
        elif seq >= 0 and p is not None and not name.endswith(("Backward0", "Backward1")):
            by_seq.setdefault((tid, seq), p)
        elif seq >= 0 and name.endswith(("Backward0", "Backward1")):
            p = by_seq.get((fwd if fwd else tid, seq), by_seq.get((tid, seq), p))
        params[i] = p
        stack.append((end, p))
    out = []
    pid = os.getpid()
    for i, (name, tid, start, end, shapes, types, stack_, flops, seq, fwd) in enumerate(events):
        if name.startswith((ARGS, SRC)) or name in ("[memory]", "[OutOfMemory]"):
            continue
        if lo is not None and (start < lo or end > hi):
            continue
        args = {}
        if shapes:
            args["Input Dims"] = shapes
            args["Input type"] = types
            pos = positions.get(name)
            p = params[i]
            if pos and p:
                c = [""] * len(shapes)
                for k, at in pos.items():
                    if k in p and isinstance(at, int) and 0 <= at < len(c):
                        c[at] = _concrete_text(k, p[k])
                args["Concrete Inputs"] = c
        frames = list(stack_ or [])
        if params[i] and "source" in params[i]:
            frames.insert(0, params[i]["source"])
        if frames:
            args["Call stack"] = ";".join(frames)
        if flops > 0:
            args["flops"] = flops
        out.append({"ph": "X", "cat": "cpu_op" if _is_op(name) else "user_annotation",
                    "name": name, "pid": pid, "tid": tid, "ts": start, "dur": end - start,
                    "args": args})
    if lo is not None:
        out.append({"ph": "X", "cat": "user_annotation", "name": "rooftime:window", "pid": pid,
                    "tid": 0, "ts": lo, "dur": hi - lo, "args": {}})
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(json.dumps({"schemaVersion": 1, "displayTimeUnit": "ms",
                            "traceName": "rooftime torch runner",
                            "traceEvents": out}))
        f.write("\n")
    os.replace(tmp, path)


def _start():
    path = os.environ.get("ROOFTIME_TORCH_TRACE")
    if not path:
        return
    steps = None
    s = os.environ.get("ROOFTIME_TORCH_STEPS")
    if s:
        a, _, b = s.partition(":")
        steps = (int(a), int(b))
    import torch
    from torch.autograd import profiler

    _wrap(torch)
    _hook_modules(torch)
    positions = _positions(os.environ.get("ROOFTIME_TORCH_OPS", ""))
    prof = profiler.profile(record_shapes=True, with_stack=True, with_modules=True,
                            with_flops=True)
    prof.__enter__()

    def finish():
        try:
            result = torch.autograd._disable_profiler()
            t0 = result.trace_start_us()
            evs = []
            for e in result.events():
                st = e.start_us() - t0
                evs.append((e.name(), e.start_thread_id(), st, st + e.duration_us(), e.shapes(),
                            e.dtypes(), e.stack(), e.flops() or 0, e.sequence_nr(),
                            e.fwd_thread_id()))
            _write(path, evs, positions, steps, t0)
        except Exception as e:  # noqa: BLE001 - report, never hide the program's own exit
            print("rooftime runner: cannot write the trace %s: %s" % (path, e), file=sys.stderr)

    atexit.register(finish)


_chain_site()
try:
    _start()
except Exception as e:  # noqa: BLE001
    print("rooftime runner: profiler not started: %s" % e, file=sys.stderr)
