#!/usr/bin/python3
"""rooftime's GPU study client for JAX/XLA: jit-compiled Conv2D and LSTM over the points of a plan.

`rooftime study --gpu` writes a plan (rooftime-study-gpu-plan/1, docs/gpu-measure.md) and runs
`PYTHON scripts/study-gpu-jax.py --plan PLAN.json` under its CUPTI collector; each point's kernels
are tagged through `rooftime_cupti_mark` (ROOFTIME_CUPTI_LIB; unset: unmarked). JAX stands in for
the paper's TensorFlow/XLA: every pass is one jax.jit executable.

- conv2d: lax.conv_general_dilated (NCHW input, OIHW weights, padding kernel // 2) plus a bias;
  backward-data is the VJP with respect to the input alone, backward-weights the VJP with respect
  to weights and bias, each one jit whose unused forward output XLA drops: a measured iteration
  runs the backward alone.
- lstm: one layer, batch first, the time loop a lax.scan (gates i, f, g, o as nn.LSTM orders
  them); backward: the pullback of the whole sequence with respect to input and parameters,
  returned by one jit (its forward, unmarked) and applied by another `iters` times.
- precision fp32: lax.Precision.HIGHEST (no TF32 on Ampere and later); tf32: lax.Precision.DEFAULT
  (XLA's TF32 for float32); fp16 and bf16: inputs and parameters cast to float16 / bfloat16.
- variant "jit" (or ""): the same; JAX has no eager mode worth measuring here.

Per point and pass: a mark with pass=warmup, `warmup` iterations (the first also compiles, and
XLA's autotuning kernels fall under it), a mark with the pass, `iters` iterations, an empty mark;
the results are waited for (block_until_ready) before each mark. stdout: one line per point and
pass, `point K/TOTAL OP PRECISION PASS batch=... ...`. With "check" in the plan, first the forward
conv2d of each check point on the deterministic inputs (study_gpu_common.py) is written to
DIR/jax-<precision>-<variant or 'plain'>-<index>.f32.

Exit 0 done; 2 bad plan (one line: file and field); 3 JAX or a CUDA device missing (one line on
stderr: `jax: cannot import jax`, `jax: no CUDA device ...`).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import study_gpu_common as common  # noqa: E402

VARIANTS = {"": ("conv2d", "lstm"), "jit": ("conv2d", "lstm")}
DTYPES = {"fp32": "float32", "tf32": "float32", "fp16": "float16", "bf16": "bfloat16"}


def import_jax(device):
    """jax, numpy and the GPU `device`, or Missing with the one line."""
    # the collector's buffers and the frameworks share the GPU: XLA takes memory as it goes
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    try:
        import jax
        import numpy
    except ImportError:
        raise common.Missing("jax: cannot import jax")
    try:
        gpus = jax.devices("gpu")
    except RuntimeError as e:
        raise common.Missing("jax: no CUDA device (jax.devices('gpu'): %s)"
                             % str(e).splitlines()[0])
    if device >= len(gpus):
        raise common.Missing("jax: no CUDA device %d (jax sees %d)" % (device, len(gpus)))
    return jax, numpy, gpus[device]


class Ops:
    """The plan's precision as JAX sees it: the dtype, the dot/conv precision, the ops."""

    def __init__(self, jax, np, precision):
        from jax import lax

        self.jax, self.np, self.lax = jax, np, lax
        self.dtype = getattr(jax.numpy, DTYPES[precision])
        self.prec = lax.Precision.HIGHEST if precision == "fp32" else lax.Precision.DEFAULT

    def conv(self, x, w, stride, pad):
        return self.lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad), (pad, pad)],
                                             dimension_numbers=("NCHW", "OIHW", "NCHW"),
                                             precision=self.prec)

    def lstm(self, x, p):
        """y (batch, seq, hidden) of one LSTM layer over x (batch, seq, features)."""
        jnp = self.jax.numpy
        hid = p["w_hh"].shape[1]
        b = x.shape[0]

        def cell(carry, xt):
            h, c = carry
            gates = (jnp.dot(xt, p["w_ih"].T, precision=self.prec)
                     + jnp.dot(h, p["w_hh"].T, precision=self.prec) + p["b"])
            i, f, g, o = jnp.split(gates, 4, axis=-1)
            sig = self.jax.nn.sigmoid
            c = sig(f) * c + sig(i) * jnp.tanh(g)
            h = sig(o) * jnp.tanh(c)
            return (h, c), h

        zero = jnp.zeros((b, hid), x.dtype)
        _, ys = self.lax.scan(cell, (zero, zero), jnp.swapaxes(x, 0, 1))
        return jnp.swapaxes(ys, 0, 1)

    def normal(self, key, shape, dev, scale=1.0):
        v = self.jax.random.normal(key, shape, dtype=self.jax.numpy.float32) * scale
        return self.jax.device_put(v.astype(self.dtype), dev)


def det_values(np, i, seed, div):
    """The deterministic values (study_gpu_common.py) at the uint64 indexes i, float32."""
    h = ((i * np.uint64(common.HASH)) + np.uint64(seed)) & np.uint64(0xFFFFFFFF)
    return ((h.astype(np.float64) / 4294967296.0 - 0.5) / div).astype(np.float32)


def det_array(np, shape, seed, div):
    """The deterministic values of an array of shape, by its linear (row-major) index."""
    n = int(np.prod(shape))
    return det_values(np, np.arange(n, dtype=np.uint64), seed, div).reshape(shape)


def write_check(ops, plan, dev):
    jax, np = ops.jax, ops.np
    for idx, pt in enumerate(plan["check"]["points"]):
        c, k = pt["channels"], pt["kernel"]
        x = det_array(np, (pt["batch"], c, pt["size"], pt["size"]), common.X_SEED, 1.0)
        w = det_array(np, (pt["filters"], c, k, k), common.W_SEED, common.weight_div(c, k))
        xd = jax.device_put(x, dev).astype(ops.dtype)
        wd = jax.device_put(w, dev).astype(ops.dtype)
        y = jax.jit(ops.conv, static_argnums=(2, 3))(xd, wd, pt["stride"], k // 2)
        out = np.asarray(y.astype(jax.numpy.float32)).astype("<f4", copy=False)
        name = common.check_name("jax", plan["precision"], plan["variant"], idx)
        common.write_f32(os.path.join(plan["check"]["dir"], name), out.tobytes(order="C"))
        print("check %d/%d written: %s" % (idx + 1, len(plan["check"]["points"]), name),
              flush=True)


def conv_steps(ops, pt, dev, keep):
    """{pass: step}; each step keeps its result in keep["last"] for the wait before a mark."""
    jax = ops.jax
    c, k, s, f = pt["channels"], pt["kernel"], pt["stride"], pt["filters"]
    pad = k // 2
    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    x = ops.normal(keys[0], (pt["batch"], c, pt["size"], pt["size"]), dev)
    w = ops.normal(keys[1], (f, c, k, k), dev, 1.0 / (c * k * k) ** 0.5)
    b = ops.normal(keys[2], (f,), dev, 0.1)

    def forward(x, w, b):
        return ops.conv(x, w, s, pad) + b[None, :, None, None]

    fwd = jax.jit(forward)
    g = jax.numpy.ones_like(fwd(x, w, b))
    # each pullback inside one jit: the forward's output is unused there and XLA drops it, so a
    # measured iteration is the backward alone (the data gradient needs w, the weights' x)
    data = jax.jit(lambda x, w, b, g: jax.vjp(lambda x_: forward(x_, w, b), x)[1](g))
    weights = jax.jit(lambda x, w, b, g: jax.vjp(lambda w_, b_: forward(x, w_, b_), w, b)[1](g))

    def run(fn):
        def step():
            keep["last"] = fn()
        return step

    return {"forward": run(lambda: fwd(x, w, b)),
            "backward-data": run(lambda: data(x, w, b, g)),
            "backward-weights": run(lambda: weights(x, w, b, g))}


def lstm_steps(ops, pt, dev, keep):
    jax = ops.jax
    feat, hid = pt["features"], pt["hidden"]
    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    bound = 1.0 / hid ** 0.5  # nn.LSTM's initial range, as a scale
    x = ops.normal(keys[0], (pt["batch"], pt["seq"], feat), dev)
    p = {"w_ih": ops.normal(keys[1], (4 * hid, feat), dev, bound),
         "w_hh": ops.normal(keys[2], (4 * hid, hid), dev, bound),
         "b": ops.normal(keys[3], (4 * hid,), dev, bound)}
    fwd = jax.jit(ops.lstm)
    y = fwd(x, p)
    g = jax.numpy.ones_like(y)
    # the pullback with respect to input and parameters, its forward run once here (unmarked):
    # jax.vjp's pullback is a pytree (jax.tree_util.Partial) holding the residuals, returned by
    # one jit and applied by another. A JAX whose pullback cannot leave jit gets one executable
    # for both, said on stderr: then the backward's kernels include its forward's.
    try:
        pull = jax.jit(lambda x, p: jax.vjp(ops.lstm, x, p)[1])(x, p)
        apply = jax.jit(lambda pull, g: pull(g))
        apply(pull, g)
        bwd = lambda: apply(pull, g)  # noqa: E731
    except TypeError as e:
        print("note: jax: the LSTM's pullback cannot leave jit (%s): its backward runs with its "
              "forward in one executable" % str(e).splitlines()[0], file=sys.stderr)
        both = jax.jit(lambda x, p, g: jax.vjp(ops.lstm, x, p)[1](g))
        bwd = lambda: both(x, p, g)  # noqa: E731

    def forward():
        keep["last"] = fwd(x, p)

    def backward():
        keep["last"] = bwd()

    return {"forward": forward, "backward": backward}


def sweep(ops, plan, dev, marks, keep):
    total = len(plan["points"]) * len(plan["passes"])
    kth = 0
    for pt in plan["points"]:
        steps = (conv_steps if plan["op"] == "conv2d" else lstm_steps)(ops, pt, dev, keep)
        for pass_ in plan["passes"]:
            kth += 1
            common.progress(kth, total, plan, pass_, pt)
            step = steps[pass_]
            marks.mark(common.mark_tags("jax", plan, "warmup", pt))
            for _ in range(plan["warmup"]):
                step()
            marks.mark(common.mark_tags("jax", plan, pass_, pt))
            for _ in range(plan["iters"]):
                step()
            marks.mark("")


def run(plan_path):
    plan = common.load_plan(plan_path, "jax", VARIANTS)
    jax, np, dev = import_jax(plan["device"])
    ops = Ops(jax, np, plan["precision"])
    keep = {"last": None}

    def wait():
        if keep["last"] is not None:
            jax.tree_util.tree_map(lambda a: a.block_until_ready(), keep["last"])

    marks = common.Marks(wait)
    if plan["check"] is not None:
        if plan["op"] == "conv2d":
            write_check(ops, plan, dev)
        else:
            print("note: the check is a conv2d forward; not run for an lstm plan", file=sys.stderr)
    sweep(ops, plan, dev, marks, keep)
    wait()
    return 0


if __name__ == "__main__":
    sys.exit(common.run_main("study-gpu-jax", run, sys.argv[1:]))
