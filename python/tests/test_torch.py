"""`with rooftime.torch.profile()` in process against `rooftime profile --torch` on the same script."""
import json
import os
import sys

import pytest

import rooftime

from conftest import run

pytest.importorskip("torch")
HERE = os.path.dirname(os.path.abspath(__file__))


def ops(profile):
    """Operator (name and shapes) -> invocations, FLOPs and bytes per unit, over its source lines.
    Not per line: which line a backward operator is charged to varies from run to run of
    `profile --torch` itself (the autograd thread), its counts do not."""
    out = {}
    for k in profile["kernels"]:
        n, f, b = out.get(k["name"], (0, {}, {}))
        for d, add in ((f, k.get("flops") or {}), (b, k.get("bytes") or {})):
            for u, v in add.items():
                d[u] = d.get(u, 0) + v
        out[k["name"]] = (n + k.get("invocations", 0), f, b)
    return out


def sources(profile):
    return {k.get("tags", {}).get("source") for k in profile["kernels"]}


@pytest.fixture
def in_here(monkeypatch):
    # source lines are relative to the working directory: both runs start in the same one
    monkeypatch.chdir(HERE)
    monkeypatch.syspath_prepend(HERE)


def test_same_op_counts_as_profile_torch(rooftime_bin, tmp_path, in_here):
    import torch_script

    cli_out = tmp_path / "cli.json"
    run([rooftime_bin, "profile", "--torch", "-o", str(cli_out), "--", sys.executable,
         "torch_script.py"])
    with rooftime.torch.profile() as prof:
        torch_script.main()
    cli, py = ops(json.loads(cli_out.read_text())), ops(prof.to_dict())
    assert any("lstm" in k.lower() for k in py) and any("conv" in k for k in py)
    assert py == cli
    # the user's lines, as the command records them
    assert "torch_script.py:28" in sources(prof.to_dict())
    assert sources(prof.to_dict()) <= sources(json.loads(cli_out.read_text())) | {None}
    notes = prof.to_dict()["provenance"]["notes"]
    assert "torch_coverage" in notes and "torch_wall_coverage" in notes
    a = prof.analyze("v100")
    assert len(a.kernels) == len(prof.profile)


def test_steps_window(rooftime_bin, tmp_path, in_here):
    import torch_script

    cli_out = tmp_path / "cli.json"
    run([rooftime_bin, "profile", "--torch", "--steps", "1:2", "-o", str(cli_out), "--",
         sys.executable, "torch_script.py"])
    with rooftime.torch.profile(steps="1:2") as prof:
        torch_script.main()
    assert ops(prof.to_dict()) == ops(json.loads(cli_out.read_text()))
    # the optimizer steps in the window, for figures per step (diff's gate)
    assert prof.to_dict()["provenance"]["notes"]["steps"] == "1"
    assert json.loads(cli_out.read_text())["provenance"]["notes"]["steps"] == "1"
    # the machine it ran on, as the command records it
    assert prof.to_dict()["source"]["machine"] == json.loads(cli_out.read_text())["source"]["machine"]
    with rooftime.torch.profile(steps=(0, 3)) as whole:
        torch_script.main()
    assert len(whole.profile) >= len(prof.profile)


def test_errors():
    with pytest.raises(rooftime.Error, match="FIRST:LAST"):
        rooftime.torch.profile(steps="3:1")
    p = rooftime.torch.profile()
    with pytest.raises(rooftime.Error, match="no profile yet"):
        p.analyze("v100")
    with pytest.raises(rooftime.Error, match="no readable PyTorch trace"):
        with rooftime.torch.profile():
            pass
    # the block's own exception goes through untouched
    with pytest.raises(ZeroDivisionError):
        with rooftime.torch.profile():
            1 / 0


def test_no_runner_error_on_a_good_run(rooftime_bin, tmp_path, in_here):
    """The first profile of a process installs the runner's hooks; that printed "rooftime runner:
    cannot read : [Errno 2] No such file or directory: ''" on every good run, from the package
    and from `profile --torch` (the hooks asked for the cost model's positions with no path)."""
    import subprocess

    code = ("import rooftime, torch_script\n"
            "with rooftime.torch.profile() as prof:\n"
            "    torch_script.main()\n"
            "print(len(prof.profile))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) > 0
    assert "rooftime runner" not in r.stderr, r.stderr
    r = subprocess.run([rooftime_bin, "profile", "--torch", "-o", str(tmp_path / "cli.json"), "--",
                        sys.executable, "torch_script.py"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "rooftime runner" not in r.stderr, r.stderr


def test_keep_trace_on_another_file_system(tmp_path, in_here, monkeypatch):
    """keep_trace where the scratch trace's directory ($TMPDIR) is another file system (a tmpfs
    /tmp, /dev/shm): os.replace failed there with "Invalid cross-device link" and lost the trace."""
    import tempfile

    import torch_script

    shm = "/dev/shm"
    if not os.path.isdir(shm) or os.stat(shm).st_dev == os.stat(tmp_path).st_dev or \
            not os.access(shm, os.W_OK):
        pytest.skip("no writable file system other than %s's at %s" % (tmp_path, shm))
    scratch = tempfile.mkdtemp(dir=shm)
    monkeypatch.setattr(tempfile, "tempdir", scratch)
    kept = tmp_path / "kept.json"
    try:
        with rooftime.torch.profile(keep_trace=kept) as prof:
            torch_script.main()
        assert len(prof.profile) > 0
        assert len(rooftime.import_torch(kept)) > 0
        assert os.listdir(scratch) == []  # nothing left behind
    finally:
        import shutil
        shutil.rmtree(scratch, ignore_errors=True)


def test_warnings_name_the_run_not_the_scratch_trace():
    """The import's warnings named the scratch trace in $TMPDIR, deleted by the time they are
    read; they name the run (the profile's command) instead."""
    import warnings

    import torch

    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        with rooftime.torch.profile(command="lstm block"):
            m = torch.nn.LSTM(8, 8, batch_first=True)
            x = torch.randn(2, 4, 8)
            for _ in range(3):
                m(x)[0].sum().backward()
    texts = [str(w.message) for w in ws]
    uncovered = [t for t in texts if "uncovered" in t]
    assert uncovered and all("'lstm block'" in t for t in uncovered), texts
    assert not any("rooftime-torch-" in t for t in texts), texts


def test_phase_marks_split_a_generation_loop(tmp_path):
    """rooftime.torch.phase marks the phases of a generation loop: each operator started inside a
    mark carries its name as the phase tag, the profile's notes say the marks were read; a bad
    name is refused before anything runs."""
    import torch

    lin = torch.nn.Linear(16, 16)
    with rooftime.torch.profile(command="marked loop") as prof:
        with torch.no_grad():
            with rooftime.torch.phase("prefill"):
                lin(torch.randn(8, 16))
            for _ in range(3):
                with rooftime.torch.phase("decode"):
                    lin(torch.randn(1, 16))
    path = tmp_path / "p.json"
    prof.profile.save(str(path))
    p = json.load(open(path))
    phases = {k["tags"].get("phase") for k in p["kernels"] if "addmm" in k["name"]}
    assert phases == {"prefill", "decode"}, phases
    assert "rooftime:phase=NAME" in p["provenance"]["notes"]["phases"]
    with pytest.raises(rooftime.Error, match="rooftime.torch.phase"):
        rooftime.torch.phase("a phase")
