"""Turn the work directory of scripts/gpu-acceptance.sh into gpu-acceptance.json and summary.txt.

Every check of the groups that ran (--groups) has a figure, a bound and "pass"; a check whose input
is missing (a stage that failed or was skipped, a quantity the collector lacks) is a failed check
with a note, never left out. The groups not run in this call are named in the file. Exit 0 when
every check passes, 10 when some fail, 1 when the inputs cannot be read at all.
"""
import argparse
import datetime
import json
import os
import sys

GROUPS = ["measure", "selfcheck", "ncu-base", "ncu-none", "cnn", "ncu-cnn", "python", "study",
          "report"]
WGMMA_UNITS = ["tensor_fp16", "tensor_bf16", "tensor_tf32", "tensor_fp8", "tensor_int8"]
WGMMA_BOUND = 0.9  # of the dense rate at the SM clock measured during the run
HBM_BOUND = 0.05
CNN_FLOPS_BOUND = 0.02
CNN_KERNELS = 5
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


class Checks:
    def __init__(self):
        self.rows = []

    def add(self, name, figure, bound, ok, note=None, kind="max |error|"):
        row = {"check": name, "figure": figure, "bound": bound, "bound_kind": kind,
               "pass": bool(ok)}
        if note:
            row["note"] = note
        self.rows.append(row)


def stages(work, checks):
    out = []
    path = os.path.join(work, "stages.tsv")
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 3:
                continue
            rc, secs = int(p[1]), int(p[2])
            what = p[3] if len(p) > 3 else ""
            status = ("ran" if rc == 0 else "skipped" if rc == -1 else
                      "timed out" if rc in (124, 137) else "failed")
            out.append({"stage": p[0], "exit": rc, "status": status, "seconds": secs,
                        "command": what})
            checks.add("stage %s" % p[0], rc, 0, rc == 0,
                       None if rc == 0 else (what if rc == -1 else
                                             "timed out" if rc in (124, 137) else
                                             what if rc == 127 else
                                             "exit %d, see evidence/%s.log" % (rc, p[0])),
                       kind="exit code")
    return out


def wgmma(ev, archs, checks):
    m = load(os.path.join(ev, "machine.json"))
    if not m or "gpu" not in m:
        for u in WGMMA_UNITS:
            checks.add("wgmma ceiling %s" % u, None, WGMMA_BOUND, False,
                       "no machine file (stage measure failed)", kind="min fraction of dense")
        return m
    g = m["gpu"]
    dev = g.get("device", {})
    sms = dev.get("sms", 0)
    cc = dev.get("compute_capability", "0.0").replace(".", "")
    rates = {}
    for a in (archs or {}).get("architectures", []):
        if str(a.get("sm")) == cc:
            rates = a.get("units", {})
    comp = {c["unit"]: c for c in g.get("compute", [])}
    for u in WGMMA_UNITS:
        c = comp.get(u)
        if not c or u not in rates or not sms or not c.get("clock_hz"):
            checks.add("wgmma ceiling %s" % u, None, WGMMA_BOUND, False,
                       "not measured (sm_%s; see the measure log's 'skipped' lines)" % cc,
                       kind="min fraction of dense")
            continue
        dense = sms * c["clock_hz"] * rates[u]
        frac = c["flops"]["median"] / dense
        checks.add("wgmma ceiling %s" % u, frac, WGMMA_BOUND, frac >= WGMMA_BOUND and frac <= 1.0,
                   "%.4g FLOP/s of %.4g dense at the measured %.4g GHz (%d SMs x %g per cycle)"
                   % (c["flops"]["median"], dense, c["clock_hz"] / 1e9, sms, rates[u]),
                   kind="min fraction of dense")
    return m


def copy_compare(path, label, checks):
    r = load(path)
    if not r:
        checks.add(label, None, None, False, "no comparison (%s missing)" % os.path.basename(path))
        return
    if r.get("skipped"):  # the torch.matmul checks not made (no PyTorch with CUDA): failed, said
        checks.add("%s: skipped" % label, None, None, False, r["skipped"])
    for c in r.get("checks", []):
        # a failed run or a wrong result (a '#!' line) is a check without a bound
        checks.add("%s: %s" % (label, c["check"]), c.get("relative_error"), c.get("bound"),
                   c["pass"], c.get("note"), kind="max |relative error|")


def kernels_by_name(profile):
    out = {}
    for k in (profile or {}).get("kernels", []):
        name = k["name"]
        e = out.setdefault(name, {"time": 0.0, "flops": {}, "bytes": {}})
        e["time"] += k.get("time", 0)
        for part in ("flops", "bytes"):
            for q, v in k.get(part, {}).items():
                e[part][q] = e[part].get(q, 0) + v
    return out


def base_name(n):
    return n.split("(")[0].strip()


def kernel_name_key():
    """rooftime's one key for the printings of a kernel's name (core/kernel-name-key.c: the
    collector's __cxa_demangle text, ncu's own shortened one, the mangled name), through this
    checkout's Python package and the librooftime.so that $ROOFTIME_LIB names. (function, None), or
    (None, why) when the package does not load: names are then matched whole, else by the name up
    to its parameter list."""
    sys.path.insert(0, os.path.join(ROOT, "python"))
    try:
        import rooftime
        return rooftime.kernel_name_key, None
    except Exception as e:  # no librooftime.so ($ROOFTIME_LIB), or another build's
        return None, "%s: %s" % (type(e).__name__, e)


def hbm_vs_ncu(ev, mode, checks):
    coll = kernels_by_name(load(os.path.join(ev, "selfcheck", "probe.json")))
    ncu = kernels_by_name(load(os.path.join(ev, "ncu-probe-%s.json" % mode)))
    for k in ("bw_read", "bw_rmw"):
        a = coll.get(k, {}).get("bytes", {}).get("HBM")
        b = ncu.get(k, {}).get("bytes", {}).get("HBM")
        name = "HBM bytes %s: collector / ncu (%s)" % (k, mode)
        if a is None or b is None or b <= 0:
            checks.add(name, None, HBM_BOUND, False, "collector %s, ncu %s" % (a, b),
                       kind="max |ratio - 1|")
        else:
            checks.add(name, a / b - 1, HBM_BOUND, abs(a / b - 1) <= HBM_BOUND,
                       "collector %.6g B, ncu %.6g B" % (a, b), kind="max |ratio - 1|")


def python_pkg(ev, checks):
    """rooftime.gpu.profile() and rooftime.torch.profile() (scripts/gpu-python-check.py): both
    wrote a profile, and the in-process collector saw the kernels of `profile --gpu`."""
    gpu = load(os.path.join(ev, "python", "py-gpu.json"))
    torch = load(os.path.join(ev, "python", "py-torch.json"))
    for name, prof, what in (("rooftime.gpu.profile", gpu, "kernels"),
                             ("rooftime.torch.profile", torch, "operators")):
        n = len((prof or {}).get("kernels", []))
        checks.add("python: %s wrote a profile" % name, n, 1, n >= 1,
                   "%d %s" % (n, what) if prof else "no profile (see evidence/python.log)",
                   kind="min kernels")
    coll = kernels_by_name(load(os.path.join(ev, "cnn.json")))
    mine = kernels_by_name(gpu)
    if not coll or not mine:
        checks.add("python: rooftime.gpu.profile has the kernels of profile --gpu", None, 0, False,
                   "profile --gpu (cnn.json) %s, rooftime.gpu.profile %s" % (
                       "present" if coll else "missing", "present" if mine else "missing"),
                   kind="names in one only")
        return
    only = sorted(set(coll) ^ set(mine))
    checks.add("python: rooftime.gpu.profile has the kernels of profile --gpu", len(only), 0,
               not only, "; ".join(n[:80] for n in only[:3]) if only else
               "%d kernel names in both" % len(coll), kind="names in one only")
    a, b = launches(gpu), launches(load(os.path.join(ev, "cnn.json")))
    checks.add("python: rooftime.gpu.profile launches / profile --gpu's", a / b - 1 if b else None,
               0, a == b, "%d and %d launches" % (a, b), kind="max |ratio - 1|")


def launches(prof):
    return sum(k.get("invocations", 1) for k in (prof or {}).get("kernels", []))


def study(ev, checks):
    d = os.path.join(ev, "study")
    profiles = os.path.join(d, "profiles")
    n = len([f for f in os.listdir(profiles) if f.endswith(".json")]) if os.path.isdir(profiles) else 0
    checks.add("study: profiles written", n, 1, n >= 1, "%d in study/profiles" % n,
               kind="min profiles")
    for f in ("findings.txt", "report.html", "analysis.json"):
        ok = os.path.isfile(os.path.join(d, f)) and os.path.getsize(os.path.join(d, f)) > 0
        checks.add("study: %s written" % f, 1 if ok else 0, 1, ok, None if ok else "missing or empty",
                   kind="present")


def report(ev, checks):
    ok = os.path.isfile(os.path.join(ev, "report", "report.html"))
    checks.add("report: report.html written", 1 if ok else 0, 1, ok,
               None if ok else "no report/report.html (see evidence/report.log)", kind="present")


def clocks(ev):
    """Which --clock-control each ncu run used (scripts/gpu-acceptance.sh: none, or with
    GPU_ACCEPTANCE_NCU_CLOCK=base base, else none)."""
    out = {}
    for name in ("ncu-base", "ncu-none", "ncu-cnn"):
        try:
            with open(os.path.join(ev, name + ".clock")) as f:
                out[name] = " / ".join(line.strip() for line in f if line.strip())
        except OSError:
            pass
    return out


# What a run that could not read the counters says: ncu's ERR_NVGPUCTRPERM (or a profiler that did
# not initialise, as under gVisor); the collector's CUPTI_ERROR_INSUFFICIENT_PRIVILEGES line, or its
# profiler that did not initialise, in its own file (collector.PID.txt: error=...) or a stage's log
COLLECTOR_DENIED = ("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES", "counters need profiling rights",
                    "cuptiProfilerInitialize:", "LibraryNotLoaded")


def counters(ev):
    """Whether ncu and the collector could read the GPU's counters: "denied: LINE" (the first
    line that says so), ncu's "read (TABLES)" when a CSV table came back, the collector's "no
    refusal in LOGS" (the logs of the runs that collect counters), or "not run"."""
    out = {}
    try:
        with open(os.path.join(ev, "ncu.denied")) as f:
            out["ncu"] = "denied: " + f.readline().strip()
    except OSError:
        tables = [n for n in ("ncu-probe-base.csv", "ncu-probe-none.csv", "ncu-cnn.csv")
                  if os.path.isfile(os.path.join(ev, n))]
        out["ncu"] = "read (%s)" % ", ".join(tables) if tables else "not run"
    logs = [n for n in ("selfcheck.log", "cnn.log", "study.log")
            if os.path.isfile(os.path.join(ev, n))]
    files = logs + sorted(os.path.relpath(os.path.join(d, f), ev)
                          for d, _, fs in os.walk(ev) for f in fs
                          if f.startswith("collector.") and f.endswith(".txt"))
    out["collector"] = "no refusal in %s" % ", ".join(logs) if logs else "not run"
    for n in files:
        with open(os.path.join(ev, n), errors="replace") as f:
            line = next((l.strip() for l in f if any(d in l for d in COLLECTOR_DENIED)), None)
        if line:
            out["collector"] = "denied: %s: %s" % (n, line)
            break
    return out


def gemm_roofs(ev, machine, checks):
    prof = load(os.path.join(ev, "selfcheck", "matmul.json"))
    units = {u["name"]: u for u in (machine or {}).get("units", [])}
    if not prof or not units:
        checks.add("torch.matmul kernels below their roofs", None, 1.0, False,
                   "no matmul profile or no machine file", kind="max fraction of roof")
        return
    worst, where = 0.0, ""
    for name, k in kernels_by_name(prof).items():
        if k["time"] <= 0:
            continue
        for u, f in k["flops"].items():
            roof = units.get(u, {}).get("max") or units.get(u, {}).get("flops")
            if not roof:
                continue
            frac = f / k["time"] / roof
            if frac > worst:
                worst, where = frac, "%s on %s (%.4g FLOP/s)" % (name[:80], u, f / k["time"])
    checks.add("torch.matmul kernels below their roofs", worst, 1.0, worst <= 1.0, where,
               kind="max fraction of roof")


def cnn(ev, checks):
    coll = kernels_by_name(load(os.path.join(ev, "cnn.json")))
    ncu = kernels_by_name(load(os.path.join(ev, "ncu-cnn.json")))
    if not coll or not ncu:
        checks.add("CNN step: collector against ncu", None, None, False,
                   "collector profile %s, ncu profile %s" % ("present" if coll else "missing",
                                                             "present" if ncu else "missing"))
        return
    # A kernel by its whole name (ncu run with --print-kernel-base mangled: `import ncu` demangles
    # as the collector does), else by rooftime's name key (ncu's own shortened names).
    key, why = kernel_name_key()
    nb = {}
    for n, k in ncu.items():
        nb.setdefault(key(n) if key else base_name(n), k)
    top = sorted(coll.items(), key=lambda kv: -kv[1]["time"])[:CNN_KERNELS]
    for name, k in top:
        other = ncu.get(name) or nb.get(key(name) if key else base_name(name))
        short = base_name(name)[:70]
        if not other:
            checks.add("CNN %s: in ncu's profile" % short, None, None, False,
                       "no kernel of that name in ncu-cnn.json" + (
                           "" if key else " (matched by the name up to its parameters: rooftime's "
                           "name key did not load, %s)" % why))
            continue
        for q in sorted(set(k["flops"]) | set(other["flops"])):
            a, b = k["flops"].get(q, 0.0), other["flops"].get(q, 0.0)
            if a == 0 and b == 0:
                continue
            rel = (a - b) / b if b else float("inf")
            checks.add("CNN %s: flops.%s collector / ncu" % (short, q),
                       rel if b else None, CNN_FLOPS_BOUND, b > 0 and abs(rel) <= CNN_FLOPS_BOUND,
                       "collector %.6g, ncu %.6g" % (a, b), kind="max |ratio - 1|")
        a, b = k["bytes"].get("HBM"), other["bytes"].get("HBM")
        if a is not None and b:
            checks.add("CNN %s: bytes.HBM collector / ncu" % short, a / b - 1, HBM_BOUND,
                       abs(a / b - 1) <= HBM_BOUND, "collector %.6g, ncu %.6g" % (a, b),
                       kind="max |ratio - 1|")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--gpu", required=True, help="nvidia-smi's 'name, driver' line")
    ap.add_argument("--archs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--groups", default=" ".join(GROUPS),
                    help="the stage groups that ran (default all)")
    a = ap.parse_args()
    ev = os.path.join(a.work, "evidence")
    if not os.path.isdir(ev):
        print("gpu-acceptance-eval: no %s" % ev, file=sys.stderr)
        return 1
    ran = a.groups.split()
    unknown = [g for g in ran if g not in GROUPS]
    if unknown:
        print("gpu-acceptance-eval: --groups: unknown %s (known: %s)" % (
            ", ".join(unknown), " ".join(GROUPS)), file=sys.stderr)
        return 1
    checks = Checks()
    st = stages(a.work, checks)
    if "measure" in ran:
        wgmma(ev, load(a.archs), checks)
    if "selfcheck" in ran:
        copy_compare(os.path.join(ev, "selfcheck.json"), "collector", checks)
        gemm_roofs(ev, load(os.path.join(ev, "machine.json")), checks)
    for mode in ("base", "none"):
        if "ncu-" + mode in ran:
            copy_compare(os.path.join(ev, "ncu-%s-check.json" % mode), "ncu %s" % mode, checks)
            hbm_vs_ncu(ev, mode, checks)
    if "cnn" in ran or "ncu-cnn" in ran:
        cnn(ev, checks)
    if "python" in ran:
        python_pkg(ev, checks)
    if "study" in ran:
        study(ev, checks)
    if "report" in ran:
        report(ev, checks)
    name, _, driver = a.gpu.partition(",")
    failed = [c for c in checks.rows if not c["pass"]]
    run = []
    try:
        with open(os.path.join(ev, "run.txt")) as f:
            run = [line.rstrip("\n") for line in f]
    except OSError:
        pass
    doc = {
        "schema": "rooftime.gpu-acceptance/1",
        "gpu": {"name": name.strip(), "driver": driver.strip()},
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "run": run,
        "groups_run": ran,
        "groups_not_run": [g for g in GROUPS if g not in ran],
        "ncu_clock_control": clocks(ev),
        "counters": counters(ev),
        "all_pass": not failed,
        "passed": len(checks.rows) - len(failed),
        "failed": len(failed),
        "stages": st,
        "checks": checks.rows,
    }
    with open(os.path.join(a.out, "gpu-acceptance.json"), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    with open(os.path.join(a.out, "summary.txt"), "w") as f:
        f.write("%s, driver %s, %s: %d of %d checks pass\n" % (
            doc["gpu"]["name"], doc["gpu"]["driver"], doc["date"], doc["passed"],
            len(checks.rows)))
        for line in run:
            f.write("  %s\n" % line)
        if doc["groups_not_run"]:
            f.write("  groups not run in this call: %s\n" % " ".join(doc["groups_not_run"]))
        for k, v in doc["ncu_clock_control"].items():
            f.write("  %s: %s\n" % (k, v))
        for k, v in doc["counters"].items():
            f.write("  counters, %s: %s\n" % (k, v))
        for s in st:
            f.write("  stage %-24s %-9s exit %3d  %4d s\n" % (s["stage"], s["status"], s["exit"],
                                                             s["seconds"]))
        for c in checks.rows:
            fig = c["figure"]
            figs = "-" if fig is None else ("%.4g" % fig)
            f.write("  %-4s %-70s %10s (bound %s)%s\n" % (
                "pass" if c["pass"] else "FAIL", c["check"][:70], figs, c["bound"],
                "  " + c["note"] if c.get("note") and not c["pass"] else ""))
    return 0 if not failed else 10


if __name__ == "__main__":
    sys.exit(main())
