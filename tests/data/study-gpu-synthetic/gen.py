#!/usr/bin/env python3
"""Writes the GPU study's synthetic test profiles (see README.md): NOT recorded on a GPU.

Each client of `rooftime study --gpu` yields two profiles as `rooftime import cupti` gives them once
the collector's marks are applied (contract section 1): kernels aggregated per name and tag set,
the marks' tags on each kernel (implementation, precision, operation, pass, variant, the swept
parameters; pass=warmup for the warm-up), and kernels before the first mark without tags.
The counts are round numbers chosen for the test, of the right order for an H100; the time of a
kernel is its roofline bound divided by a chosen efficiency."""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
WARMUP, ITERS, C_WARMUP, C_ITERS = 5, 20, 1, 2
PEAK = {"fp32": 67e12, "tensor_fp16": 989.4e12, "tensor_tf32": 494.7e12}
HBM = 3.35e12


def kernel(name, tags, n, time_each, flops_each, hbm_each, counters):
    k = {"name": name, "invocations": n, "time": time_each * n, "tags": tags}
    if counters:
        k["flops"] = {u: v * n for u, v in flops_each.items()}
        k["bytes"] = {"L1": 4 * hbm_each * n, "L2": 2 * hbm_each * n, "HBM": hbm_each * n}
    return k


def conv_point(b, f):
    flops = 2 * b * f * 64 * 9 * 56 * 56
    hbm = 4 * (b * 64 * 112 * 112 + b * f * 56 * 56 + f * 64 * 9)
    return flops, hbm


def profile(kernels, counters):
    return {"schema": "rooftime.profile/1",
            "source": {"tool": "cupti", "method": "SYNTHETIC (tests/data/study-gpu-synthetic/gen.py): "
                       "written for the test, not recorded on a GPU", "time": "device"},
            "kernels": kernels}


def conv_client(prec, counters):
    ks = [kernel("cudnn::cnn::init_kernel", {}, 1, 2e-6, {}, 1e3, counters)]  # before the first mark
    unit = "fp32" if prec == "fp32" else "tensor_fp16"
    eff = 0.6 if prec == "fp32" else 0.25
    for b, f in ((16, 64), (32, 64)):
        flops, hbm = conv_point(b, f)
        for ps in ("forward", "backward-data", "backward-weights"):
            base = {"implementation": "pytorch", "precision": prec, "operation": "conv2d",
                    "batch": str(b), "filters": str(f), "kernel": "3", "stride": "2"}
            for mode, n in (("warmup", C_WARMUP if counters else WARMUP), (ps, C_ITERS if counters else ITERS)):
                t = dict(base, **{"pass": mode})
                bound = max(flops / PEAK[unit], hbm / HBM)
                name = "implicit_convolve_sgemm" if prec == "fp32" else "sm90_xmma_fprop_f16f16_f32"
                if ps != "forward":
                    name += "_" + ps.replace("-", "_")
                ks.append(kernel(name, t, n, bound / eff, {unit: flops}, hbm, counters))
                if prec == "fp16":  # the layout transforms and casts AMP adds: no FLOPs
                    for nm, q in (("nchwToNhwcKernel", hbm), ("nhwcToNchwKernel", hbm / 4),
                                  ("at::native::cast_kernel_float_to_half", hbm * 0.75)):
                        ks.append(kernel(nm, t, n, q / HBM / 0.7, {}, q, counters))
    return profile(ks, counters)


def lstm_client(variant, counters):
    ks = []
    for b in (16, 32):
        for ps in ("forward", "backward"):
            t0 = {"implementation": "pytorch", "precision": "fp32", "operation": "lstm",
                  "batch": str(b), "seq": "16", "features": "32", "hidden": "16"}
            if variant:
                t0["variant"] = variant
            for mode, n in (("warmup", C_WARMUP if counters else WARMUP), (ps, C_ITERS if counters else ITERS)):
                t = dict(t0, **{"pass": mode})
                steps = 16 * n * (2 if ps == "backward" else 1)
                gemm = 2 * b * 64 * (32 + 16)
                # eager: each launch a few µs of a nearly idle GPU; in a graph the same kernels
                each = 3.0e-6 if not variant else 2.2e-6
                ks.append(kernel("ampere_sgemm_32x32_sliced1x4_nn", t, 2 * steps, each,
                                 {"fp32": gemm}, 4 * b * 64 * 4, counters))
                ks.append(kernel("at::native::lstm_cell_forward", t, steps, each * 0.8,
                                 {"fp32": 10 * b * 16}, 4 * b * 16 * 6, counters))
    return profile(ks, counters)


def main():
    clients = {"pytorch-conv2d-fp32": lambda c: conv_client("fp32", c),
               "pytorch-conv2d-fp16": lambda c: conv_client("fp16", c),
               "pytorch-lstm-fp32": lambda c: lstm_client("", c),
               "pytorch-lstm-fp32-graphs": lambda c: lstm_client("graphs", c)}
    for name, make in clients.items():
        for mode in ("trace", "counters"):
            with open(os.path.join(HERE, "%s.%s.json" % (name, mode)), "w") as fp:
                json.dump(make(mode == "counters"), fp, indent=1)
                fp.write("\n")



METRICS = ["sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg.per_second",
           "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
           "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
           "l1tex__t_bytes.sum", "lts__t_bytes.sum", "dram__bytes.sum"]
# the rest of `rooftime ncu-metrics --arch sm_90`, all zero here
ZERO = ["sm__sass_thread_inst_executed_op_%s_pred_on.sum" % o
        for o in ("dadd", "dmul", "dfma", "fmul", "hadd", "hmul", "hfma")] + \
    ["sm__ops_path_tensor_src_%s.sum" % t
     for t in ("fp16", "bf16_dst_fp32", "tf32_dst_fp32", "fp8", "int8", "fp64")]
RATE = 1.755e9


def run_dir():
    """run/: a synthetic `study --gpu --quick` output directory as the collector leaves it (a trace
    and a counter run of two LSTM clients, with the marks of contract section 1), for
    `study --gpu --from`."""
    import shutil
    run = os.path.join(HERE, "run")
    for variant in ("", "graphs"):
        name = "pytorch-lstm-fp32" + ("-graphs" if variant else "")
        for mode in ("trace", "counters"):
            d = os.path.join(run, "collect", "%s.%s" % (name, mode))
            os.makedirs(d, exist_ok=True)
            pid = (4242 if not variant else 4243) + (10 if mode == "counters" else 0)
            st = {"corr": 0, "t": 1000000}
            marks, rows = [], []

            def mark(tags):
                marks.append("%d,%d,%d,%d,\"%s\"" % (len(marks), st["corr"] if mode == "trace" else 0,
                                                      len(rows) if mode == "counters" else 0,
                                                      st["t"], tags))

            for b in (16, 32):
                for ps in ("forward", "backward"):
                    base = "implementation=pytorch;precision=fp32;operation=lstm;pass=%s;" + \
                        ("variant=graphs;" if variant else "") + \
                        "batch=%d;seq=16;features=32;hidden=16" % b
                    for what, iters in (("warmup", 1), (ps, 3)):
                        mark(base % what)
                        for _ in range(iters * 16 * (2 if ps == "backward" else 1)):
                            for kn, dur, fadd, ffma, q in (
                                    ("ampere_sgemm_32x32_sliced1x4_nn", 3000, 0, b * 64 * 48, 4 * b * 64 * 4),
                                    ("at::native::lstm_cell_forward", 2400, 10 * b * 16, 0, 4 * b * 16 * 6)):
                                st["corr"] += 1
                                dur = dur if not variant else dur * 3 // 4
                                if mode == "trace":
                                    rows.append("%d,%s,%d,%d,0,1,7,%d,4,1,1,128,1,1,32,0,0"
                                                % (st["corr"], kn, st["t"], st["t"] + dur,
                                                   1 if variant else 0))
                                else:
                                    rows.append("%d,%s,%g,%g,%d,%d,%d,%d,%d" % (
                                        len(rows), kn, dur * 1e-9 * RATE, RATE, fadd, ffma,
                                        4 * q, 2 * q, q) + ",0" * len(ZERO))
                                st["t"] += dur + (5000 if not variant else 800)
            mark("")
            with open(os.path.join(d, "collector.%d.txt" % pid), "w") as fp:
                fp.write("format=rooftime.cupti/1\nmode=%s\npid=%d\ndevice=SYNTHETIC H100-like\n"
                         "cc=90\n" % (mode, pid))
                if mode == "counters":
                    fp.write("metrics=%s\n" % ",".join(METRICS + ZERO))
                # the collector's closing lines: kernels written (trace records), then end
                fp.write("kernels=%d\nend=ok\n" % (len(rows) if mode == "trace" else 0))
            if mode == "trace":
                header = ("correlation,name,start_ns,end_ns,device,context,stream,graph,grid_x,"
                          "grid_y,grid_z,block_x,block_y,block_z,registers,shared_static,"
                          "shared_dynamic")
                fname = "kernels.%d.csv" % pid
            else:
                header = "range,name," + ",".join(METRICS + ZERO)
                fname = "ranges.%d.csv" % pid
            with open(os.path.join(d, fname), "w") as fp:
                fp.write(header + "\n" + "\n".join(rows) + "\n")
            with open(os.path.join(d, "marks.%d.csv" % pid), "w") as fp:
                fp.write("seq,correlation,ranges,time_ns,tags\n" + "\n".join(marks) + "\n")
    shutil.copy(os.path.join(HERE, "machine.json"), os.path.join(run, "machine.json"))


if __name__ == "__main__":
    main()
    run_dir()
