"""scripts/torch-client.py as rooftime study drives it: the go-ahead (--go-fd) that holds a point's
measured iterations until the study has read the previous point's trace, and what the client
says when the go-ahead is wrong or never comes."""
import os
import select
import socket
import subprocess
import sys

import pytest

SRC = os.environ.get("ROOFTIME_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
CLIENT = os.path.join(SRC, "scripts", "torch-client.py")
TINY = "batch=1,channels=2,input=6,filters=2,kernel=3,stride=1"

pytest.importorskip("torch")


def start(tmp_path, n_points, go_fd=True):
    """The client over n_points tiny conv2d points: (process, progress reader, our go socket)."""
    rd, wr = os.pipe()
    ours, theirs = socket.socketpair()
    argv = [sys.executable, CLIENT, "--op", "conv2d", "--warmup", "1", "--iters", "1",
            "--trace-dir", str(tmp_path), "--progress-fd", str(wr)]
    keep = [wr]
    if go_fd:
        argv += ["--go-fd", str(theirs.fileno())]
        keep.append(theirs.fileno())
    for _ in range(n_points):
        argv += ["--point", TINY]
    proc = subprocess.Popen(argv, pass_fds=keep, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    os.close(wr)
    theirs.close()
    return proc, os.fdopen(rd, "r"), ours


def readable(f, seconds):
    return bool(select.select([f], [], [], seconds)[0])


def test_measured_iterations_wait_for_the_go_ahead(tmp_path):
    proc, progress, go = start(tmp_path, 3)
    try:
        assert progress.readline() == "0\n"
        assert (tmp_path / "trace-0.json").exists()
        # point 1 (a few milliseconds of work) is held before its measured iterations
        assert not readable(progress, 1.5)
        assert not (tmp_path / "trace-1.json").exists()
        go.sendall(b"0\n")
        assert readable(progress, 60)
        assert progress.readline() == "1\n"
        assert (tmp_path / "trace-1.json").exists()
        assert not readable(progress, 1.0)
        go.sendall(b"1\n")
        assert progress.readline() == "2\n"
        assert proc.wait(60) == 0
    finally:
        proc.kill()
        proc.wait()


def test_a_wrong_go_ahead_is_an_error(tmp_path):
    proc, progress, go = start(tmp_path, 2)
    assert progress.readline() == "0\n"
    go.sendall(b"7\n")
    assert proc.wait(60) == 1
    err = proc.stderr.read().decode()
    assert "go-ahead '7' where 0 was due" in err
    assert not (tmp_path / "trace-1.json").exists()


def test_a_go_ahead_that_never_comes_is_an_error(tmp_path):
    proc, progress, go = start(tmp_path, 2)
    assert progress.readline() == "0\n"
    go.close()
    assert proc.wait(60) == 1
    assert "the go-ahead for point 1 never came" in proc.stderr.read().decode()


def test_without_go_fd_the_points_run_through(tmp_path):
    proc, progress, go = start(tmp_path, 2, go_fd=False)
    assert progress.read() == "0\n1\n"
    assert proc.wait(60) == 0
    assert (tmp_path / "trace-1.json").exists()


def test_onednn_output_of_one_untimed_pass_per_point(tmp_path):
    """--onednn-dir: one more pass per point with oneDNN verbose output on, into that point's own
    file; nothing of it on the client's standard output, and only that pass's primitives (the
    warm-up and measured iterations ran with it off). oneDNN prints its header once per process:
    in the first point's file."""
    argv = [sys.executable, CLIENT, "--op", "conv2d", "--precision", "bf16", "--warmup", "1",
            "--iters", "2", "--trace-dir", str(tmp_path), "--onednn-dir", str(tmp_path)]
    for _ in range(2):
        argv += ["--point", TINY]
    out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                         check=True).stdout.decode()
    assert "verbose," not in out
    assert out.count("torch-client: torch") == 2
    logs = [(tmp_path / ("onednn-%d.log" % i)).read_text() for i in range(2)]
    import torch

    if not torch.backends.mkldnn.is_available():
        assert logs == ["", ""]
        return
    for i, log in enumerate(logs):
        convs = [l for l in log.splitlines() if ",exec," in l and ",convolution," in l]
        assert len(convs) == 1, log
        assert (",info," in log) == (i == 0), log
