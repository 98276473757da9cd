"""rooftime.gpu.profile() without a GPU (this machine): a clear rooftime.Error with the collector's
one line, never a crash; marks outside a profile refused; the marks' tags through import_cupti."""
import ctypes
import os

import pytest

import rooftime

from conftest import REPO


def _driver():
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


def _collector_built():
    lib = os.environ.get("ROOFTIME_CUPTI_LIB") or os.path.join(
        os.path.dirname(os.environ.get("ROOFTIME_LIB", "")), "librooftime-cupti.so")
    return os.path.isfile(lib)


@pytest.mark.parametrize("counters", [False, True])
def test_no_gpu_is_an_error_of_one_line(tmp_path, counters):
    keep = tmp_path / "run"
    with pytest.raises(rooftime.Error) as e:
        with rooftime.gpu.profile(counters=counters, keep_dir=keep):
            pytest.fail("the block ran without a GPU")
    msg = str(e.value)
    assert msg and "\n" not in msg
    if not _collector_built():
        assert "librooftime-cupti.so not found" in msg
    elif not _driver():
        assert msg.startswith("no CUDA driver: libcuda.so.1 not found"), msg
        assert not keep.exists(), "nothing is written without a driver"


def test_mark_outside_a_profile_raises():
    prof = rooftime.gpu.profile()
    with pytest.raises(rooftime.Error, match="not collecting"):
        prof.mark(batch=16, precision="fp16")
    with pytest.raises(rooftime.Error, match="not collecting"):
        prof.mark()
    with pytest.raises(rooftime.Error, match="no profile yet"):
        prof.analyze("h100-sxm")


def test_bad_tags_raise():
    prof = rooftime.gpu.profile()
    with pytest.raises(rooftime.Error, match="tag name"):
        prof.mark(**{"bad key": 1})
    with pytest.raises(rooftime.Error, match="holds ';'"):
        prof.mark(a="x;y")
    with pytest.raises(rooftime.Error, match="at most 32"):
        prof.mark({"k%d" % i: i for i in range(33)})


def test_failed_enter_leaves_it_unattached():
    prof = rooftime.gpu.profile()
    with pytest.raises(rooftime.Error):
        with prof:
            pass
    with pytest.raises(rooftime.Error, match="not collecting"):
        prof.mark({"pass": "forward"}, batch=16)


def test_marks_through_import_cupti():
    # A synthetic collector directory (tests/data/README.md: written for the test, not recorded).
    d = os.path.join(REPO, "tests", "data", "cupti-synthetic-trace-marks")
    p = rooftime.import_cupti(d).to_dict()
    got = sorted((k["name"], k["invocations"], k.get("tags", {}).get("batch", "-"))
                 for k in p["kernels"])
    assert got == [("gemm", 1, "-"), ("gemm", 1, "32"), ("gemm", 2, "16"), ("k_init", 1, "-"),
                   ("relu", 1, "32"), ("relu", 2, "16")]
