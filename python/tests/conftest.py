"""Shared fixtures of the package's tests: the checkout, the `rooftime` command beside the library,
the shared fixtures (ROOFTIME_FIXTURES, default ../shared/fixtures from the checkout)."""
import os
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def repo():
    return REPO


@pytest.fixture(scope="session")
def rooftime_bin():
    b = os.environ.get("ROOFTIME_BIN") or os.path.join(REPO, "build", "rooftime")
    if not os.access(b, os.X_OK):
        pytest.skip("no rooftime command at %s (ROOFTIME_BIN)" % b)
    return b


@pytest.fixture(scope="session")
def fixtures():
    f = os.environ.get("ROOFTIME_FIXTURES") or os.path.join(REPO, "..", "shared", "fixtures")
    if not os.path.isdir(f):
        pytest.skip("no shared fixtures at %s (ROOFTIME_FIXTURES)" % f)
    return f


@pytest.fixture(scope="session")
def deepcam(fixtures):
    d = os.path.join(fixtures, "ncu", "deepcam-pytorch-fp32-fw")
    files = sorted(os.path.join(d, f) for f in os.listdir(d) if f.startswith("out."))
    if not files:
        pytest.skip("no DeepCAM ncu files in %s" % d)
    return files


def run(cmd, **kw):
    """Run a command; its stdout, or a test failure with its stderr."""
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert r.returncode == 0, "%s: %s" % (" ".join(cmd), r.stderr)
    return r.stdout
