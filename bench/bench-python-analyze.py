#!/usr/bin/env python3
"""rooftime.analyze from Python against `rooftime analyze --format csv` on 100k kernels.

    ROOFTIME_LIB=build/librooftime.so PYTHONPATH=python python3 bench/bench-python-analyze.py [BUILD] [N]

(or with the package installed: python3 bench/bench-python-analyze.py). Writes a profile of N
kernels (default 100000: 1000 configs of 100 kernels, the shapes of data/examples), then times, best
of three each: the command (load, analyze, CSV to a file) and the package (load_profile, analyze,
the kernels as a pandas DataFrame, the configs too). Prints both times and their ratio (the issue's
target: at most 1.5), in wall time and in CPU time (user + system: the steadier on a shared machine).
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def profile(path, n):
    ex = json.load(open(os.path.join(REPO, "data", "examples", "conv2d-pt-fp16.json")))
    base = ex["kernels"]
    ks = []
    for i in range(n):
        k = dict(base[i % len(base)])
        k["name"] = "kernel %d of config %d" % (i % 100, i // 100)
        k["tags"] = dict(k.get("tags", {}), config=str(i // 100))
        k["time"] = k["time"] * (1 + (i % 7) / 10)
        ks.append(k)
    ex["kernels"] = ks
    with open(path, "w") as f:
        json.dump(ex, f)


def best(fn, runs=3, children=False):
    """The best of runs: (wall seconds, CPU seconds of this process or of its children). On a
    shared machine the CPU figure is the steadier one: waiting for a core counts in wall time only."""
    walls, cpus = [], []
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF)
        t = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF)
        cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return min(walls), min(cpus)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build")
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    import rooftime
    import pandas  # noqa: F401  (the DataFrames are part of the figure)

    tmp = tempfile.mkdtemp(prefix="rooftime-bench-")
    path = os.path.join(tmp, "p.json")
    profile(path, n)
    out = os.path.join(tmp, "out.csv")
    exe = os.path.join(build, "rooftime")

    def cli():
        subprocess.run([exe, "analyze", "--machine", "v100", "--format", "csv", "-o", out, path],
                       check=True)

    rows = []

    def py():
        a = rooftime.analyze(rooftime.load_profile(path), rooftime.machine("v100"))
        rows.append((len(a.kernels), len(a.configs)))

    (t_cli, c_cli), (t_py, c_py) = best(cli, children=True), best(py)
    assert rows[-1][0] == n, rows[-1]
    print("kernels %d, configs %d" % rows[-1])
    print("rooftime analyze --format csv: %.3f s (CPU %.3f s)" % (t_cli, c_cli))
    print("rooftime.analyze (load, analyze, .kernels and .configs as DataFrames): %.3f s "
          "(CPU %.3f s)" % (t_py, c_py))
    print("ratio python/command: %.2f (CPU %.2f)" % (t_py / t_cli, c_py / c_cli))
    for f in (path, out):
        os.unlink(f)
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
