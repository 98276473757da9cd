#!/usr/bin/python3
"""rooftime's PyTorch client: runs conv2d or nn.LSTM on the CPU at the paper's shapes, to be profiled.

Run it under `rooftime profile -- /usr/bin/python3 scripts/torch-client.py ...` (oneDNN verbose
records) or with --trace FILE (a PyTorch profiler chrome trace for `rooftime import torch`).
Only the measured iterations of the chosen pass are recorded: when ONEDNN_VERBOSE/DNNL_VERBOSE is
set, oneDNN verbose output is switched off for set-up and warm-up and on around each measured pass;
the trace marks each measured pass with a "rooftime:measured" range.

`rooftime study` runs several sweep points in one process (python and torch take a second or two
to start): each --point KEY=VALUE,... overrides the shape options for one point, --trace-dir DIR
receives DIR/trace-<i>.json per point, and --progress-fd N gets the line "<i>" once point i's trace
is written.
"""
import argparse
import os
import sys
import time


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--op", choices=["conv2d", "lstm"], default="conv2d")
    p.add_argument("--precision", choices=["fp32", "bf16"], default="fp32")
    p.add_argument("--pass", dest="pass_", choices=["forward", "backward"], default="forward")
    p.add_argument("--batch", type=int, default=16)
    # conv2d (paper defaults: input 112x112x64 NCHW, 64 filters 3x3, stride 2, padding 1)
    p.add_argument("--input", type=int, default=112, help="input height and width")
    p.add_argument("--channels", type=int, default=64)
    p.add_argument("--filters", type=int, default=64)
    p.add_argument("--kernel", type=int, default=3)
    p.add_argument("--stride", type=int, default=2)
    p.add_argument("--padding", type=int, default=None, help="default: kernel // 2")
    # lstm (paper defaults: sequence 16, features 32, hidden 16)
    p.add_argument("--seq", type=int, default=16)
    p.add_argument("--features", type=int, default=32)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    p.add_argument("--trace", metavar="FILE",
                   help="write the profiler's events as a chrome trace in Kineto's layout "
                        "(cat, args 'Input Dims' and 'flops')")
    p.add_argument("--torch-trace", metavar="FILE",
                   help="write torch's own export_chrome_trace (without Kineto: no cat, no args)")
    p.add_argument("--check", action="store_true", help="print what this torch supports and exit")
    p.add_argument("--point", action="append", default=[], metavar="KEY=VALUE,...",
                   help="one sweep point: shape options to override (batch, input, channels, "
                        "filters, kernel, stride, padding, seq, features, hidden); repeat for more")
    p.add_argument("--trace-dir", metavar="DIR",
                   help="write DIR/trace-<i>.json for point i (as --trace does for one)")
    p.add_argument("--progress-fd", type=int, default=-1, metavar="N",
                   help="write the line '<i>' to file descriptor N when point i is done")
    a = p.parse_args(argv)
    if a.trace and len(a.point) > 1:
        p.error("--trace writes one point; use --trace-dir with several --point")
    points = []
    for spec in a.point or [""]:
        q = argparse.Namespace(**vars(a))
        for kv in filter(None, spec.split(",")):
            key, sep, value = kv.partition("=")
            if not sep or key not in SHAPE_KEYS:
                p.error("--point: expected KEY=VALUE with KEY one of %s, got '%s'"
                        % (", ".join(SHAPE_KEYS), kv))
            try:
                setattr(q, key, int(value))
            except ValueError:
                p.error("--point: %s: expected a whole number, got '%s'" % (key, value))
        for name in ("batch", "input", "channels", "filters", "kernel", "stride", "seq",
                     "features", "hidden", "iters"):
            if getattr(q, name) < 1:
                p.error("--%s must be at least 1" % name)
        if q.padding is not None and q.padding < 0:
            p.error("--padding must be at least 0")
        points.append(q)
    if a.warmup < 0:
        p.error("--warmup must be at least 0")
    return a, points


SHAPE_KEYS = ("batch", "input", "channels", "filters", "kernel", "stride", "padding", "seq",
              "features", "hidden")


def bf16_supported(torch):
    """bf16 on the CPU: needs the dtype and a kernel that runs; try a tiny conv."""
    try:
        x = torch.ones(1, 1, 3, 3, dtype=torch.bfloat16)
        w = torch.ones(1, 1, 1, 1, dtype=torch.bfloat16)
        torch.nn.functional.conv2d(x, w)
        return True
    except Exception:  # noqa: BLE001 - any failure means "not supported"
        return False


class OnednnVerbose:
    """Switch oneDNN verbose output on only around measured work, if the caller asked for it."""

    def __init__(self, torch):
        wanted = any(os.environ.get(v, "0") not in ("", "0") for v in ("ONEDNN_VERBOSE", "DNNL_VERBOSE"))
        setter = getattr(getattr(torch._C, "_verbose", None), "mkldnn_set_verbose", None)
        self.setter = setter if wanted else None
        self.level = 1
        if self.setter:
            self.setter(0)

    def on(self):
        if self.setter:
            sys.stdout.flush()
            self.setter(self.level)

    def off(self):
        if self.setter:
            self.setter(0)


MEASURED = "rooftime:measured"


class Ev:
    """One recorded operator: what write_trace needs of the profiler's events."""
    __slots__ = ("name", "thread", "start", "end", "shapes", "flops")

    def __init__(self, name, thread, start, end, shapes, flops):
        self.name, self.thread, self.start, self.end = name, thread, start, end
        self.shapes, self.flops = shapes, flops


def function_events(events):
    """Ev of each of the profiler's FunctionEvents (after profile.__exit__)."""
    return [Ev(e.name, e.thread, e.time_range.start, e.time_range.end,
               getattr(e, "input_shapes", None), getattr(e, "flops", 0) or 0) for e in events]


def raw_events(result):
    """Ev of each raw event of torch.autograd._disable_profiler()'s result, as profile.__exit__
    reads them (start relative to the trace's, the starting thread, memory records dropped),
    without building its FunctionEvent tree: in Python that takes seconds per 100k events, most
    of the study's time for a long LSTM."""
    t0 = result.trace_start_us()
    out = []
    for e in result.events():
        name = e.name()
        if name in ("[memory]", "[OutOfMemory]"):
            continue
        start = e.start_us() - t0
        out.append(Ev(name, e.start_thread_id(), start, start + e.duration_us(), e.shapes(),
                      e.flops() or 0))
    return out


def write_trace(path, events, precision, version):
    """The profiler's events (Ev) in the layout of a Kineto trace. Debian's torch 1.13 has no
    Kineto, so torch's own export drops categories, shapes and FLOPs; they are in the events, so
    write them. Operators that record FLOPs (mm, addmm, conv2d ...) run in the model's precision."""
    import bisect
    import json

    type_name = "c10::BFloat16" if precision == "bf16" else "float"
    # Only the measured ranges matter to `rooftime import torch --within`: an operator counts when
    # it lies inside one on its thread. Events that do not even overlap one (set-up, the forward
    # before a measured backward) are left out, which halves a backward trace; the importer still
    # makes the exact choice among the rest.
    ranges = {}
    for e in events:
        if e.name == MEASURED:
            ranges.setdefault(e.thread, []).append((e.start, e.end))
    for v in ranges.values():
        v.sort()
    starts = {t: [r[0] for r in v] for t, v in ranges.items()}

    def overlaps(e):
        v = ranges.get(e.thread)
        if not v:
            return False
        i = bisect.bisect_right(starts[e.thread], e.end)
        # ranges do not overlap one another: the one starting last before e ends is the candidate
        return i > 0 and v[i - 1][1] >= e.start

    out = []
    for e in events:
        if e.name != MEASURED and not overlaps(e):
            continue
        args = {}
        if e.shapes and any(e.shapes):
            args["Input Dims"] = e.shapes
        if e.flops > 0:
            args["flops"] = e.flops
            args["Input type"] = [type_name]
        out.append({"ph": "X", "cat": "user_annotation" if e.name == MEASURED else "cpu_op",
                    "name": e.name, "pid": os.getpid(), "tid": e.thread,
                    "ts": e.start, "dur": e.end - e.start, "args": args})
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        # json.dumps, not json.dump: only the former uses the C encoder (10x faster here)
        f.write(json.dumps({"schemaVersion": 1, "displayTimeUnit": "ms",
                            "traceName": "rooftime torch-client, torch " + version,
                            "traceEvents": out}))
        f.write("\n")
    os.replace(tmp, path)


def run_point(a, torch, trace):
    """Set up one point, run its warm-up and measured iterations; the mean seconds of a measured
    pass. With trace, the measured ones are recorded and written there."""
    dtype = torch.bfloat16 if a.precision == "bf16" else torch.float32
    torch.manual_seed(0)

    if a.op == "conv2d":
        pad = a.kernel // 2 if a.padding is None else a.padding
        model = torch.nn.Conv2d(a.channels, a.filters, a.kernel, stride=a.stride, padding=pad).to(dtype)
        x = torch.randn(a.batch, a.channels, a.input, a.input, dtype=dtype, requires_grad=True)

        def forward():
            return model(x)
    else:
        model = torch.nn.LSTM(a.features, a.hidden, batch_first=True).to(dtype)
        x = torch.randn(a.batch, a.seq, a.features, dtype=dtype, requires_grad=True)

        def forward():
            return model(x)[0]

    verbose = OnednnVerbose(torch)
    grad = None

    def one(measured, prof_range):
        nonlocal grad
        if a.pass_ == "forward":
            if measured:
                verbose.on()
            with prof_range():
                y = forward()
            verbose.off()
            return
        y = forward()
        if grad is None:
            grad = torch.ones_like(y)
        if measured:
            verbose.on()
        with prof_range():
            y.backward(grad)
        verbose.off()

    class NoRange:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    for _ in range(a.warmup):
        one(False, NoRange)

    prof = None
    rng = NoRange
    if trace or a.torch_trace:
        from torch.autograd.profiler import profile, record_function

        prof = profile(record_shapes=True, with_flops=True)
        prof.__enter__()
        rng = lambda: record_function(MEASURED)  # noqa: E731
    times = []
    for _ in range(a.iters):
        t0 = time.perf_counter()
        one(True, rng)
        times.append(time.perf_counter() - t0)
    if prof is not None:
        disable = getattr(torch.autograd, "_disable_profiler", None)
        if a.torch_trace or disable is None:
            prof.__exit__(None, None, None)
            if a.torch_trace:
                prof.export_chrome_trace(a.torch_trace)
            events = function_events(prof.function_events) if trace else None
        else:
            events = raw_events(disable())
        if trace:
            write_trace(trace, events, a.precision, torch.__version__)
    return sum(times) / len(times)


def main(argv):
    a, points = parse_args(argv)
    import torch

    if a.check:
        print("torch %s mkldnn %s bf16 %s" % (torch.__version__, torch.backends.mkldnn.is_available(),
                                              bf16_supported(torch)))
        return 0
    if a.threads:
        torch.set_num_threads(a.threads)
    if a.precision == "bf16" and not bf16_supported(torch):
        print("torch-client: error: this torch has no bf16 on the CPU", file=sys.stderr)
        return 1
    progress = os.fdopen(a.progress_fd, "w", buffering=1) if a.progress_fd >= 0 else None
    for i, q in enumerate(points):
        trace = os.path.join(a.trace_dir, "trace-%d.json" % i) if a.trace_dir else a.trace
        mean = run_point(q, torch, trace)
        sys.stdout.flush()
        print("torch-client: torch %s op=%s precision=%s pass=%s batch=%d iters=%d mean_ms=%.4f"
              % (torch.__version__, q.op, q.precision, q.pass_, q.batch, q.iters, 1e3 * mean))
        sys.stdout.flush()
        if progress:
            progress.write("%d\n" % i)
    if progress:
        progress.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
