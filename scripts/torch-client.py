#!/usr/bin/python3
"""rooftime's PyTorch client: runs conv2d or nn.LSTM on the CPU at the paper's shapes, to be profiled.

Run it under `rooftime profile -- /usr/bin/python3 scripts/torch-client.py ...` (oneDNN verbose
records) or with --trace FILE (a PyTorch profiler chrome trace for `rooftime import torch`).
Only the measured iterations of the chosen pass are recorded: when ONEDNN_VERBOSE/DNNL_VERBOSE is
set, oneDNN verbose output is switched off for set-up and warm-up and on around each measured pass;
the trace marks each measured pass with a "rooftime:measured" range.
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
    a = p.parse_args(argv)
    for name in ("batch", "input", "channels", "filters", "kernel", "stride", "seq", "features",
                 "hidden", "iters"):
        if getattr(a, name) < 1:
            p.error("--%s must be at least 1" % name)
    if a.warmup < 0:
        p.error("--warmup must be at least 0")
    return a


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


def write_trace(path, events, precision, version):
    """The profiler's events in the layout of a Kineto trace. Debian's torch 1.13 has no Kineto,
    so torch's own export drops categories, shapes and FLOPs; they are in the events, so write them.
    Operators that record FLOPs (mm, addmm, conv2d ...) run in the model's precision."""
    import json

    type_name = "c10::BFloat16" if precision == "bf16" else "float"
    out = []
    for e in events:
        args = {}
        shapes = getattr(e, "input_shapes", None)
        if shapes and any(shapes):
            args["Input Dims"] = shapes
        flops = getattr(e, "flops", 0) or 0
        if flops > 0:
            args["flops"] = flops
            args["Input type"] = [type_name]
        out.append({"ph": "X", "cat": "user_annotation" if e.name == MEASURED else "cpu_op",
                    "name": e.name, "pid": os.getpid(), "tid": e.thread,
                    "ts": e.time_range.start, "dur": e.time_range.elapsed_us(), "args": args})
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"schemaVersion": 1, "displayTimeUnit": "ms",
                   "traceName": "rooftime torch-client, torch " + version, "traceEvents": out}, f)
        f.write("\n")
    os.replace(tmp, path)


def main(argv):
    a = parse_args(argv)
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
    if a.trace or a.torch_trace:
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
        prof.__exit__(None, None, None)
        if a.torch_trace:
            prof.export_chrome_trace(a.torch_trace)
        if a.trace:
            write_trace(a.trace, prof.function_events, a.precision, torch.__version__)
    sys.stdout.flush()
    print("torch-client: torch %s op=%s precision=%s pass=%s batch=%d iters=%d mean_ms=%.4f"
          % (torch.__version__, a.op, a.precision, a.pass_, a.batch, a.iters, 1e3 * sum(times) / len(times)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
