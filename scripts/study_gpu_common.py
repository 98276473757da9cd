"""What rooftime's GPU study clients share (scripts/study-gpu-torch.py, scripts/study-gpu-jax.py).

- The plan (`rooftime-study-gpu-plan/1`, written by `rooftime study --gpu`): read and checked here;
  a bad one is one line naming the file and the field (PlanError, exit 2).
- The collector's marks: `rooftime_cupti_mark` of the library named by ROOFTIME_CUPTI_LIB, loaded
  with ctypes (the copy already injected into this process); unset: the client runs unmarked.
- The correctness check's deterministic inputs, u(i, s) = ((i * 2654435761 + s) mod 2^32) / 2^32
  - 0.5: input x[i] = u(i, 0), weights w[j] = u(j, 12345) / sqrt(C*K*K), each computed in float64
  and rounded once to float32, as rooftime's reference (data/gpu/conv-direct.cu) does on the GPU;
  and the output file, DIR/<framework>-<precision>-<variant or 'plain'>-<index>.f32 (NCHW float32
  little-endian), written whole or not at all.
"""
import array
import json
import math
import os
import re
import struct
import sys

PLAN_FORMAT = "rooftime-study-gpu-plan/1"
PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
PASSES = {"conv2d": ("forward", "backward-data", "backward-weights"),
          "lstm": ("forward", "backward"),
          "attention": ("forward",), "mlp": ("forward",), "decode": ("forward",)}
POINT_FIELDS = {"conv2d": ("batch", "channels", "size", "filters", "kernel", "stride"),
                "lstm": ("batch", "seq", "features", "hidden"),
                "attention": ("batch", "heads", "seq", "head_dim", "causal"),
                "mlp": ("tokens", "hidden", "ffn", "gated"),
                "decode": ("batch", "cache", "hidden", "heads", "ffn")}
# fields that take 0 (flags, an empty cache); every other field is at least 1
ZERO_FIELDS = ("causal", "gated", "cache")
# Each size field at most this: far above the paper's sweeps, and a bound on what a plan can ask.
MAX_FIELD = 1 << 20
MAX_ITERS = 1000000
MAX_PLAN = 1 << 24  # characters
MAX_TAGS = 32 - 5  # the collector takes 32 pairs a mark; the client adds five of its own
TAG_KEY = re.compile(r"^[A-Za-z0-9_.-]+$")
HASH = 2654435761
X_SEED, W_SEED = 0, 12345

# exit codes of the clients (docs/gpu-measure.md)
EXIT_PLAN, EXIT_MISSING = 2, 3


class PlanError(Exception):
    """A bad plan: the message is one line naming the file and the field."""


class Missing(Exception):
    """The framework, the GPU or something they need is missing: one line, exit 3."""


def _field(path, where, what, got):
    return PlanError("%s: field '%s': %s, got %s" % (path, where, what, json.dumps(got)))


def _int(path, obj, key, where, lo, hi):
    if key not in obj:
        raise PlanError("%s: field '%s': missing" % (path, where))
    v = obj[key]
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or v > hi:
        raise _field(path, where, "expected a whole number from %d to %d" % (lo, hi), v)
    return v


def _str(path, obj, key, where, choices):
    if key not in obj:
        raise PlanError("%s: field '%s': missing" % (path, where))
    v = obj[key]
    if not isinstance(v, str) or v not in choices:
        raise _field(path, where, "expected one of %s" % ", ".join("'%s'" % c for c in choices), v)
    return v


def _point(path, p, op, where, need_tags):
    if not isinstance(p, dict):
        raise _field(path, where, "expected an object", p)
    out = {k: _int(path, p, k, "%s.%s" % (where, k), 0 if k in ZERO_FIELDS else 1,
                   1 if k in ("causal", "gated") else MAX_FIELD) for k in POINT_FIELDS[op]}
    if op == "decode" and out["hidden"] % out["heads"]:
        raise _field(path, where + ".hidden", "expected a multiple of heads (%d)" % out["heads"],
                     out["hidden"])
    tags = p.get("tags", {}) if not need_tags or "tags" in p else None
    if tags is None:
        raise PlanError("%s: field '%s.tags': missing" % (path, where))
    if not isinstance(tags, dict) or len(tags) > MAX_TAGS:
        raise _field(path, where + ".tags", "expected an object of at most %d strings" % MAX_TAGS,
                     tags)
    for k, v in tags.items():
        if not TAG_KEY.match(k) or not isinstance(v, str) or any(c in v for c in ";\n\r"):
            raise _field(path, "%s.tags.%s" % (where, k),
                         "expected a key of [A-Za-z0-9_.-] and a string without ';' or newline", v)
    out["tags"] = dict(tags)
    return out


def load_plan(path, framework, variants):
    """The plan at path, checked: a dict with every field the clients use. variants: the variant
    names this client runs, each mapped to the ops it applies to."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(MAX_PLAN + 1)
    except (OSError, UnicodeDecodeError) as e:
        raise PlanError("%s: cannot read the plan: %s" % (path, getattr(e, "strerror", None) or e))
    if len(text) > MAX_PLAN:
        raise PlanError("%s: cannot read the plan: larger than %d MiB" % (path, MAX_PLAN >> 20))
    try:
        plan = json.loads(text)
    except ValueError as e:
        raise PlanError("%s: not a JSON plan: %s" % (path, e))
    if not isinstance(plan, dict):
        raise _field(path, "(top)", "expected an object", type(plan).__name__)
    _str(path, plan, "format", "format", (PLAN_FORMAT,))
    _str(path, plan, "framework", "framework", (framework,))
    op = _str(path, plan, "op", "op", tuple(PASSES))
    out = {"framework": framework, "op": op,
           "precision": _str(path, plan, "precision", "precision", PRECISIONS),
           "variant": _str(path, plan, "variant", "variant", tuple(variants))}
    if op not in variants[out["variant"]]:
        raise _field(path, "variant", "the variant '%s' applies to %s, not %s"
                     % (out["variant"], " and ".join(variants[out["variant"]]), op), out["variant"])
    passes = plan.get("passes")
    if (not isinstance(passes, list) or not passes or len(set(map(str, passes))) != len(passes)
            or any(p not in PASSES[op] for p in passes)):
        raise _field(path, "passes", "expected a list of distinct passes of %s (%s)"
                     % (op, ", ".join(PASSES[op])), passes)
    out["passes"] = list(passes)
    out["warmup"] = _int(path, plan, "warmup", "warmup", 0, MAX_ITERS)
    out["iters"] = _int(path, plan, "iters", "iters", 1, MAX_ITERS)
    out["device"] = _int(path, plan, "device", "device", 0, 1023)
    points = plan.get("points")
    if not isinstance(points, list):
        raise _field(path, "points", "expected a list of points", points)
    out["points"] = [_point(path, p, op, "points[%d]" % i, True) for i, p in enumerate(points)]
    check = plan.get("check")
    if check is not None:
        if not isinstance(check, dict):
            raise _field(path, "check", "expected null or an object", check)
        d = check.get("dir")
        if not isinstance(d, str) or not d:
            raise _field(path, "check.dir", "expected a directory name", d)
        cps = check.get("points")
        if not isinstance(cps, list) or not cps:
            raise _field(path, "check.points", "expected a list of conv2d points", cps)
        check = {"dir": d, "points": [_point(path, p, "conv2d", "check.points[%d]" % i, False)
                                      for i, p in enumerate(cps)]}
    out["check"] = check
    return out


def mark_tags(implementation, plan, pass_, point):
    """The mark of one point and pass: implementation, precision, operation, pass, variant (left
    out when empty), then the point's tags, as key=value;..."""
    pairs = [("implementation", implementation), ("precision", plan["precision"]),
             ("operation", plan["op"]), ("pass", pass_)]
    if plan["variant"]:
        pairs.append(("variant", plan["variant"]))
    pairs += list(point["tags"].items())
    return ";".join("%s=%s" % kv for kv in pairs)


def progress(k, total, plan, pass_, point):
    """One line on stdout as a point's pass starts."""
    shape = " ".join("%s=%d" % (f, point[f]) for f in POINT_FIELDS[plan["op"]])
    variant = " variant=%s" % plan["variant"] if plan["variant"] else ""
    print("point %d/%d %s %s %s %s%s" % (k, total, plan["op"], plan["precision"], pass_, shape,
                                         variant), flush=True)


class Marks:
    """rooftime_cupti_mark of the injected collector (ROOFTIME_CUPTI_LIB), or nothing when unset.
    sync: called before each mark (the device's synchronize), so that every kernel launched before
    the mark has its correlation ID below it."""

    def __init__(self, sync, environ=None):
        env = os.environ if environ is None else environ
        self.sync = sync
        self.fn = None
        self.warned = False
        path = env.get("ROOFTIME_CUPTI_LIB", "")
        if path:
            import ctypes

            try:
                lib = ctypes.CDLL(path)
                self.fn = lib.rooftime_cupti_mark
            except (OSError, AttributeError) as e:
                raise Missing("rooftime: cannot use the collector ROOFTIME_CUPTI_LIB=%s: %s"
                              % (path, e))
            self.fn.argtypes = [ctypes.c_char_p]
            self.fn.restype = ctypes.c_int

    def mark(self, tags):
        self.sync()
        if self.fn and self.fn(tags.encode("utf-8")) != 0 and not self.warned:
            self.warned = True
            print("note: rooftime_cupti_mark refused (the collector is not collecting): "
                  "kernels go unmarked", file=sys.stderr)


def det_value(i, seed, div):
    """One deterministic value in plain Python, rounded to float32 (the tests' reference)."""
    v = (((i * HASH + seed) % (1 << 32)) / 4294967296.0 - 0.5) / div
    return struct.unpack("<f", struct.pack("<f", v))[0]


def weight_div(channels, kernel):
    return math.sqrt(channels * kernel * kernel)


def check_name(framework, precision, variant, index):
    return "%s-%s-%s-%d.f32" % (framework, precision, variant or "plain", index)


def out_side(point):
    k = point["kernel"]
    return (point["size"] + 2 * (k // 2) - k) // point["stride"] + 1


def write_f32(path, values):
    """values (an iterable of floats in NCHW order, or bytes already float32 little-endian) to
    path, through a temporary file renamed into place: whole or not at all."""
    data = values if isinstance(values, (bytes, bytearray)) else None
    if data is None:
        a = array.array("f", values)
        if sys.byteorder != "little":
            a.byteswap()
        data = a.tobytes()
    tmp = "%s.tmp%d" % (path, os.getpid())
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def run_main(name, body, argv):
    """The clients' main: --plan FILE, then body(plan_path); PlanError exits 2, Missing 3, each
    with its one line on stderr."""
    import argparse

    p = argparse.ArgumentParser(prog=name, description="rooftime's GPU study client: runs the "
                                "points of a plan (rooftime-study-gpu-plan/1) under the collector")
    p.add_argument("--plan", required=True, metavar="PLAN.json")
    a = p.parse_args(argv)  # a usage error exits 2 with argparse's lines
    try:
        return body(a.plan)
    except PlanError as e:
        print("%s: %s" % (name, e), file=sys.stderr)
        return EXIT_PLAN
    except Missing as e:
        print(str(e), file=sys.stderr)
        return EXIT_MISSING
