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

VARIANTS = {"": ("conv2d", "lstm"), "channels_last": ("conv2d",), "graphs": ("lstm",)}
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


def sweep(torch, plan, marks, dev):
    """Every point and pass of the plan on dev (the tests run fp32 on the CPU), marked."""
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
