"""torch.matmul at 8192^3 once per precision, for rooftime's collector self-check.

`rooftime machine measure --gpu --self-check` runs this under `profile --gpu --counters` and
compares the FLOPs the counters report with 2 x M x N x K per precision (within 2%). The manifest
(--manifest FILE) holds one line per precision: "*", the quantity the profile must sum over all
kernels, the expected figure, the bound. Inputs come from torch.full, which does no arithmetic, so
the matmuls are the only FLOPs of their precision. Exit 1 without CUDA.

--device cpu --size N runs the same code on the CPU at N^3 (the tests, on a machine without a GPU:
the PyTorch calls, the result check and the manifest; TF32 has no meaning there).
"""
import argparse
import sys

M = N = K = 8192
BOUND = 0.02

# name, dtype, TF32 allowed, the quantity the counters report it under
CASES = [
    ("fp32", "float32", False, "flops.fp32"),
    ("tf32", "float32", True, "flops.tensor_tf32"),
    ("fp16", "float16", False, "flops.tensor_fp16"),
    ("bf16", "bfloat16", False, "flops.tensor_bf16"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", required=True, help="where the expectations go")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda", help=argparse.SUPPRESS)
    ap.add_argument("--size", type=int, default=M, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if not 16 <= args.size <= M:
        ap.error("--size takes 16 to %d, got %d" % (M, args.size))
    m = n = k = args.size
    try:
        import torch
    except ImportError as e:
        print("selfcheck-matmul: cannot import torch: %s" % e, file=sys.stderr)
        return 1

    if args.device == "cuda" and not torch.cuda.is_available():
        print("selfcheck-matmul: PyTorch sees no CUDA device", file=sys.stderr)
        return 1
    where = torch.cuda.get_device_name(0) if args.device == "cuda" else "cpu"
    lines = ["# torch.matmul %dx%dx%d, torch %s, %s" % (m, n, k, torch.__version__, where)]
    for name, dtype, tf32, quantity in CASES:
        # both spellings: the precision setting, and the older flags
        torch.set_float32_matmul_precision("high" if tf32 else "highest")
        torch.backends.cuda.matmul.allow_tf32 = tf32
        dt = getattr(torch, dtype)
        a = torch.full((m, k), 0.5, dtype=dt, device=args.device)
        b = torch.full((k, n), 0.25, dtype=dt, device=args.device)
        c = torch.matmul(a, b)
        if args.device == "cuda":
            torch.cuda.synchronize()
        # every element is k x 0.125; a wrong kernel is an error, not a count to compare
        want = k * 0.125
        got = float(c[0, 0].item())
        if abs(got - want) > 0.01 * want:
            print("selfcheck-matmul: %s matmul gave %g, expected %g" % (name, got, want),
                  file=sys.stderr)
            return 1
        del a, b, c
        lines.append("*\t%s\t%.17g\t%g" % (quantity, 2.0 * m * n * k, BOUND))
    with open(args.manifest, "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
