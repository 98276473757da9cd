"""The importers' options as keywords: the same profile as `rooftime import KIND --OPTION` on the
same input, the command's message for a bad value, a TypeError for a keyword it does not take."""
import json
import os
import re
import subprocess

import pytest

import rooftime

from conftest import run

LSTM = "tests/data/torch-1.13-lstm-forward.json"
CONV = "tests/data/onednn-2.6-torch-conv2d-forward.log"


def imported(rooftime_bin, tmp_path, kind, inputs, args):
    """The profile `rooftime import KIND INPUTS ARGS -o FILE` writes, as a dict."""
    out = str(tmp_path / ("cli-%s.json" % kind))
    run([rooftime_bin, "import", kind] + list(inputs) + args + ["-o", out])
    return json.load(open(out))


def same(p, cli):
    """The profile from Python is the command's: kernels, tags, provenance (inputs, formulas)."""
    d = p.to_dict()
    assert d["kernels"] == cli["kernels"]
    assert d.get("tags") == cli.get("tags")
    assert d.get("identity") == cli.get("identity") and d.get("identity")
    for k in ("inputs", "formulas", "notes"):
        assert d["provenance"].get(k) == cli["provenance"].get(k), k
    return d


def totals(d):
    ks = d["kernels"]
    return len(ks), sum(k["time"] for k in ks), sum(k.get("invocations", 1) for k in ks)


def test_ncu_per_launch_arch_tensor_factor_and_tags(deepcam, rooftime_bin, tmp_path):
    cli = imported(rooftime_bin, tmp_path, "ncu", deepcam,
                   ["--per-launch", "--arch", "sm_80", "--tensor-factor", "256",
                    "--tag", "run=a", "-t", "gpu=v100"])
    p = rooftime.import_ncu(deepcam, per_launch=True, arch="sm_80", tensor_factor=256,
                            tag={"run": "a", "gpu": "v100"})
    d = same(p, cli)
    assert d["tags"] == {"run": "a", "gpu": "v100"}
    # one kernel per launch: many more than the 35 names
    assert totals(d)[0] == 633 and len(rooftime.import_ncu(deepcam)) == 35
    # tags as a list of "key=value", as on the command line
    assert rooftime.import_ncu(deepcam, tag=["run=a", "gpu=v100"]).to_dict()["tags"] == d["tags"]


def test_ncu_metrics_file_and_allow_missing(deepcam, repo, rooftime_bin, tmp_path):
    metrics = os.path.join(repo, "data", "ncu", "metrics.json")
    cli = imported(rooftime_bin, tmp_path, "ncu", deepcam, ["--metrics", metrics, "--allow-missing"])
    same(rooftime.import_ncu(deepcam, metrics=metrics, allow_missing=True), cli)
    with pytest.raises(rooftime.Error, match="nothing.json"):
        rooftime.import_ncu(deepcam, metrics=tmp_path / "nothing.json")


def test_ncu_recipe(deepcam, rooftime_bin, tmp_path):
    """recipe= is --recipe: the seed authors' half-precision FLOPs, named in the profile."""
    cli = imported(rooftime_bin, tmp_path, "ncu", deepcam, ["--recipe", "paper"])
    d = same(rooftime.import_ncu(deepcam, recipe="paper"), cli)
    assert d["provenance"]["notes"]["recipe"] == "paper"
    assert d["provenance"]["formulas"]["flops.fp16"].startswith(
        "sm__sass_thread_inst_executed_op_hadd_pred_on.sum + ")
    nsight = rooftime.import_ncu(deepcam).to_dict()["provenance"]
    assert nsight["notes"]["recipe"] == "nsight"
    assert "4 * sm__sass_thread_inst_executed_op_hfma_pred_on.sum" in nsight["formulas"]["flops.fp16"]
    with pytest.raises(rooftime.Error, match="no recipe 'nosuch'.*nsight, paper"):
        rooftime.import_ncu(deepcam, recipe="nosuch")


def test_torch_within_ops_and_no_cost_model(repo, rooftime_bin, tmp_path):
    src = os.path.join(repo, LSTM)
    for args, kw in ((["--within", "rooftime:measured"], {"within": "rooftime:measured"}),
                     (["--within", "rooftime:measured", "--conv-flops", "window"],
                      {"within": "rooftime:measured", "conv_flops": "window"}),
                     (["--no-cost-model"], {"no_cost_model": True}),
                     (["--threads", "2"], {"threads": 2}),
                     (["--ops", os.path.join(repo, "data", "torch", "ops.json")],
                      {"ops": os.path.join(repo, "data", "torch", "ops.json")})):
        cli = imported(rooftime_bin, tmp_path, "torch", [src], args)
        same(rooftime.import_torch(src, **kw), cli)
    # --within keeps what ran inside the range only (the command says 55 of 56 kernels)
    inside = rooftime.import_torch(src, within="rooftime:measured").to_dict()
    whole = rooftime.import_torch(src).to_dict()
    assert totals(inside)[0] == 55 and totals(whole)[0] == 56
    assert totals(inside)[2] == 621 and totals(whole)[2] == 624
    with pytest.raises(rooftime.Error, match="no-such-range"):
        rooftime.import_torch(src, within="no-such-range")


def test_torch_gpu_trace_gz_and_host(fixtures, rooftime_bin, tmp_path):
    """A GPU run's trace, gzip-compressed as kept: the device profile, and with host=True the host
    operators, as the command writes them; the trace's rank is the profile's."""
    g = os.path.join(fixtures, "torch-gpu")
    if not os.path.isdir(g):
        pytest.skip("no torch-gpu fixtures")
    for name in ("minitoy-mi250-rocm6.trace.json.gz", "sampled-rank0.trace.json.gz"):
        src = os.path.join(g, name)
        for args, kw in (([], {}), (["--host"], {"host": True})):
            cli = imported(rooftime_bin, tmp_path, "torch", [src], args)
            d = same(rooftime.import_torch(src, **kw), cli)
            assert d["source"]["time"] == ("wall" if kw else "device")
    assert d["identity"]["rank"] == 0 and d["identity"]["size"] == 128


def test_table_map_name_column_time_and_no_defaults(fixtures, rooftime_bin, tmp_path):
    t = os.path.join(fixtures, "paper-tables")
    main, ai = os.path.join(t, "conv2d-pt.main.csv"), os.path.join(t, "conv2d-pt.l2-l1-ai.csv")
    args = ["--ai-file", ai, "--time", "wall", "--name-column", "Input Shape", "-m",
            "invocations=Invocations", "--map", "time=CUDA Time"]
    cli = imported(rooftime_bin, tmp_path, "table", [main], args)
    p = rooftime.import_table(main, ai_file=ai, time="wall", name_column="Input Shape",
                              map={"invocations": "Invocations", "time": "CUDA Time"})
    same(p, cli)
    assert p.to_dict() != rooftime.import_table(main, ai_file=ai).to_dict()
    # --no-defaults: only the columns mapped
    args = ["--no-defaults", "-m", "time=CUDA Time", "-m", "flops.total=FLOPs",
            "--name-column", "Input Shape", "--name-column", "Kernel Shape"]
    cli = imported(rooftime_bin, tmp_path, "table", [main], args)
    same(rooftime.import_table(main, no_defaults=True,
                               map=["time=CUDA Time", "flops.total=FLOPs"],
                               name_column=["Input Shape", "Kernel Shape"]), cli)


def test_onednn_conv_flops_and_tag(repo, rooftime_bin, tmp_path):
    src = os.path.join(repo, CONV)
    cli = imported(rooftime_bin, tmp_path, "onednn", [src],
                   ["--conv-flops", "window", "--tag", "pass=fw"])
    p = rooftime.import_onednn(src, conv_flops="window", tag={"pass": "fw"})
    same(p, cli)
    assert p.to_dict()["kernels"] != rooftime.import_onednn(src).to_dict()["kernels"]
    # the threads that ran the kernels, for where their estimated bytes fit
    cli = imported(rooftime_bin, tmp_path, "onednn", [src], ["--threads", "2"])
    p = rooftime.import_onednn(src, threads=2)
    same(p, cli)
    assert p.to_dict()["source"]["threads"] == 2 and p.to_dict()["source"]["bytes"] == "estimated"
    with pytest.raises(rooftime.Error, match="--threads: '0' is not a thread count"):
        rooftime.import_onednn(src, threads=0)


def test_import_kind_is_any_importer_by_name(repo, rooftime_bin, tmp_path):
    """import_kind reaches an importer by the name the library's table gives it, with its
    keywords: one with no function of its own needs no line in this package."""
    src = os.path.join(repo, CONV)
    cli = imported(rooftime_bin, tmp_path, "onednn", [src], ["--threads", "2"])
    same(rooftime.import_kind("onednn", src, threads=2), cli)
    with pytest.raises(rooftime.Error,
                       match=r"import: unknown kind .nvprof. \(ncu, table, onednn, torch or "
                             r"cupti\)"):
        rooftime.import_kind("nvprof", src)
    with pytest.raises(TypeError, match="it takes conv_flops, threads, tag"):
        rooftime.import_kind("onednn", src, within="x")


KHEADER = ("correlation,name,start_ns,end_ns,device,context,stream,graph,grid_x,grid_y,grid_z,"
           "block_x,block_y,block_z,registers,shared_static,shared_dynamic")


def collector_dir(d):
    """A collector directory in the format of docs/import-cupti.md, as tests/cli-cupti.sh writes
    one by hand (a format test: no GPU recording): one trace run, two launches of k."""
    d.mkdir()
    (d / "collector.7.txt").write_text("format=rooftime.cupti/1\nmode=trace\npid=7\n"
                                       "device=Hand GPU\ncc=80\n")
    (d / "kernels.7.csv").write_text(KHEADER + "\n1,k,0,2000,0,1,7,0,1,1,1,32,1,1,8,0,0\n"
                                     "2,k,3000,4000,0,1,7,0,1,1,1,32,1,1,8,0,0\n")
    return d


def test_cupti_per_launch_and_reevaluate(repo, rooftime_bin, tmp_path, monkeypatch):
    d = collector_dir(tmp_path / "dir")
    for args, kw in (([], {}), (["--per-launch", "--tag", "x=1"],
                                {"per_launch": True, "tag": {"x": "1"}})):
        same(rooftime.import_cupti(d, **kw), imported(rooftime_bin, tmp_path, "cupti", [d], args))
    assert len(rooftime.import_cupti(d, per_launch=True)) == 2 == 2 * len(rooftime.import_cupti(d))
    # --reevaluate needs raw images: the command's message
    r = subprocess.run([rooftime_bin, "import", "cupti", str(d), "--reevaluate", "-o",
                        str(tmp_path / "x.json")], capture_output=True, text=True)
    assert r.returncode == 2 and "holds no raw counter images (images.PID.csv)" in r.stderr
    with pytest.raises(rooftime.Error, match=r"holds no raw counter images \(images.PID.csv\)"):
        rooftime.import_cupti(d, reevaluate=True)
    (d / "images.7.csv").write_text("file,kind,context,chip,bytes,fnv1a64\n")
    monkeypatch.setenv("ROOFTIME_CUPTI_LIB", str(tmp_path / "none.so"))
    with pytest.raises(rooftime.Error, match="librooftime-cupti.so not found.*ROOFTIME_CUPTI_LIB"):
        rooftime.import_cupti(d, reevaluate=True)
    fake = os.path.join(os.path.dirname(rooftime._lib._find()), "libcupti-fake-reevaluate.so")
    if not os.path.isfile(fake):
        return
    # the tests' stand-in for the collector's entry point (tests/cupti-fake-reevaluate.c): its
    # rows are read instead of the directory's, as the command reads them
    met = ("sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,"
           "sm__sass_thread_inst_executed_op_fadd_pred_on.sum,"
           "sm__sass_thread_inst_executed_op_fmul_pred_on.sum,"
           "sm__sass_thread_inst_executed_op_ffma_pred_on.sum,dram__bytes.sum")
    (d / "collector.8.txt").write_text("format=rooftime.cupti/1\nmode=counters\npid=8\n"
                                       "device=Hand GPU\ncc=80\nchip=GA100\nmetrics=%s\n" % met)
    (d / "ranges.8.csv").write_text("range,name,%s\n0,k,1000,1e9,0,0,10,100\n"
                                    "1,k,1000,1e9,0,0,10,100\n" % met)
    (d / "fake-ranges.8.csv").write_text("range,name,%s\n0,k,1000,1e9,0,0,30,300\n"
                                         "1,k,1000,1e9,0,0,30,300\n" % met)
    (d / "images.8.csv").write_text("file,kind,context,chip,bytes,fnv1a64\n")
    monkeypatch.setenv("ROOFTIME_CUPTI_LIB", fake)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    cli = imported(rooftime_bin, tmp_path, "cupti", [d], ["--reevaluate"])
    with pytest.warns(UserWarning, match="fake: a warning from the re-evaluation"):
        p = rooftime.import_cupti(d, reevaluate=True)
    same(p, cli)
    assert p.to_dict()["kernels"] != rooftime.import_cupti(d).to_dict()["kernels"]
    assert not [f for f in os.listdir(tmp_path) if f.startswith("rooftime-reevaluate")]


BAD_VALUES = [
    # (call, the command's arguments, the message both give)
    (lambda f: rooftime.import_ncu(f["ncu"], tensor_factor="x"), ["ncu", "--tensor-factor", "x"],
     "--tensor-factor takes a number > 0, not 'x'"),
    (lambda f: rooftime.import_ncu(f["ncu"], tensor_factor=-1), ["ncu", "--tensor-factor", "-1"],
     "--tensor-factor takes a number > 0, not '-1'"),
    (lambda f: rooftime.import_ncu(f["ncu"], tag="novalue"), ["ncu", "--tag", "novalue"],
     "--tag takes key=value, not 'novalue'"),
    (lambda f: rooftime.import_ncu(f["ncu"], arch="sm_x"), ["ncu", "--arch", "sm_x"],
     "--arch takes sm_XX or X.Y, not 'sm_x' (the generations of data/gpu/architectures.json: sm_70, "),
    (lambda f: rooftime.import_ncu(f["ncu"], arch="sm_9"), ["ncu", "--arch", "sm_9"],
     "--arch takes sm_XX or X.Y, not 'sm_9' (the generations of data/gpu/architectures.json: sm_70, "),
    (lambda f: rooftime.import_table(f["table"], map="nothing"), ["table", "--map", "nothing"],
     "--map takes quantity=column, not 'nothing'"),
    (lambda f: rooftime.import_table(f["table"], time="cpu"), ["table", "--time", "cpu"],
     "--time: "),
    (lambda f: rooftime.import_torch(f["torch"], conv_flops="both"),
     ["torch", "--conv-flops", "both"], "--conv-flops: "),
    (lambda f: rooftime.import_onednn(f["onednn"], conv_flops="both"),
     ["onednn", "--conv-flops", "both"], "--conv-flops: "),
]


@pytest.fixture
def inputs(repo, deepcam, fixtures):
    return {"ncu": deepcam[:1], "table": os.path.join(fixtures, "paper-tables", "conv2d-pt.main.csv"),
            "torch": os.path.join(repo, LSTM), "onednn": os.path.join(repo, CONV)}


@pytest.mark.parametrize("call,args,msg", BAD_VALUES, ids=[" ".join(b[1]) for b in BAD_VALUES])
def test_bad_values_give_the_commands_message(inputs, rooftime_bin, tmp_path, call, args, msg):
    kind = args[0]
    src = inputs[kind] if isinstance(inputs[kind], list) else [inputs[kind]]
    r = subprocess.run([rooftime_bin, "import"] + args + src + ["-o", str(tmp_path / "x.json")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and msg in r.stderr
    with pytest.raises(rooftime.Error) as e:
        call(inputs)
    assert msg in str(e.value)
    # the command's message, with the importer named
    line = [x for x in r.stderr.splitlines() if msg in x][0]
    assert line.split("error: ", 1)[-1].split(msg)[0].strip() in str(e.value)


def test_unknown_keywords_and_wrong_types_are_type_errors(inputs):
    with pytest.raises(TypeError, match="'within'"):
        rooftime.import_ncu(inputs["ncu"], within="x")  # a torch option
    with pytest.raises(TypeError, match="'perlaunch'.*per_launch"):
        rooftime.import_ncu(inputs["ncu"], perlaunch=True)
    with pytest.raises(TypeError, match="'ai_file'"):
        rooftime.import_torch(inputs["torch"], ai_file="x")
    with pytest.raises(TypeError, match="per_launch takes True or False"):
        rooftime.import_ncu(inputs["ncu"], per_launch="yes")
    with pytest.raises(TypeError, match="arch takes one value"):
        rooftime.import_ncu(inputs["ncu"], arch=["sm_70", "sm_80"])
    # False and None leave an option out, as not writing it on the command line
    a = rooftime.import_torch(inputs["torch"], no_cost_model=False, within=None).to_dict()
    assert a["kernels"] == rooftime.import_torch(inputs["torch"]).to_dict()["kernels"]


def test_the_c_api_checks_names_and_values_itself():
    # what a caller other than this package sends: unknown names, flags with values, no values
    from rooftime._lib import Option, lib, fail
    import ctypes
    path = (ctypes.c_char_p * 1)(b"x.csv")
    for opts, msg in (([(b"within", b"x")], "import ncu: unknown option 'within' (it takes "
                       "metrics, tensor-factor, arch, recipe, allow-missing, per-launch, tag)"),
                      ([(b"per-launch", b"1")], "--per-launch takes no value, not '1'"),
                      ([(b"arch", None)], "--arch needs a value")):
        arr = (Option * 1)(*[Option(n, v) for n, v in opts])
        assert not lib.rt_api_import_opts(b"ncu", path, 1, arr, 1)
        assert str(fail()) == msg or msg in str(fail())
    assert lib.rt_api_import_options(b"cupti") == b"reevaluate\nper-launch\nmetrics=\ntag=*\n"
    assert lib.rt_api_import_options(b"nvprof") is None and "unknown kind" in str(fail())


def cli_options(help_text, kind):
    """The long options `rooftime import --help` shows for KIND: its synopsis and its paragraph,
    without the commands quoted in backticks, without -o (the API returns the profile)."""
    text = re.sub(r"`[^`]*`", "", help_text, flags=re.S)
    syn = re.search(r"rooftime import %s .*?(?=\nrooftime import |\n\n)" % kind, text, re.S)
    par = re.search(r"\nimport %s: .*?(?=\nimport \w+: |\n\n)" % kind, text, re.S)
    return set(re.findall(r"--([a-z][a-z-]*)", syn.group(0) + par.group(0))) - {"output"}


@pytest.mark.parametrize("kind", ["ncu", "table", "onednn", "torch", "cupti"])
def test_the_options_are_the_commands(rooftime_bin, kind):
    """The library's list of each importer's options is the command's, name for name."""
    from rooftime._lib import lib
    api = {line.split("=")[0] for line in lib.rt_api_import_options(kind.encode()).decode().split()}
    assert api == cli_options(run([rooftime_bin, "import", "--help"]), kind)


@pytest.mark.parametrize("kind", ["ncu", "table", "onednn", "torch", "cupti"])
def test_docs_name_every_keyword(repo, kind):
    """docs/python.md's row of each importer names every keyword the library takes for it."""
    from rooftime._lib import lib
    api = {line.split("=")[0].replace("-", "_")
           for line in lib.rt_api_import_options(kind.encode()).decode().split()}
    doc = open(os.path.join(repo, "docs", "python.md")).read()
    row = re.search(r"^\| `import_%s` \| (.*) \|$" % kind, doc, re.M)
    assert row, "docs/python.md has no row for import_%s" % kind
    assert api - set(re.findall(r"`([a-z_]+)`", row.group(1))) == set()


def test_the_launchers_rank_as_the_command_records_it(repo, rooftime_bin, tmp_path, monkeypatch):
    src = os.path.join(repo, CONV)
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "4")
    cli = imported(rooftime_bin, tmp_path, "onednn", [src], [])
    d = same(rooftime.import_onednn(src), cli)
    assert d["identity"]["rank"] == 3 and d["identity"]["size"] == 4
    monkeypatch.setenv("RANK", "x")
    r = subprocess.run([rooftime_bin, "import", "onednn", src, "-o", str(tmp_path / "x.json")],
                       capture_output=True, text=True)
    assert r.returncode == 1
    with pytest.raises(rooftime.Error) as e:
        rooftime.import_onednn(src)
    assert "RANK" in str(e.value) and str(e.value) in r.stderr
