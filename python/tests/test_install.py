"""`pip install ./python` gives a package that finds its library and data/ with no environment."""
import os
import shutil
import subprocess
import sys

import pytest


def test_pip_install_then_use_without_environment(repo, tmp_path):
    lib = os.environ.get("ROOFTIME_LIB")
    if not lib:
        pytest.skip("ROOFTIME_LIB names no build's library")
    env = dict(os.environ, ROOFTIME_BUILD=os.path.dirname(lib))
    target = tmp_path / "site"
    # pip builds in the source tree (build/, *.egg-info): a copy of python/ beside the real data/
    checkout = tmp_path / "checkout"
    shutil.copytree(os.path.join(repo, "python"), checkout / "python",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__",
                                                  ".pytest_cache"))
    os.symlink(os.path.join(repo, "data"), checkout / "data")
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation",
                        "--no-deps", "--target", str(target), str(checkout / "python")],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0 and "No module named pip" in r.stderr:
        pytest.skip("no pip for %s (Debian python3-pip)" % sys.executable)
    assert r.returncode == 0, r.stderr
    assert (target / "rooftime" / "_lib" / "librooftime.so").is_file()
    assert (target / "rooftime" / "data" / "machines" / "v100.json").is_file()
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith("ROOFTIME_") and k != "PYTHONPATH"}
    clean["PYTHONPATH"] = str(target)
    code = ("import rooftime, sys; from rooftime._lib import lib; "
            "print(lib.rt_api_datadir().decode()); "
            "a = rooftime.analyze(sys.argv[1], rooftime.machine('v100')); "
            "print(len(a.kernels)); print(a.plot(view='4d')._repr_svg_()[:200])")
    r = subprocess.run([sys.executable, "-c", code,
                        os.path.join(repo, "data", "examples", "conv2d-pt-fp16.json")],
                       capture_output=True, text=True, env=clean, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0] == str(target / "rooftime" / "data")
    assert out[1] == "6"
    assert "<svg" in r.stdout
