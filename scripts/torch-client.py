#!/usr/bin/python3
"""rooftime's PyTorch client: runs conv2d or nn.LSTM on the CPU at the paper's shapes, or a transformer
layer's attention, MLP or decode step, to be profiled.

Run it under `rooftime profile -- /usr/bin/python3 scripts/torch-client.py ...` (oneDNN verbose
records) or with --trace FILE (a PyTorch profiler chrome trace for `rooftime import torch`).
Only the measured iterations of the chosen pass are recorded: when ONEDNN_VERBOSE/DNNL_VERBOSE is
set, oneDNN verbose output is switched off for set-up and warm-up and on around each measured pass;
the trace marks each measured pass with a "rooftime:measured" range.

`rooftime study` runs several sweep points in one process (python and torch take a second or two
to start): each --point KEY=VALUE,... overrides the shape options for one point, --trace-dir DIR
receives DIR/trace-<i>.json per point, and --progress-fd N gets the line "<i>" once point i's trace
is written. With --go-fd M the measured iterations of point i > 0 wait for one line on M, which
rooftime writes once it has read point i-1's trace: that import then overlaps the next point's
set-up and warm-up, never its measured iterations. With --onednn-dir DIR each point then runs its
pass once more, untimed and unrecorded, with oneDNN verbose output on and the process's standard
output sent to DIR/onednn-<i>.log for that pass alone: the primitives the pass ran (their
implementations say which unit computed), kept out of the measured iterations, whose times
verbose printing would lengthen.
"""
import argparse
import json
import os
import sys
import time


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--op", choices=["conv2d", "lstm"] + XFORMER_OPS, default="conv2d")
    p.add_argument("--precision", choices=["fp32", "bf16"], default="fp32")
    p.add_argument("--pass", dest="pass_", default="forward",
                   choices=["forward", "backward", "backward-data", "backward-weights"],
                   help="backward: torch's autograd backward; conv2d backward-data and "
                        "backward-weights: aten::convolution_backward for the input gradient "
                        "alone, or the weight and bias gradients alone (output_mask)")
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
    # attention, mlp, decode (the transformer study's defaults)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--head_dim", type=int, default=64)
    p.add_argument("--causal", type=int, default=1, choices=[0, 1])
    p.add_argument("--tokens", type=int, default=128)
    p.add_argument("--ffn", type=int, default=4096)
    p.add_argument("--gated", type=int, default=0, choices=[0, 1])
    p.add_argument("--cache", type=int, default=128, help="decode: the KV cache's tokens")
    p.add_argument("--attention", choices=["math", "sdpa"], default="math",
                   help="attention and decode: the unfused math or scaled_dot_product_attention")
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
    p.add_argument("--go-fd", type=int, default=-1, metavar="M",
                   help="before the measured iterations of each point after the first, wait for "
                        "one line on file descriptor M (the reader of the previous trace is done "
                        "with the cores)")
    p.add_argument("--onednn-dir", metavar="DIR",
                   help="after each point's measured iterations, run its pass once more with "
                        "oneDNN verbose output on, its standard output into DIR/onednn-<i>.log "
                        "(untimed, unrecorded: what rooftime joins to the trace's operators)")
    p.add_argument("--runner", metavar="FILE",
                   help="rooftime's profile --torch runner (data/torch/runner/sitecustomize.py): "
                        "write --trace/--trace-dir with it, as `rooftime profile --torch` does "
                        "(types, concrete arguments: what the cost model needs for bytes)")
    p.add_argument("--ops", metavar="FILE",
                   help="with --runner: the cost model (data/torch/ops.json) naming the "
                        "concrete arguments to record")
    a = p.parse_args(argv)
    if a.ops and not a.runner:
        p.error("--ops needs --runner")
    if a.torch_trace and (a.trace or a.trace_dir):
        p.error("--torch-trace is torch's own export: give it without --trace and --trace-dir")
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
        if q.pass_ in ("backward-data", "backward-weights") and q.op != "conv2d":
            p.error("--pass %s is a conv2d pass" % q.pass_)
        if q.op in XFORMER_OPS and q.pass_ != "forward":
            p.error("--op %s runs the forward pass only (inference)" % q.op)
        for name in ("batch", "input", "channels", "filters", "kernel", "stride", "seq",
                     "features", "hidden", "iters", "heads", "head_dim", "tokens", "ffn"):
            if getattr(q, name) < 1:
                p.error("--%s must be at least 1" % name)
        if q.causal not in (0, 1) or q.gated not in (0, 1):
            p.error("--causal and --gated take 0 or 1")
        if q.cache < 0:
            p.error("--cache must be at least 0")
        if q.op == "decode" and q.hidden % q.heads:
            p.error("decode: --hidden %d is not a multiple of --heads %d" % (q.hidden, q.heads))
        if q.padding is not None and q.padding < 0:
            p.error("--padding must be at least 0")
        points.append(q)
    if a.warmup < 0:
        p.error("--warmup must be at least 0")
    return a, points


SHAPE_KEYS = ("batch", "input", "channels", "filters", "kernel", "stride", "padding", "seq",
              "features", "hidden", "heads", "head_dim", "causal", "tokens", "ffn", "gated", "cache")
XFORMER_OPS = ["attention", "mlp", "decode"]


def xformer_forward(a, torch, dtype):
    """The forward of a transformer op at point a, under torch.no_grad (inference)."""
    import math

    F = torch.nn.functional
    sdpa = a.attention == "sdpa"
    if sdpa and not hasattr(F, "scaled_dot_product_attention"):
        raise SystemExit("torch-client: error: torch %s has no scaled_dot_product_attention "
                         "(torch 2.0 and later)" % torch.__version__)

    def linear(n_in, n_out):
        return torch.nn.Linear(n_in, n_out, bias=False).to(dtype)

    if a.op == "attention":
        shape = (a.batch, a.heads, a.seq, a.head_dim)
        q, k, v = (torch.randn(*shape, dtype=dtype) for _ in range(3))
        scale = 1.0 / math.sqrt(a.head_dim)
        mask = torch.ones(a.seq, a.seq, dtype=torch.bool).triu(1) if a.causal else None

        def attend():
            if sdpa:
                return F.scaled_dot_product_attention(q, k, v, is_causal=bool(a.causal))
            s = torch.matmul(q, k.transpose(-2, -1)) * scale
            if mask is not None:
                s = s.masked_fill(mask, float("-inf"))
            return torch.matmul(s.softmax(-1), v)
        body = attend
    elif a.op == "mlp":
        x = torch.randn(a.tokens, a.hidden, dtype=dtype)
        up, down = linear(a.hidden, a.ffn), linear(a.ffn, a.hidden)
        gate = linear(a.hidden, a.ffn) if a.gated else None

        def body():
            h = F.silu(gate(x)) * up(x) if gate is not None else F.gelu(up(x))
            return down(h)
    else:
        b, heads, d = a.batch, a.heads, a.hidden
        hd, n = d // heads, a.cache + 1
        x = torch.randn(b, d, dtype=dtype)
        qkv, out = linear(d, 3 * d), linear(d, d)
        up, down = linear(d, a.ffn), linear(a.ffn, d)
        kc = torch.randn(b, heads, n, hd, dtype=dtype)
        vc = torch.randn(b, heads, n, hd, dtype=dtype)
        scale = 1.0 / math.sqrt(hd)

        def body():
            q, k, v = qkv(x).view(b, 3, heads, hd).unbind(1)
            kc[:, :, n - 1] = k
            vc[:, :, n - 1] = v
            q = q.unsqueeze(2)
            if sdpa:
                o = F.scaled_dot_product_attention(q, kc, vc)
            else:
                o = torch.matmul((torch.matmul(q, kc.transpose(-2, -1)) * scale).softmax(-1), vc)
            return down(F.gelu(up(out(o.reshape(b, d)))))

    def forward():
        with torch.no_grad():
            return body()
    return forward


def bf16_supported(torch):
    """bf16 on the CPU: needs the dtype and a kernel that runs; try a tiny conv."""
    try:
        x = torch.ones(1, 1, 3, 3, dtype=torch.bfloat16)
        w = torch.ones(1, 1, 1, 1, dtype=torch.bfloat16)
        torch.nn.functional.conv2d(x, w)
        return True
    except Exception:  # noqa: BLE001 - any failure means "not supported"
        return False


def verbose_setter(torch):
    """torch's switch of oneDNN verbose output (torch.backends.mkldnn.verbose's), or None."""
    return getattr(getattr(torch._C, "_verbose", None), "mkldnn_set_verbose", None)


class OnednnVerbose:
    """Switch oneDNN verbose output on only around measured work, if the caller asked for it."""

    def __init__(self, torch):
        wanted = any(os.environ.get(v, "0") not in ("", "0") for v in ("ONEDNN_VERBOSE", "DNNL_VERBOSE"))
        setter = verbose_setter(torch)
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


class OnednnLog:
    """oneDNN verbose output on around one pass, the process's standard output (where oneDNN
    prints) sent to a file meanwhile: the untimed pass of --onednn-dir. A torch without the
    switch writes an empty file."""

    def __init__(self, torch, path):
        self.setter = verbose_setter(torch)
        self.path = path
        self.saved = None
        open(path, "w").close()

    def on(self):
        sys.stdout.flush()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        self.saved = os.dup(1)
        os.dup2(fd, 1)
        os.close(fd)
        if self.setter:
            self.setter(1)

    def off(self):
        if self.saved is None:
            return
        if self.setter:
            self.setter(0)
        import ctypes

        ctypes.CDLL(None).fflush(None)  # what oneDNN printed through C's stdout, to the file
        sys.stdout.flush()
        os.dup2(self.saved, 1)
        os.close(self.saved)
        self.saved = None


MEASURED = "rooftime:measured"


def load_runner(path):
    """rooftime's profile --torch runner, loaded by its path (its start-up part runs only as
    sitecustomize): the trace writer of `rooftime profile --torch`, so that the study's traces
    carry the same types and concrete arguments, and so the same bytes."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("rooftime_runner", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def default_runner():
    """The runner next to this script: the source tree's data/torch/runner or the installed
    share/rooftime/torch/runner."""
    here = os.path.dirname(os.path.abspath(__file__))
    for rel in (("..", "data", "torch"), ("..", "torch")):
        d = os.path.join(here, *rel)
        f = os.path.join(d, "runner", "sitecustomize.py")
        if os.path.isfile(f):
            return f, os.path.join(d, "ops.json")
    return None, None


class NoRange:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def wait_go(fd, i):
    """Read one line from fd: the go-ahead for point i's measured iterations."""
    line = b""
    while not line.endswith(b"\n"):
        chunk = os.read(fd, 64)
        if not chunk:
            raise SystemExit("torch-client: error: the go-ahead for point %d never came "
                             "(file descriptor %d closed)" % (i, fd))
        line += chunk
    if line.strip() != str(i - 1).encode():
        raise SystemExit("torch-client: error: go-ahead '%s' where %d was due"
                         % (line.strip().decode(errors="replace"), i - 1))


def run_point(a, torch, trace, runner, go=None, onednn_log=None):
    """Set up one point, run its warm-up and measured iterations; the mean seconds of a measured
    pass. With trace, the measured ones are recorded and written there. go, when given, is
    called between the warm-up and the measured iterations. With onednn_log (a file), one more
    pass after them, untimed, with oneDNN verbose output into that file."""
    dtype = torch.bfloat16 if a.precision == "bf16" else torch.float32
    torch.manual_seed(0)

    if a.op in XFORMER_OPS:
        forward = xformer_forward(a, torch, dtype)
    elif a.op == "conv2d":
        pad = a.kernel // 2 if a.padding is None else a.padding
        model = torch.nn.Conv2d(a.channels, a.filters, a.kernel, stride=a.stride, padding=pad).to(dtype)
        x = torch.randn(a.batch, a.channels, a.input, a.input, dtype=dtype, requires_grad=True)

        def forward():
            return model(x)

        if a.pass_ in ("backward-data", "backward-weights"):
            # the input gradient, or the weight and bias gradients, as torch's autograd computes
            # them together in one aten::convolution_backward: the same operator with an
            # output_mask, its concrete arguments recorded in the runner's range
            data = a.pass_ == "backward-data"
            mask = [data, not data, not data]
            spec = {"stride": [a.stride] * 2, "padding": [pad] * 2, "dilation": [1, 1],
                    "groups": 1, "output_mask": mask}

            def split_backward(grad):
                with torch.no_grad():
                    return torch.ops.aten.convolution_backward(
                        grad, x, model.weight, [a.filters], [a.stride] * 2, [pad] * 2, [1, 1],
                        False, [0, 0], 1, mask)

            def args_range():
                from torch.autograd.profiler import record_function

                return record_function(runner[0].ARGS + json.dumps(spec)) if runner else NoRange()
    else:
        model = torch.nn.LSTM(a.features, a.hidden, batch_first=True).to(dtype)
        x = torch.randn(a.batch, a.seq, a.features, dtype=dtype, requires_grad=True)

        def forward():
            return model(x)[0]

    measured_verbose = OnednnVerbose(torch)
    grad = None

    def one(measured, prof_range, verbose=measured_verbose):
        nonlocal grad
        if a.pass_ == "forward":
            if measured:
                verbose.on()
            with prof_range():
                y = forward()
            verbose.off()
            return
        # the split conv2d passes take their gradient once: x and the weights never change, and
        # a forward pass in every iteration (outside the measured range) doubled their wall time
        if a.pass_ == "backward" or grad is None:
            y = forward()
            if grad is None:
                grad = torch.ones_like(y)
        if measured:
            verbose.on()
        if a.pass_ == "backward":
            with prof_range():
                y.backward(grad)
        else:
            # the range giving the operator its arguments encloses the measured one: its own
            # operators (record_function's handle) stay outside
            with args_range(), prof_range():
                split_backward(grad)
        verbose.off()

    for _ in range(a.warmup):
        one(False, NoRange)
    if go:
        go()

    prof = None
    rng = NoRange
    if trace or a.torch_trace:
        from torch.autograd.profiler import profile, record_function

        # the runner's options for this torch (shapes, FLOPs), without stacks: the client's own
        # lines say nothing, and 1.13's stacks cost time in the measured iterations
        kw = runner[0].profiler_options() if runner else {"record_shapes": True,
                                                          "with_flops": True}
        kw.pop("with_stack", None)
        kw.pop("with_modules", None)
        prof = profile(**kw)
        prof.__enter__()
        rng = lambda: record_function(MEASURED)  # noqa: E731
    times = []
    for _ in range(a.iters):
        t0 = time.perf_counter()
        one(True, rng)
        times.append(time.perf_counter() - t0)
    if prof is not None:
        if a.torch_trace:
            prof.__exit__(None, None, None)
            prof.export_chrome_trace(a.torch_trace)
        else:
            # the raw events, as the runner reads each torch's (never 1.13's FunctionEvent tree:
            # in Python that takes seconds per 100k events, most of a long LSTM study's time)
            mod, positions = runner
            mod.write_trace(trace, mod.stop(prof), positions, within=MEASURED)
    if onednn_log:
        # the primitives of the same pass, outside the timed and recorded iterations
        one(True, NoRange, OnednnLog(torch, onednn_log))
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
    runner = None
    if (a.trace or a.trace_dir) and not a.torch_trace:
        path, ops = (a.runner, a.ops) if a.runner else default_runner()
        if not path:
            print("torch-client: error: cannot find rooftime's runner (data/torch/runner/"
                  "sitecustomize.py) next to this script: give --runner FILE", file=sys.stderr)
            return 1
        mod = load_runner(path)
        runner = (mod, mod.instrument(torch, ops or "", sources=False))
    progress = os.fdopen(a.progress_fd, "w", buffering=1) if a.progress_fd >= 0 else None
    for i, q in enumerate(points):
        trace = os.path.join(a.trace_dir, "trace-%d.json" % i) if a.trace_dir else a.trace
        go = (lambda i=i: wait_go(a.go_fd, i)) if a.go_fd >= 0 and i > 0 else None
        log = os.path.join(a.onednn_dir, "onednn-%d.log" % i) if a.onednn_dir else None
        mean = run_point(q, torch, trace, runner, go, log)
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
