"""rooftime.kernel_name_key: one key for the collector's and Nsight Compute's printings of a kernel's
name, the library's (core/kernel-name-key.c), and the GPU acceptance's CNN comparison matching by it
(scripts/gpu-acceptance-eval.py)."""
import json
import os
import subprocess
import sys

import rooftime

# The collector's name (libstdc++'s __cxa_demangle of the mangled name nvcc 13.0 wrote for the
# stand-in kernel of tests/data/kernel-names) and ncu 2025's own printing of such a name.
CXA = ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
       "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)")
NCU = "void vectorized_elementwise_kernel<4, FillFunctor<float>, array<char *, 1>>(int, T2, T3)"
MANGLED = ("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEv"
           "iT0_T1_")


def test_one_key_for_both_printings():
    key = "vectorized_elementwise_kernel<4,FillFunctor<float>,array<char*,1>>"
    assert rooftime.kernel_name_key(CXA) == rooftime.kernel_name_key(NCU) == key
    assert rooftime.kernel_name_key(MANGLED) == key
    assert rooftime.kernel_name_key("sigma_gpp_gpu_31") == "sigma_gpp_gpu_31"


def test_the_acceptance_matches_cnn_kernels_by_the_key(repo, tmp_path):
    """The collector's name and ncu's shortened one: one kernel in the CNN comparison (the
    figures are made up for the test, not a recording)."""
    ev = tmp_path / "work" / "evidence"
    ev.mkdir(parents=True)

    def prof(name, fp32):
        return {"schema": "rooftime.profile/1",
                "kernels": [{"name": name, "time": 1e-3, "flops": {"fp32": fp32}}]}
    (ev / "cnn.json").write_text(json.dumps(prof(CXA, 1.0e9)))
    (ev / "ncu-cnn.json").write_text(json.dumps(prof(NCU, 1.01e9)))
    out = tmp_path / "out"
    out.mkdir()
    r = subprocess.run([sys.executable, os.path.join(repo, "scripts", "gpu-acceptance-eval.py"),
                        "--work", str(tmp_path / "work"), "--gpu", "NVIDIA X, 1.0",
                        "--archs", os.path.join(repo, "data", "gpu", "architectures.json"),
                        "--out", str(out)], capture_output=True, text=True)
    assert r.returncode == 10, r.stderr  # the stages and ceilings this work directory lacks fail
    checks = {c["check"]: c for c in json.load(open(out / "gpu-acceptance.json"))["checks"]}
    c = [c for n, c in checks.items()
         if n.startswith("CNN void at::native::vectorized_elementwise_kernel<4, ")
         and n.endswith(": flops.fp32 collector / ncu")]
    assert len(c) == 1 and c[0]["pass"] and abs(c[0]["figure"] - (1.0 / 1.01 - 1)) < 1e-12, checks
