#!/usr/bin/env python3
"""A stand-in for Nsight Compute's `ncu`, for tests/cli-gpu-rehearsal.sh: scripts/gpu-acceptance.sh
run end to end on a machine without a GPU. Not a profiler and not a recording.

It appends its arguments as one JSON line to $STANDIN_NCU_CALLS, runs the target command as ncu
would (its exit code goes into the output as a warning), then writes a CSV table in the layout of
ncu 2025 (`--csv`, base units) with one made-up kernel, `standin_kernel`, one row per metric of
--metrics (sm__cycles_elapsed.avg 1000 cycles at 1e9 cycle/second, every other metric 0), headed by
a comment line that says so: to --log-file when given, else to standard output. Exit 0.
With STANDIN_NCU_CLOCK_FAIL=1 and --clock-control base it fails as a VM that cannot lock the clocks
might (one ==ERROR== line, exit 1), without running the target. With STANDIN_NCU_HANG=FILE it writes
its process id to FILE and hangs (a profiler stuck on a kernel), for the stop test.
"""
import json
import os
import subprocess
import sys
import time

WITH_VALUE = {"--metrics", "--log-file", "--cache-control", "--clock-control", "--print-units",
              "--print-kernel-base", "--target-processes", "--launch-count", "-c",
              "--launch-skip", "-s", "--kernel-name", "-k", "--section", "--set",
              "--print-metric-instances", "--replay-mode", "--profile-from-start"}


def unit(metric):
    if metric.endswith(".per_second"):
        return "cycle/second"
    if metric.startswith("sm__cycles"):
        return "cycle"
    if "bytes" in metric:
        return "byte"
    if "inst_executed" in metric:
        return "inst"
    return ""


def main(argv):
    opts, i = {}, 0
    while i < len(argv) and argv[i].startswith("-"):
        if argv[i] in WITH_VALUE and i + 1 < len(argv):
            opts[argv[i]] = argv[i + 1]
            i += 2
        else:
            opts[argv[i]] = True
            i += 1
    target = argv[i:]
    calls = os.environ.get("STANDIN_NCU_CALLS")
    if calls:
        with open(calls, "a") as f:
            f.write(json.dumps({"argv": argv, "ld_library_path": os.environ.get("LD_LIBRARY_PATH", "")})
                    + "\n")
    if argv == ["--version"]:
        print("NVIDIA (R) Nsight Compute Command Line Profiler (stand-in: tests/gpu-standin-ncu.py)")
        return 0
    if not target:
        print("==ERROR== stand-in ncu: no target command", file=sys.stderr)
        return 1
    hang = os.environ.get("STANDIN_NCU_HANG")
    if hang:
        with open(hang, "w") as f:
            f.write("%d\n" % os.getpid())
        time.sleep(3600)
    out = open(opts["--log-file"], "w") if "--log-file" in opts else sys.stdout
    if os.environ.get("STANDIN_NCU_CLOCK_FAIL") == "1" and opts.get("--clock-control") == "base":
        out.write("==ERROR== Failed to lock the GPU clocks (stand-in ncu: STANDIN_NCU_CLOCK_FAIL)\n")
        return 1
    out.write("==PROF== Connected to process (stand-in ncu)\n")
    out.flush()
    try:
        rc = subprocess.call(target)
    except OSError as e:
        out.write("==ERROR== stand-in ncu: cannot run %s: %s\n" % (target[0], e))
        return 1
    if rc != 0:
        out.write("==WARNING== stand-in ncu: the target exited %d\n" % rc)
    metrics = [m for m in str(opts.get("--metrics", "")).split(",") if m]
    out.write("# STAND-IN: tests/gpu-standin-ncu.py wrote this table, no GPU ran; not a recording\n")
    cols = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
            "Block Size", "Grid Size", "Device", "CC", "Section Name", "Metric Name",
            "Metric Unit", "Metric Value"]
    out.write(",".join('"%s"' % c for c in cols) + "\n")
    for m in metrics:
        v = "1000" if m == "sm__cycles_elapsed.avg" else "1000000000" if m.endswith(".per_second") else "0"
        row = ["0", str(os.getpid()), "standin", "standin", "standin_kernel", "1", "7",
               "(128, 1, 1)", "(1, 1, 1)", "0", "9.0", "Command line profiler metrics", m, unit(m), v]
        out.write(",".join('"%s"' % c for c in row) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
