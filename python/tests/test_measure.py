"""rooftime.machine_measure(): this machine measured as `rooftime machine measure --quick` does, once
(about 20 s on 2 cores: marked slow, run by `make test`; `-m 'not slow'` leaves it out)."""
import json
import os
import subprocess

import pytest

import rooftime


@pytest.mark.slow
def test_machine_measure_quick(repo, tmp_path):
    m = rooftime.machine_measure(quick=True)
    assert m.origin == "measured"
    d = m.to_dict()
    assert d["source"] == "measured"
    units = {u["name"]: u for u in d["units"]}
    # the two floating-point ceilings every CPU has, as positive rates, fp32 above fp64
    for name in ("fp32", "fp64"):
        assert name in units and units[name]["flops"] > 0, name
    assert units["fp32"]["flops"] > units["fp64"]["flops"]
    # bandwidth levels found on the read curve, DRAM among them, caches faster than memory
    levels = {lv["name"]: lv["bytes_per_s"] for lv in d["levels"]}
    assert "DRAM" in levels and len(levels) >= 2, sorted(levels)
    assert all(bw > 0 for bw in levels.values())
    assert max(levels.values()) > levels["DRAM"]
    # the file written loads back with load_machine, the same machine
    path = tmp_path / "here.json"
    m.save(path)
    back = rooftime.load_machine(path)
    assert back.to_dict() == d
    assert json.loads(path.read_text())["levels"] == d["levels"]
    # and gives verdicts on a CPU profile
    p = rooftime.import_onednn(os.path.join(repo, "tests", "data",
                                            "onednn-2.6-torch-conv2d-forward.log"))
    assert len(rooftime.analyze(p, back).kernels) == len(p) > 0


@pytest.mark.parametrize("kw,args,msg", [
    ({"threads": 0}, ["--threads", "0"], "--threads: expected a positive whole number, got '0'"),
    ({"threads": "many"}, ["--threads", "many"],
     "--threads: expected a positive whole number, got 'many'"),
    ({"max_isa": "avx9"}, ["--max-isa", "avx9"], "--max-isa: "),
])
def test_measure_options_checked_as_the_command(rooftime_bin, kw, args, msg):
    # refused before anything is measured, with the command's message
    r = subprocess.run([rooftime_bin, "machine", "measure", "--quick"] + args,
                       capture_output=True, text=True)
    assert r.returncode == 2 and msg in r.stderr
    with pytest.raises(rooftime.Error) as e:
        rooftime.machine_measure(quick=True, **kw)
    assert msg in str(e.value)
    assert str(e.value).split(msg)[1] in r.stderr  # the rest of the message too
