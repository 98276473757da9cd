"""rooftime's PyTorch runner, its reading half: the events torch's profiler recorded, whichever
profiler generation recorded them, written as the chrome trace (Kineto's layout) that `rooftime
import torch` reads, with what the runner's ranges add (sitecustomize.py beside this file opens
them; it and its callers load this file by its path).

Events are read through torch's public profiler API where it gives what the trace needs: the
profile object of torch.autograd.profiler (its options; __exit__ and kineto_results, on 1.13 and
2.x alike) and its events' name(), start_thread_id(), sequence_nr(), fwd_thread_id(), shapes(),
dtypes(), stack() and flops(). Where torch's generations differ, GENERATIONS below says what each
one takes, keyed by torch's version, and CLOCKS which clock a result carries, so that the next
torch is a row, not an edit: no torch's private names are assumed anywhere else. torch.compile's
CPU kernels get the buffers inductor's generated code gives them (rooftime_inductor.py beside this
file, keyed by torch's version the same way).
"""
import json
import os
import sys

ARGS = "rooftime::args "
SRC = "rooftime::source "
STEP = "rooftime::step "
# an nn.Module call where the generation's events carry no stacks: "rooftime::module
# Linear_0 FILE(LINE): FUNCTION", the module named as torch's own stacks name it
MOD = "rooftime::module "

# The profiler generations, newest first; a torch takes the first row at or below its version.
#   options:  torch.autograd.profiler.profile's arguments
#   stop:     "exit": the profile object's own __exit__, then its kineto_results (2.x: the
#             FunctionEvent tree is built lazily, never here); "disable": torch.autograd.
#             _disable_profiler(), which 1.13's __exit__ calls before building that tree in
#             Python, seconds per 100k events, for nothing the trace needs
#   shapes:   the event's method for its inputs' shapes: "structured_input_shapes" (2.x: a
#             tensor list's shapes too) or "shapes" (1.13 records a list as [])
#   category: the event's method telling a range (record_function, torch.compile's '## Call
#             CompiledFxGraph ##') from an operator; None: by its name ("::", "...Backward0")
#   stacks:   what the events' stack() gives: "all" frames with right lines, "modules" (the
#             frames' lines are wrong: only torch's 'nn.Module: ' frames are kept), or "none"
#             (the runner names modules itself, MOD ranges)
GENERATIONS = (
    # Kineto everywhere: with_stack would turn on the Python tracer (every Python call an event
    # of its own, the operators' stack() empty) and with_modules is deprecated (a FutureWarning
    # in the user's output): the runner's own ranges give lines and modules
    {"since": (2, 0), "name": "kineto",
     "options": {"record_shapes": True, "with_flops": True},
     "stop": "exit", "shapes": "structured_input_shapes", "category": "is_user_annotation",
     "stacks": "none"},
    # Debian's 1.13 (no Kineto: the legacy profiler) records each operator's Python stack; on
    # Python 3.11 its line numbers are the code object's first line, or 0
    {"since": (1, 13), "name": "legacy",
     "options": {"record_shapes": True, "with_flops": True, "with_stack": True,
                 "with_modules": True},
     "stop": "disable", "shapes": "shapes", "category": None,
     "stacks": "modules" if sys.version_info >= (3, 11) else "all"},
)

# The clocks a profiler result carries, tried in order: (trace start, event start, event
# duration, units per microsecond). torch 2.1 and later count nanoseconds; 1.13 microseconds.
CLOCKS = (("trace_start_ns", "start_ns", "duration_ns", 1000.0),
          ("trace_start_us", "start_us", "duration_us", 1.0))


def version(torch):
    """torch.__version__ as numbers: "2.15.0+cu132" -> (2, 15, 0); what does not parse, 0."""
    out = []
    for part in torch.__version__.split("+")[0].split(".")[:3]:
        digits = ""
        for c in part:
            if not c.isdigit():
                break
            digits += c
        out.append(int(digits) if digits else 0)
    return tuple(out)


def generation(torch):
    """The row of GENERATIONS for this torch (the oldest for a torch older than all of them)."""
    v = version(torch)
    for g in GENERATIONS:
        if v >= g["since"]:
            return g
    return GENERATIONS[-1]


def options(torch):
    """torch.autograd.profiler.profile's arguments for this torch: shapes, types, FLOPs, and
    stacks where its events carry them."""
    return dict(generation(torch)["options"])


def stop(torch, prof):
    """Stop prof (a torch.autograd.profiler.profile the caller entered) and return its result,
    whose events() write_trace reads."""
    if generation(torch)["stop"] == "exit":
        prof.__exit__(None, None, None)
        return prof.kineto_results
    return torch.autograd._disable_profiler()


def _clock(torch, result):
    for start, ev_start, ev_dur, per_us in CLOCKS:
        if hasattr(result, start):
            return getattr(result, start)(), ev_start, ev_dur, per_us
    raise RuntimeError("torch %s's profiler result has none of the clocks the runner reads (%s): "
                       "this torch is not supported (rooftime reads 1.13 and 2.x)"
                       % (torch.__version__, ", ".join(c[0] for c in CLOCKS)))


def write_trace(path, result, positions, steps=None, within=None):
    """The events of a profiler result (stop() above) as a chrome trace at path; within: only
    those overlapping ranges of that name on their thread."""
    import torch

    t0, ev_start, ev_dur, per_us = _clock(torch, result)
    g = generation(torch)
    evs = []
    for e in result.events():
        st = (getattr(e, ev_start)() - t0) / per_us
        evs.append((e.name(), e.start_thread_id(), st, st + getattr(e, ev_dur)() / per_us,
                    e.sequence_nr(), e.fwd_thread_id(), e))
    meta = {"torch_version": torch.__version__, "torch_profiler": g["name"]}
    _write(path, evs, positions, steps, within, g, meta, _compiled(torch))


def _compiled(torch):
    """torch.compile's CPU kernels, by the name the profiler records, as inductor's generated code
    sizes their buffers (rooftime_inductor.py beside this file); {} where it cannot tell."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rooftime_inductor.py")
    try:
        spec = importlib.util.spec_from_file_location("rooftime_inductor", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod.kernels(version(torch))
    except Exception as e:  # noqa: BLE001 - the kernels are then uncounted, the trace written
        print("rooftime runner: torch.compile's kernels not read (%s): their work is not counted"
              % e, file=sys.stderr)
        return {}


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


def _write(path, events, positions, steps, within, g, meta, compiled=None):
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
        elif name.startswith(MOD):
            # the module and the user's line that called it; modules innermost first
            mod, _, src = name[len(MOD):].partition(" ")
            p = dict(p or {}, source=src, modules=[mod] + (p or {}).get("modules", []))
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
        if name.startswith((ARGS, SRC, STEP, MOD)) or name in ("[memory]", "[OutOfMemory]"):
            continue
        if (lo is not None and (start < lo or end > hi)) or (keep is not None and not keep[i]):
            continue
        # what only a written event needs, asked of torch for those alone (a measured backward's
        # forward, outside the ranges, is half a study trace)
        shapes, types, flops = getattr(ev, g["shapes"], ev.shapes)(), ev.dtypes(), ev.flops() or 0
        stacks = g["stacks"]
        stack_ = ev.stack() if stacks != "none" else None
        args = {}
        p = params[i]
        if shapes:
            ls = p.get("lists") if p else None
            if g["shapes"] != "shapes" and "TensorList" in types:
                # this generation records every list's shapes: [] is an empty list, which reads
                # and writes nothing (not a list whose shapes are unknown)
                types = ["" if t == "TensorList" and i < len(shapes) and shapes[i] == [] else t
                         for i, t in enumerate(types)]
            if ls:
                # the tensor lists the runner recorded, where torch wrote [] ('TensorList'), or
                # their shapes without the type of their elements (2.x)
                shapes, types = list(shapes), list(types)
                for k, v in ls.items():
                    at = int(k)
                    if at < len(shapes) and shapes[at] in ([], v) and at < len(types) and \
                            types[at] in ("TensorList", ""):
                        shapes[at] = v
                        types[at] = (p.get("list_types", {}).get(k, "") or "TensorList") if v \
                            else ""  # an empty list
            args["Input Dims"] = shapes
            args["Input type"] = types
            pos = positions.get(name)
            if pos and p:
                c = [""] * len(shapes)
                for k, at in pos.items():
                    if k in p and isinstance(at, int) and 0 <= at < len(c):
                        c[at] = _concrete_text(k, p[k])
                args["Concrete Inputs"] = c
        frames = [] if stacks == "none" else \
            [x for x in stack_ or [] if stacks == "all" or x.startswith("nn.Module: ")]
        if p and "modules" in p:
            frames = ["nn.Module: " + m for m in p["modules"]] + frames
        if p and "source" in p:
            frames.insert(0, p["source"])
        rec = (compiled or {}).get(name) if not shapes else None
        if rec:
            # a compiled kernel: its buffers as inductor's code sizes them, and how it uses each
            # ("in", "out", "in_out") where an operator's concrete arguments go
            args["Input Dims"], args["Input type"] = rec["dims"], rec["types"]
            args["Concrete Inputs"] = rec["access"]
        if frames:
            args["Call stack"] = ";".join(frames)
        if flops > 0:
            args["flops"] = flops
        if g["category"] and hasattr(ev, g["category"]):
            op = not getattr(ev, g["category"])()
        else:
            op = _is_op(name)
        out.append({"ph": "X", "cat": "cpu_op" if op else "user_annotation",
                    "name": name, "pid": pid, "tid": tid, "ts": start, "dur": end - start,
                    "args": args})
    if lo is not None:
        # the optimizer steps inside it, for per-step figures (`diff --gate`: launches per step)
        out.append({"ph": "X", "cat": "user_annotation", "name": "rooftime:window", "pid": pid,
                    "tid": 0, "ts": lo, "dur": hi - lo, "args": {"steps": steps[1] - steps[0]}})
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(json.dumps(dict({"schemaVersion": 1, "displayTimeUnit": "ms",
                                 "traceName": "rooftime torch runner"}, **meta,
                                traceEvents=out)))
        f.write("\n")
    os.replace(tmp, path)


