#!/usr/bin/python3
"""rooftime's GPU study client for PyTorch: CUDA eager Conv2D and LSTM over the points of a plan.

`rooftime study --gpu` writes a plan (rooftime-study-gpu-plan/1, docs/gpu-measure.md) and runs
`PYTHON scripts/study-gpu-torch.py --plan PLAN.json` under its CUPTI collector; each point's
kernels are tagged through `rooftime_cupti_mark` (ROOFTIME_CUPTI_LIB; unset: unmarked).

- conv2d: nn.Conv2d (padding kernel // 2, bias), passes forward, backward-data and
  backward-weights, the two backward passes split as scripts/torch-client.py splits them: one
  aten::convolution_backward with output_mask (input gradient alone; weight and bias gradients
  alone). Variant channels_last: module and tensors in torch.channels_last.
- lstm: nn.LSTM(batch_first=True), passes forward and backward (autograd's backward of the
  output; the forward it needs runs unmarked before it). Variant graphs: the module through
  torch.cuda.make_graphed_callables, the forward and the backward each one CUDA graph replayed
  on static inputs: one launch per pass instead of one per kernel, the overhead bound lifted.
- attention, mlp, decode (the transformer study, inference under torch.no_grad, pass forward):
  attention over q, k, v [batch, heads, seq, head_dim] (causal or not), the MLP over [tokens,
  hidden] (GELU; gated: silu(gate) * up), one decode step of one layer with KV caches [batch,
  heads, cache + 1, head_size] (xformer_steps). Tensors and modules in the precision's dtype
  (fp16, bf16; fp32 and tf32 in float32). Each point runs eager, then under CUDA Graphs (the step
  captured once and replayed: marks with variant "graphs", or "<variant>_graphs"), in one process.
  Variant "" runs the unfused math (matmul, softmax, matmul); variant sdpa runs
  scaled_dot_product_attention under each of its back ends, flash, efficient and math (marks with
  variant sdpa_flash, sdpa_efficient, sdpa_math), a back end that cannot run the point (flash in
  fp32) skipped with a line on stderr.
- precision fp32: TF32 off (torch.backends.cuda.matmul.allow_tf32 and cudnn.allow_tf32); tf32:
  both on; fp16 and bf16: torch.autocast("cuda", float16 / bfloat16) over fp32 parameters (the
  split conv backward passes take the autocast casts of input, weights and gradient, made before
  the measured iterations, as autograd's backward would).

Per point and pass: a mark with pass=warmup, `warmup` iterations, a mark with the pass, `iters`
iterations, then an empty mark; the device is synchronized before each mark. stdout: one line per
point and pass, `point K/TOTAL OP PRECISION PASS batch=... ...`. With "check" in the plan, first
the forward conv2d of each check point on the deterministic inputs (study_gpu_common.py) is written
to DIR/pytorch-<precision>-<variant or 'plain'>-<index>.f32 for rooftime's reference to compare.

Exit 0 done; 2 bad plan (one line: file and field); 3 torch or a CUDA device missing (one line on
stderr, e.g. `torch: no CUDA device (torch.cuda.is_available() is False)`).
"""
import contextlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import study_gpu_common as common  # noqa: E402

XFORMER = ("attention", "mlp", "decode")
VARIANTS = {"": ("conv2d", "lstm") + XFORMER, "channels_last": ("conv2d",), "graphs": ("lstm",),
            "sdpa": ("attention", "decode")}
SDPA_BACKENDS = ("flash", "efficient", "math")
DTYPES = {"fp32": "float32", "tf32": "float32", "fp16": "float16", "bf16": "bfloat16"}
AMP = {"fp16": "float16", "bf16": "bfloat16"}


def import_torch(device):
    """torch with a CUDA device `device`, or Missing with the one line."""
    try:
        import torch
    except ImportError as e:
        raise common.Missing("torch: cannot import torch (%s)" % e)
    if not torch.cuda.is_available():
        raise common.Missing("torch: no CUDA device (torch.cuda.is_available() is False)")
    n = torch.cuda.device_count()
    if device >= n:
        raise common.Missing("torch: no CUDA device %d (torch sees %d)" % (device, n))
    return torch


def set_precision(torch, precision):
    tf32 = precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    if precision == "bf16" and not torch.cuda.is_bf16_supported():
        raise common.Missing("torch: this GPU has no bf16 (torch.cuda.is_bf16_supported() is "
                             "False)")


def autocast(torch, precision, cache=True):
    if precision not in AMP:
        return contextlib.nullcontext()
    return torch.autocast("cuda", dtype=getattr(torch, AMP[precision]), cache_enabled=cache)


def det_values(torch, i, seed, div):
    """The deterministic values (study_gpu_common.py) at the int64 indexes i: float32, CPU."""
    h = (((i * common.HASH) & 0xFFFFFFFF) + seed) & 0xFFFFFFFF  # int64 wraps: low bits kept
    return ((h.to(torch.float64) / 4294967296.0 - 0.5) / div).to(torch.float32)


def det_tensor(torch, shape, seed, div):
    """The deterministic values of a tensor of shape, by its linear (row-major) index."""
    n = 1
    for s in shape:
        n *= s
    return det_values(torch, torch.arange(n, dtype=torch.int64), seed, div).reshape(shape)


def check_output(torch, point, precision, variant, device):
    """The forward conv2d of one check point on the deterministic inputs: NCHW float32 on the CPU.
    device "cpu" runs it there (fp32 only): the tests' path."""
    n, c, h = point["batch"], point["channels"], point["size"]
    f, k, s = point["filters"], point["kernel"], point["stride"]
    x = det_tensor(torch, (n, c, h, h), common.X_SEED, 1.0)
    w = det_tensor(torch, (f, c, k, k), common.W_SEED, common.weight_div(c, k))
    conv = torch.nn.Conv2d(c, f, k, stride=s, padding=k // 2, bias=False)
    with torch.no_grad():
        conv.weight.copy_(w)
    conv = conv.to(device)
    x = x.to(device)
    if variant == "channels_last":
        conv = conv.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    with torch.no_grad(), autocast(torch, precision):
        y = conv(x)
    return y.float().contiguous(memory_format=torch.contiguous_format).cpu()


def write_check(torch, plan, device):
    for i, point in enumerate(plan["check"]["points"]):
        y = check_output(torch, point, plan["precision"], plan["variant"], device)
        name = common.check_name("pytorch", plan["precision"], plan["variant"], i)
        common.write_f32(os.path.join(plan["check"]["dir"], name), y.flatten().tolist())
        print("check %d/%d written: %s" % (i + 1, len(plan["check"]["points"]), name), flush=True)


def conv_steps(torch, plan, point, dev):
    """{pass: (before, step)}: before() runs unmarked ahead of each step (nothing for conv2d)."""
    n, c, h = point["batch"], point["channels"], point["size"]
    f, k, s = point["filters"], point["kernel"], point["stride"]
    pad = k // 2
    torch.manual_seed(0)
    model = torch.nn.Conv2d(c, f, k, stride=s, padding=pad).to(dev)
    x = torch.randn(n, c, h, h, device=dev)
    if plan["variant"] == "channels_last":
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    with torch.no_grad(), autocast(torch, plan["precision"]):
        y = model(x)
    # what autocast hands convolution_backward: input, weights and gradient in its dtype
    dtype = y.dtype
    xs, ws = x.to(dtype), model.weight.detach().to(dtype)
    grad = torch.ones_like(y)

    def forward():  # as in training (autograd on), as scripts/torch-client.py runs it
        with autocast(torch, plan["precision"]):
            model(x)

    def split(mask):
        def step():
            with torch.no_grad():
                torch.ops.aten.convolution_backward(grad, xs, ws, [f], [s, s], [pad, pad], [1, 1],
                                                    False, [0, 0], 1, mask)
        return step

    return {"forward": (None, forward),
            "backward-data": (None, split([True, False, False])),
            "backward-weights": (None, split([False, True, True]))}


def lstm_steps(torch, plan, point, dev):
    """{pass: (before, step)}: backward's before() is the forward it differentiates (unmarked)."""
    b, t, feat, hid = point["batch"], point["seq"], point["features"], point["hidden"]
    torch.manual_seed(0)

    class Out(torch.nn.Module):
        """nn.LSTM's output sequence alone (a graphed callable returns tensors)."""

        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(feat, hid, batch_first=True)

        def forward(self, x):
            return self.lstm(x)[0]

    model = Out().to(dev)
    x = torch.randn(b, t, feat, device=dev, requires_grad=True)
    prec = plan["precision"]
    graphs = plan["variant"] == "graphs"
    if graphs:
        # static inputs: x is the graph's input buffer; autocast as at capture, its cache off
        try:
            with autocast(torch, prec, cache=False):
                model = torch.cuda.make_graphed_callables(model, (x,))
        except Exception as e:  # noqa: BLE001 - any failure: this torch cannot graph nn.LSTM
            raise common.Missing("torch: cannot capture nn.LSTM in a CUDA graph "
                                 "(torch.cuda.make_graphed_callables): %s" % str(e).splitlines()[0])
    state = {}

    def run_forward():
        with autocast(torch, prec, cache=not graphs):
            return model(x)

    def forward():  # as in training: autograd on, as scripts/torch-client.py runs it
        run_forward()

    def before_backward():
        y = run_forward()
        if "grad" not in state:
            state["grad"] = torch.ones_like(y)
        state["y"] = y

    def backward():
        state.pop("y").backward(state["grad"])

    return {"forward": (None, forward), "backward": (before_backward, backward)}


def sdpa_context(torch, backend):
    """A context that limits scaled_dot_product_attention to one back end (torch 2.3 and later:
    torch.nn.attention.sdpa_kernel; 2.0 to 2.2: torch.backends.cuda.sdp_kernel)."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel

        names = {"flash": "FLASH_ATTENTION", "efficient": "EFFICIENT_ATTENTION", "math": "MATH"}
        return sdpa_kernel(getattr(SDPBackend, names[backend]))
    except ImportError:
        return torch.backends.cuda.sdp_kernel(enable_flash=backend == "flash",
                                              enable_mem_efficient=backend == "efficient",
                                              enable_math=backend == "math")


def xformer_body(torch, plan, point, dev, attend):
    """The forward of one transformer point (no_grad): attend(q, k, v, causal) is its attention."""
    F = torch.nn.functional
    dtype = getattr(torch, DTYPES[plan["precision"]])
    torch.manual_seed(0)

    def linear(n_in, n_out):
        return torch.nn.Linear(n_in, n_out, bias=False).to(device=dev, dtype=dtype)

    def randn(*shape):
        return torch.randn(*shape, device=dev, dtype=dtype)

    if plan["op"] == "attention":
        b, h, n, d = point["batch"], point["heads"], point["seq"], point["head_dim"]
        q, k, v = randn(b, h, n, d), randn(b, h, n, d), randn(b, h, n, d)
        causal = bool(point["causal"])
        return lambda: attend(q, k, v, causal)
    if plan["op"] == "mlp":
        x = randn(point["tokens"], point["hidden"])
        up, down = linear(point["hidden"], point["ffn"]), linear(point["ffn"], point["hidden"])
        gate = linear(point["hidden"], point["ffn"]) if point["gated"] else None
        return lambda: down(F.silu(gate(x)) * up(x) if gate is not None else F.gelu(up(x)))
    b, d, h, n = point["batch"], point["hidden"], point["heads"], point["cache"] + 1
    hd = d // h  # a multiple of the heads: the plan's check
    x, kc, vc = randn(b, d), randn(b, h, n, hd), randn(b, h, n, hd)
    qkv, out = linear(d, 3 * d), linear(d, d)
    up, down = linear(d, point["ffn"]), linear(point["ffn"], d)

    def step():
        q, k, v = qkv(x).view(b, 3, h, hd).unbind(1)
        kc[:, :, n - 1] = k
        vc[:, :, n - 1] = v
        o = attend(q.unsqueeze(2), kc, vc, False)
        return down(F.gelu(up(out(o.reshape(b, d)))))
    return step


def math_attention(torch):
    import math

    def attend(q, k, v, causal):
        s = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
        if causal:
            n = q.shape[-2]
            mask = torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1)
            s = s.masked_fill(mask, float("-inf"))
        return torch.matmul(s.softmax(-1), v)
    return attend


def graphed(torch, fn):
    """fn captured in a CUDA graph once (after two warm-up calls on a side stream); its replay."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g.replay


def xformer_steps(torch, plan, point, dev):
    """[(variant, step)] of one transformer point: the plan's variant's attention (the unfused
    math, or each SDPA back end that runs), eager and, on a CUDA device, under CUDA Graphs."""
    F = torch.nn.functional
    if plan["variant"] == "sdpa":
        if not hasattr(F, "scaled_dot_product_attention"):
            raise common.Missing("torch: torch %s has no scaled_dot_product_attention (torch 2.0 "
                                 "and later)" % torch.__version__)
        kinds = [("sdpa_" + b, b) for b in SDPA_BACKENDS]
    else:
        kinds = [("", None)]
    steps = []
    for name, backend in kinds:
        if backend is None:
            attend = math_attention(torch)
        else:
            def attend(q, k, v, causal, backend=backend):
                with sdpa_context(torch, backend):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        body = xformer_body(torch, plan, point, dev, attend)

        def step(body=body):
            with torch.no_grad():
                body()
        try:
            step()  # a back end that cannot run this point says so here
        except RuntimeError as e:
            print("note: %s %s: %s skipped: %s" % (plan["op"], plan["precision"], name,
                                                  str(e).splitlines()[0]), file=sys.stderr)
            continue
        steps.append((name, step))
        if dev.type == "cuda":
            steps.append((name + "_graphs" if name else "graphs", graphed(torch, step)))
    return steps


def xformer_sweep(torch, plan, marks, dev):
    """Every point of a transformer plan, each of its steps marked with its variant."""
    total = len(plan["points"])
    for k, point in enumerate(plan["points"]):
        common.progress(k + 1, total, plan, "forward", point)
        for variant, step in xformer_steps(torch, plan, point, dev):
            vplan = dict(plan, variant=variant)
            marks.mark(common.mark_tags("pytorch", vplan, "warmup", point))
            for _ in range(plan["warmup"]):
                step()
            marks.mark(common.mark_tags("pytorch", vplan, "forward", point))
            for _ in range(plan["iters"]):
                step()
            marks.mark("")


def sweep(torch, plan, marks, dev):
    """Every point and pass of the plan on dev (the tests run fp32 on the CPU), marked."""
    if plan["op"] in XFORMER:
        return xformer_sweep(torch, plan, marks, dev)
    total = len(plan["points"]) * len(plan["passes"])
    k = 0
    for point in plan["points"]:
        steps = (conv_steps if plan["op"] == "conv2d" else lstm_steps)(torch, plan, point, dev)
        for pass_ in plan["passes"]:
            k += 1
            common.progress(k, total, plan, pass_, point)
            before, step = steps[pass_]
            marks.mark(common.mark_tags("pytorch", plan, "warmup", point))
            for _ in range(plan["warmup"]):
                if before:
                    before()
                step()
            tags = common.mark_tags("pytorch", plan, pass_, point)
            if before is None:
                marks.mark(tags)
                for _ in range(plan["iters"]):
                    step()
            else:
                for _ in range(plan["iters"]):
                    marks.mark("")
                    before()
                    marks.mark(tags)
                    step()
            marks.mark("")


def run(plan_path):
    plan = common.load_plan(plan_path, "pytorch", VARIANTS)
    torch = import_torch(plan["device"])
    torch.cuda.set_device(plan["device"])
    set_precision(torch, plan["precision"])
    marks = common.Marks(torch.cuda.synchronize)
    if plan["check"] is not None:
        if plan["op"] == "conv2d":
            write_check(torch, plan, torch.device("cuda", plan["device"]))
        else:
            print("note: the check is a conv2d forward; not run for an lstm plan", file=sys.stderr)
    sweep(torch, plan, marks, torch.device("cuda", plan["device"]))
    return 0


if __name__ == "__main__":
    sys.exit(common.run_main("study-gpu-torch", run, sys.argv[1:]))
