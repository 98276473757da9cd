"""The GPU study's clients without a GPU (scripts/study-gpu-torch.py, scripts/study-gpu-jax.py):
their plan checks (exit 2, one line naming the file and the field), a missing framework or device
(exit 3, one line), the collector's marks through ctypes, the deterministic inputs of the
correctness check against a plain-Python direct convolution (formula, NCHW layout, the file's
bytes), and the sweep's marks and progress lines run on the CPU. Run by
tests/cli-study-gpu-clients.sh.
"""
import copy
import importlib.util
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import textwrap

import pytest

SRC = os.environ.get("ROOFTIME_SRC") or os.path.join(os.path.dirname(__file__), "..", "..")
SCRIPTS = os.path.join(SRC, "scripts")
CLIENTS = {"pytorch": os.path.join(SCRIPTS, "study-gpu-torch.py"),
           "jax": os.path.join(SCRIPTS, "study-gpu-jax.py")}
sys.path.insert(0, SCRIPTS)
import study_gpu_common as common  # noqa: E402


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def plan_for(framework, op="conv2d", check_dir=None):
    conv = {"tags": {"batch": "2", "filters": "4", "kernel": "3", "stride": "2"},
            "batch": 2, "channels": 3, "size": 8, "filters": 4, "kernel": 3, "stride": 2}
    lstm = {"tags": {"batch": "2", "seq": "3"}, "batch": 2, "seq": 3, "features": 4, "hidden": 5}
    return {"format": "rooftime-study-gpu-plan/1", "framework": framework, "op": op,
            "precision": "fp32", "variant": "jit" if framework == "jax" else "",
            "passes": list(common.PASSES[op]), "warmup": 1, "iters": 2, "device": 0,
            "points": [conv if op == "conv2d" else lstm],
            "check": None if check_dir is None else {
                "dir": check_dir, "points": [{"batch": 1, "channels": 2, "size": 5, "filters": 3,
                                              "kernel": 3, "stride": 1}]}}


def run_client(framework, plan, tmp_path, env_extra=None, fake=None):
    """Run a client on plan (a dict, or text written as is); fake: {module: source} put first on
    PYTHONPATH, a stand-in for a framework."""
    path = tmp_path / "plan.json"
    path.write_text(plan if isinstance(plan, str) else json.dumps(plan))
    env = dict(os.environ)
    env.pop("ROOFTIME_CUPTI_LIB", None)
    if fake:
        d = tmp_path / "fake"
        for mod, text in fake.items():
            (d / mod).mkdir(parents=True, exist_ok=True)
            (d / mod / "__init__.py").write_text(textwrap.dedent(text))
        env["PYTHONPATH"] = str(d) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(env_extra or {})
    p = subprocess.run([sys.executable, CLIENTS[framework], "--plan", str(path)], env=env,
                       capture_output=True, text=True, timeout=300)
    return p, str(path)


# ---- the plan ----

def broken(framework, edit):
    p = plan_for(framework)
    edit(p)
    return p


BAD = [
    ("iters", lambda p: p.pop("iters"), "field 'iters': missing"),
    ("format", lambda p: p.update(format="rooftime-study-gpu-plan/2"), "field 'format': expected"),
    ("size", lambda p: p["points"][0].update(size=-3), "field 'points[0].size': expected a whole "
     "number from 1 to 1048576, got -3"),
    ("kernel", lambda p: p["points"][0].pop("kernel"), "field 'points[0].kernel': missing"),
    ("bool", lambda p: p["points"][0].update(batch=True), "field 'points[0].batch'"),
    ("pass", lambda p: p.update(passes=["forward", "backward"]), "field 'passes'"),
    ("precision", lambda p: p.update(precision="fp8"), "field 'precision'"),
    ("warmup", lambda p: p.update(warmup=-1), "field 'warmup'"),
    ("tags", lambda p: p["points"][0]["tags"].update({"a;b": "1"}), "field 'points[0].tags.a;b'"),
    ("tag value", lambda p: p["points"][0]["tags"].update(kernel="3;x=1"),
     "field 'points[0].tags.kernel'"),
    ("check", lambda p: p.update(check={"dir": "", "points": []}), "field 'check.dir'"),
    ("check point", lambda p: p.update(check={"dir": "/tmp", "points": [{"batch": 1}]}),
     "field 'check.points[0].channels': missing"),
]


@pytest.mark.parametrize("framework", ["pytorch", "jax"])
@pytest.mark.parametrize("case", BAD, ids=[c[0] for c in BAD])
def test_bad_plan_exits_2_naming_file_and_field(framework, case, tmp_path):
    _, edit, want = case
    p, path = run_client(framework, broken(framework, edit), tmp_path)
    assert p.returncode == 2, p.stderr
    assert p.stdout == ""
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert path in lines[0] and want in lines[0], lines[0]


@pytest.mark.parametrize("framework", ["pytorch", "jax"])
def test_plan_other_faults(framework, tmp_path):
    other = "jax" if framework == "pytorch" else "pytorch"
    p, path = run_client(framework, broken(framework, lambda q: q.update(framework=other)),
                         tmp_path)
    assert p.returncode == 2 and "field 'framework'" in p.stderr and path in p.stderr
    p, path = run_client(framework, '{"format": ', tmp_path)
    assert p.returncode == 2 and path + ": not a JSON plan" in p.stderr
    p, path = run_client(framework, "[]", tmp_path)
    assert p.returncode == 2 and "expected an object" in p.stderr
    p = subprocess.run([sys.executable, CLIENTS[framework], "--plan", str(tmp_path / "absent")],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "absent: cannot read the plan" in p.stderr
    p = subprocess.run([sys.executable, CLIENTS[framework]], capture_output=True, text=True)
    assert p.returncode == 2 and "--plan" in p.stderr


def test_variants_per_client(tmp_path):
    p, _ = run_client("pytorch", broken("pytorch", lambda q: q.update(variant="graphs")), tmp_path)
    assert p.returncode == 2 and "applies to lstm, not conv2d" in p.stderr
    p, _ = run_client("jax", broken("jax", lambda q: q.update(variant="channels_last")), tmp_path)
    assert p.returncode == 2 and "field 'variant'" in p.stderr


# ---- a framework or the GPU missing ----

NO_TORCH = {"torch": "raise ImportError('no torch in this test')"}
TORCH_NO_CUDA = {"torch": """
    class cuda:
        @staticmethod
        def is_available():
            return False
    """}
NO_JAX = {"jax": "raise ImportError('no jax in this test')"}
JAX_NO_GPU = {"jax": """
    def devices(kind=None):
        raise RuntimeError('Unknown backend: gpu requested, but no platforms that are instances '
                           'of gpu are present.')
    """}


def test_torch_missing(tmp_path):
    p, _ = run_client("pytorch", plan_for("pytorch"), tmp_path, fake=NO_TORCH)
    assert p.returncode == 3
    assert p.stderr == "torch: cannot import torch (no torch in this test)\n"
    assert p.stdout == ""


def test_torch_without_cuda(tmp_path):
    p, _ = run_client("pytorch", plan_for("pytorch"), tmp_path, fake=TORCH_NO_CUDA)
    assert p.returncode == 3
    assert p.stderr == "torch: no CUDA device (torch.cuda.is_available() is False)\n"


def test_real_torch_without_cuda(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    p, _ = run_client("pytorch", plan_for("pytorch", "lstm"), tmp_path)
    assert p.returncode == 3
    assert p.stderr == "torch: no CUDA device (torch.cuda.is_available() is False)\n"


def test_jax_missing(tmp_path):
    p, _ = run_client("jax", plan_for("jax"), tmp_path, fake=NO_JAX)
    assert p.returncode == 3
    assert p.stderr == "jax: cannot import jax\n"
    if importlib.util.find_spec("jax") is None:  # and this machine's own python, as it is
        p, _ = run_client("jax", plan_for("jax", "lstm"), tmp_path)
        assert p.returncode == 3 and p.stderr == "jax: cannot import jax\n"


def test_jax_without_gpu(tmp_path):
    pytest.importorskip("numpy")
    p, _ = run_client("jax", plan_for("jax"), tmp_path, fake=JAX_NO_GPU)
    assert p.returncode == 3
    assert p.stderr.startswith("jax: no CUDA device (jax.devices('gpu'): Unknown backend")
    assert len(p.stderr.splitlines()) == 1


# ---- the collector's marks ----

def test_marks_unset_and_unloadable():
    calls = []
    m = common.Marks(lambda: calls.append("sync"), environ={})
    m.mark("a=1")
    assert calls == ["sync"]  # synchronized, nothing else
    with pytest.raises(common.Missing, match="cannot use the collector ROOFTIME_CUPTI_LIB="):
        common.Marks(lambda: None, environ={"ROOFTIME_CUPTI_LIB": "/nonexistent/librc.so"})


def test_marks_reach_the_library(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler for a stand-in collector")
    src = tmp_path / "mark.c"
    src.write_text('#include <stdio.h>\n#include <stdlib.h>\n'
                   'int rooftime_cupti_mark(const char *t) {\n'
                   '  FILE *f = fopen(getenv("MARKS_OUT"), "a"); fprintf(f, "%s\\n", t);'
                   ' fclose(f); return t[0] == 0 ? -1 : 0; }\n')
    lib = tmp_path / "libmark.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    out = tmp_path / "marks.txt"
    os.environ["MARKS_OUT"] = str(out)
    try:
        m = common.Marks(lambda: None, environ={"ROOFTIME_CUPTI_LIB": str(lib)})
        p = plan_for("pytorch")
        p["variant"] = "channels_last"
        m.mark(common.mark_tags("pytorch", p, "forward", p["points"][0]))
        m.mark("")  # refused by the stand-in: warned once, not fatal
        m.mark("")
    finally:
        del os.environ["MARKS_OUT"]
    assert out.read_text().splitlines() == [
        "implementation=pytorch;precision=fp32;operation=conv2d;pass=forward;"
        "variant=channels_last;batch=2;filters=4;kernel=3;stride=2", "", ""]
    assert m.warned


# ---- the deterministic inputs and the check's output ----

def test_inputs_worked_by_hand():
    # the same values tests/test-study-gpu-check.c checks on rooftime's side
    assert common.det_value(0, 0, 1.0) == -0.5
    assert common.det_value(1, 0, 1.0) == f32(2654435761 / 2 ** 32 - 0.5)
    assert common.det_value(2, 0, 1.0) == f32(1013904226 / 2 ** 32 - 0.5)  # 2*H = 2^32 + this
    assert common.det_value(3, 12345, 6.0) == f32((3668352332 / 2 ** 32 - 0.5) / 6.0)


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


INDEXES = list(range(64)) + [2 ** 31 - 1, 2 ** 32 - 1, 2 ** 32 + 5, 3 * 2 ** 32 + 17]


def test_torch_generator_matches_formula():
    torch = pytest.importorskip("torch")
    client = load(CLIENTS["pytorch"], "study_gpu_torch")
    t = client.det_values(torch, torch.tensor(INDEXES, dtype=torch.int64), 12345, 7.0)
    assert t.dtype == torch.float32
    for k, i in enumerate(INDEXES):
        assert t[k].item() == common.det_value(i, 12345, 7.0), i
    a = client.det_tensor(torch, (2, 3, 4), 0, 1.0)  # row-major: a[1, 2, 3] is index 23
    assert a[1, 2, 3].item() == common.det_value(23, 0, 1.0)


def test_numpy_generator_matches_formula():
    np = pytest.importorskip("numpy")
    client = load(CLIENTS["jax"], "study_gpu_jax")
    v = client.det_values(np, np.array(INDEXES, dtype=np.uint64), 12345, 7.0)
    assert v.dtype == np.float32
    for k, i in enumerate(INDEXES):
        assert float(v[k]) == common.det_value(i, 12345, 7.0), i
    a = client.det_array(np, (2, 3, 4), 0, 1.0)
    assert a.dtype == np.float32 and float(a[1, 2, 3]) == common.det_value(23, 0, 1.0)


def direct_conv(pt):
    """The check's convolution in plain Python: NCHW input, OIHW weights, padding K // 2."""
    n, c, h = pt["batch"], pt["channels"], pt["size"]
    f, k, s = pt["filters"], pt["kernel"], pt["stride"]
    p, oh = k // 2, common.out_side(pt)
    div = common.weight_div(c, k)
    out = []
    for b in range(n):
        for fo in range(f):
            for oy in range(oh):
                for ox in range(oh):
                    acc = 0.0
                    for ci in range(c):
                        for ky in range(k):
                            for kx in range(k):
                                iy, ix = oy * s - p + ky, ox * s - p + kx
                                if 0 <= iy < h and 0 <= ix < h:
                                    xi = ((b * c + ci) * h + iy) * h + ix
                                    wi = ((fo * c + ci) * k + ky) * k + kx
                                    acc += (common.det_value(xi, 0, 1.0)
                                            * common.det_value(wi, 12345, div))
                    out.append(acc)
    return out


CHECK_POINTS = [{"batch": 2, "channels": 3, "size": 7, "filters": 4, "kernel": 3, "stride": 2},
                {"batch": 1, "channels": 2, "size": 6, "filters": 3, "kernel": 5, "stride": 1},
                {"batch": 1, "channels": 1, "size": 5, "filters": 2, "kernel": 1, "stride": 3}]


@pytest.mark.parametrize("variant", ["", "channels_last"])
def test_torch_check_output_is_the_direct_conv(variant, tmp_path):
    torch = pytest.importorskip("torch")
    client = load(CLIENTS["pytorch"], "study_gpu_torch")
    plan = {"precision": "fp32", "variant": variant,
            "check": {"dir": str(tmp_path), "points": CHECK_POINTS}}
    client.write_check(torch, plan, "cpu")
    for i, pt in enumerate(CHECK_POINTS):
        name = "pytorch-fp32-%s-%d.f32" % (variant or "plain", i)
        data = (tmp_path / name).read_bytes()
        ref = direct_conv(pt)
        assert len(data) == 4 * len(ref)
        got = struct.unpack("<%df" % len(ref), data)
        d2 = sum((a - b) ** 2 for a, b in zip(got, ref))
        r2 = sum(b * b for b in ref)
        assert math.sqrt(d2 / r2) < 1e-6, name
    assert sorted(os.listdir(tmp_path)) == sorted(
        "pytorch-fp32-%s-%d.f32" % (variant or "plain", i) for i in range(3))


def test_write_f32_is_whole_or_nothing(tmp_path):
    path = tmp_path / "x.f32"
    common.write_f32(str(path), [1.0, -2.5])
    assert path.read_bytes() == struct.pack("<2f", 1.0, -2.5)
    with pytest.raises(TypeError):
        common.write_f32(str(path), [1.0, "two"])
    assert path.read_bytes() == struct.pack("<2f", 1.0, -2.5)
    assert os.listdir(tmp_path) == ["x.f32"]


# ---- the sweep on the CPU: marks and progress ----

class Recorder:
    def __init__(self):
        self.tags = []

    def mark(self, tags):
        self.tags.append(tags)


def test_torch_sweep_marks_on_cpu(capsys):
    torch = pytest.importorskip("torch")
    client = load(CLIENTS["pytorch"], "study_gpu_torch")
    conv = plan_for("pytorch")
    conv["variant"] = "channels_last"
    lstm = plan_for("pytorch", "lstm")
    lstm["iters"] = 2
    for plan in (conv, lstm):
        rec = Recorder()
        client.sweep(torch, plan, rec, torch.device("cpu"))
        base = "implementation=pytorch;precision=fp32;operation=%s;pass=" % plan["op"]
        var = ";variant=channels_last" if plan["variant"] else ""
        tags = ";".join("%s=%s" % kv for kv in plan["points"][0]["tags"].items())
        want = []
        for pass_ in plan["passes"]:
            want.append(base + "warmup" + var + ";" + tags)
            if pass_ == "backward":  # the forward it differentiates runs unmarked before each
                want += ["", base + pass_ + var + ";" + tags] * plan["iters"]
            else:
                want.append(base + pass_ + var + ";" + tags)
            want.append("")
        assert rec.tags == want
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("point 1/3 conv2d fp32 forward batch=2 channels=3 size=8 filters=4 "
                      "kernel=3 stride=2 variant=channels_last")
    assert out[3] == "point 1/2 lstm fp32 forward batch=2 seq=3 features=4 hidden=5"
    assert out[4].startswith("point 2/2 lstm fp32 backward ")


def test_plan_round_trip_keeps_tags(tmp_path):
    p = plan_for("jax", "lstm", check_dir=str(tmp_path))
    path = tmp_path / "p.json"
    path.write_text(json.dumps(p))
    got = common.load_plan(str(path), "jax", {"": ("conv2d", "lstm"), "jit": ("conv2d", "lstm")})
    assert got["points"][0]["tags"] == {"batch": "2", "seq": "3"}
    assert got["check"]["points"][0]["tags"] == {}
    assert got["passes"] == ["forward", "backward"]
    q = copy.deepcopy(p)
    q["points"][0]["tags"] = {"k%d" % i: "v" for i in range(28)}
    path.write_text(json.dumps(q))
    with pytest.raises(common.PlanError, match="points\\[0\\].tags"):
        common.load_plan(str(path), "jax", {"jit": ("lstm",)})


# ---- the transformer study's clients (attention, mlp, decode: forward, inference) ----

XFORMER_POINTS = {
    "attention": {"tags": {"seq": "8", "causal": "1"}, "batch": 1, "heads": 2, "seq": 8,
                  "head_dim": 4, "causal": 1},
    "mlp": {"tags": {"tokens": "3", "gated": "1"}, "tokens": 3, "hidden": 4, "ffn": 8, "gated": 1},
    "decode": {"tags": {"batch": "2", "cache": "3"}, "batch": 2, "cache": 3, "hidden": 8,
               "heads": 2, "ffn": 16}}


def xformer_plan(op, variant=""):
    return {"format": "rooftime-study-gpu-plan/1", "framework": "pytorch", "op": op,
            "precision": "fp32", "variant": variant, "passes": ["forward"], "warmup": 1,
            "iters": 2, "device": 0, "points": [copy.deepcopy(XFORMER_POINTS[op])],
            "check": None}


XFORMER_BAD = [
    ("causal", "attention", lambda p: p["points"][0].update(causal=2),
     "field 'points[0].causal': expected a whole number from 0 to 1, got 2"),
    ("heads", "decode", lambda p: p["points"][0].update(hidden=9),
     "field 'points[0].hidden': expected a multiple of heads (2), got 9"),
    ("pass", "mlp", lambda p: p.update(passes=["backward"]), "field 'passes'"),
    ("variant", "mlp", lambda p: p.update(variant="sdpa"), "applies to attention and decode"),
    ("ffn", "mlp", lambda p: p["points"][0].pop("ffn"), "field 'points[0].ffn': missing"),
]


@pytest.mark.parametrize("case", XFORMER_BAD, ids=[c[0] for c in XFORMER_BAD])
def test_xformer_bad_plan_exits_2(case, tmp_path):
    _, op, edit, want = case
    plan = xformer_plan(op)
    edit(plan)
    p, path = run_client("pytorch", plan, tmp_path)
    assert p.returncode == 2, p.stderr
    assert len(p.stderr.splitlines()) == 1 and path in p.stderr and want in p.stderr, p.stderr


def test_xformer_sweep_marks_on_cpu(capsys):
    """Each transformer point eager (no CUDA Graphs without a GPU), one pass, marked."""
    torch = pytest.importorskip("torch")
    client = load(CLIENTS["pytorch"], "study_gpu_torch")
    for op in ("attention", "mlp", "decode"):
        plan = xformer_plan(op)
        rec = Recorder()
        client.sweep(torch, plan, rec, torch.device("cpu"))
        base = "implementation=pytorch;precision=fp32;operation=%s;pass=" % op
        tags = ";".join("%s=%s" % kv for kv in plan["points"][0]["tags"].items())
        assert rec.tags == [base + "warmup;" + tags, base + "forward;" + tags, ""], rec.tags
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "point 1/1 attention fp32 forward batch=1 heads=2 seq=8 head_dim=4 causal=1"
    assert out[2] == "point 1/1 decode fp32 forward batch=2 cache=3 hidden=8 heads=2 ffn=16"


def test_xformer_sdpa_back_ends_on_cpu(capsys):
    """variant sdpa: each back end marked as its own variant (sdpa_flash, sdpa_math ...), one that
    cannot run the point skipped with a line; a torch without SDPA is Missing (exit 3)."""
    torch = pytest.importorskip("torch")
    client = load(CLIENTS["pytorch"], "study_gpu_torch")
    plan = xformer_plan("attention", "sdpa")
    rec = Recorder()
    if not hasattr(torch.nn.functional, "scaled_dot_product_attention"):
        with pytest.raises(common.Missing, match="no scaled_dot_product_attention"):
            client.sweep(torch, plan, rec, torch.device("cpu"))
        return
    client.sweep(torch, plan, rec, torch.device("cpu"))
    variants = {t.split("variant=")[1].split(";")[0] for t in rec.tags if "variant=" in t}
    assert "sdpa_math" in variants and variants <= {"sdpa_flash", "sdpa_efficient", "sdpa_math"}
