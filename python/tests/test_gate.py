"""rooftime.diff(before, after).gate(...): `rooftime diff --gate` from Python, on the gate's
recorded runs (tests/data/gate); planted changes are synthetic copies written to tmp_path."""
import glob
import json
import os
import subprocess
import xml.etree.ElementTree as ET

import pytest

import rooftime


@pytest.fixture(scope="module")
def runs(repo):
    rs = sorted(glob.glob(os.path.join(repo, "tests", "data", "gate", "run-*.json")))
    assert len(rs) == 10
    return rs


def command(rooftime_bin, *args):
    r = subprocess.run([rooftime_bin, "diff", "--gate"] + list(args), capture_output=True,
                       text=True)
    return r.returncode, r.stdout


def planted(src, path, prefix, factor=1.2):
    p = json.load(open(src))
    p["source"]["tool"] = "synthetic"
    for k in p["kernels"]:
        if k["name"].startswith(prefix):
            k["time"] *= factor
            for q in ("median", "q1", "q3"):
                k["time_spread"][q] *= factor
    with open(path, "w") as f:
        json.dump(p, f)
    return str(path)


def test_gate_passes_as_the_command(runs, rooftime_bin):
    rows = rooftime.diff(runs[:9], runs[9]).gate()
    assert len(rows) == 0 and rows.attrs["passed"]
    rc, out = command(rooftime_bin, ",".join(runs[:9]), runs[9])
    assert rc == 0 and rows.attrs["text"] == out


def test_gate_fails_as_the_command(runs, rooftime_bin, tmp_path):
    run04 = runs[3]
    slow = planted(run04, tmp_path / "slow.json", "aten::addmm [[256],[64,256],[256,256]")
    # one run a side: beyond the spread within the run, unjudged (the noise between runs is not
    # measured); --strict fails it
    rows = rooftime.diff(run04, slow).gate()
    rc, out = command(rooftime_bin, run04, slow)
    assert rc == 0 and len(rows) == 0 and rows.attrs["passed"] and rows.attrs["text"] == out
    assert "UNJUDGED time of kernel 'aten::addmm [[256],[64,256],[256,256]" in out
    rows = rooftime.diff(run04, slow).gate(strict=True)
    rc, out = command(rooftime_bin, "--strict", run04, slow)
    assert rc == 1 and not rows.attrs["passed"] and rows.attrs["text"] == out
    assert list(rows.columns) == ["state", "check", "subject", "name", "source", "before",
                                  "after", "ratio", "margin", "line"]
    assert (rows["state"] == "FAIL").all()
    assert [l for l in out.splitlines() if l.startswith("FAIL ")] == list(rows["line"])
    k = rows[rows["subject"] == "kernel"]
    assert len(k) == 1 and k["name"].iloc[0].startswith("aten::addmm [[256],[64,256],[256,256]")
    assert k["source"].iloc[0] == "tests/data/gate/step.py:16"
    assert abs(k["ratio"].iloc[0] - 1.2) < 1e-6 and k["margin"].iloc[0] > 1.05
    # looser thresholds as the command takes them (percent)
    assert len(rooftime.diff(run04, slow).gate(threshold=30, strict=True)) == 0
    assert len(rooftime.diff(run04, slow).gate(min_share=90, strict=True)) == 0


def test_gate_files_and_options(runs, tmp_path):
    run04 = runs[3]
    slow = planted(run04, tmp_path / "slow.json", "aten::addmm [[256],[64,256],[256,256]")
    x, md = tmp_path / "g.xml", tmp_path / "g.md"
    rows = rooftime.diff(run04, slow).gate(strict=True, junit=x, summary=md)
    suite = ET.parse(x).getroot().find("testsuite")
    assert int(suite.get("failures")) == len(rows)
    assert md.read_text().startswith("### rooftime diff --gate: FAIL")
    with pytest.raises(rooftime.Error, match="threshold takes a number"):
        rooftime.diff(run04, slow).gate(threshold=0)
    with pytest.raises(TypeError, match="strict takes True or False"):
        rooftime.diff(run04, slow).gate(strict=1)


def test_gate_refuses_two_machines(runs, tmp_path):
    p = json.load(open(runs[0]))
    p["source"]["tool"] = "synthetic"
    p["source"]["machine"] = "Another CPU (synthetic), 8 CPUs"
    other = tmp_path / "other.json"
    other.write_text(json.dumps(p))
    with pytest.raises(rooftime.GateRefused, match="the runs are from two machines"):
        rooftime.diff(runs[0], other).gate()
    assert rooftime.diff(runs[0], other).gate(allow_other_machine=True).attrs["passed"]


def test_runs_table_is_the_mean(runs):
    d = rooftime.diff(runs[:5], runs[5:])
    rows = d.rows
    total = rows[rows["kernel"] == "total"]
    means = []
    for side in (runs[:5], runs[5:]):
        means.append(sum(sum(k["time"] for k in json.load(open(r))["kernels"]) for r in side)
                     / len(side))
    assert abs(total["time_before_s"].iloc[0] - means[0]) < 1e-6 * means[0]
    assert abs(total["time_after_s"].iloc[0] - means[1]) < 1e-6 * means[1]
    with pytest.raises(rooftime.Error, match="list of runs is empty"):
        rooftime.diff([], runs[0])
