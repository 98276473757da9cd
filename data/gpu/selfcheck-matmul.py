"""torch.matmul at 8192^3 once per precision, for rooftime's collector self-check.

`rooftime machine measure --gpu --self-check` runs this under `profile --gpu --counters` and
compares the FLOPs the counters report with 2 x M x N x K per precision (within 2%). The manifest
(--manifest FILE) holds one line per precision: "*", the quantity the profile must sum over all
kernels, the expected figure, the bound. Inputs come from torch.full, which does no arithmetic, so
the matmuls are the only FLOPs of their precision. Exit 1 without CUDA.
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
    args = ap.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("selfcheck-matmul: PyTorch sees no CUDA device", file=sys.stderr)
        return 1
    lines = ["# torch.matmul %dx%dx%d, torch %s, %s" % (M, N, K, torch.__version__,
                                                       torch.cuda.get_device_name(0))]
    for name, dtype, tf32, quantity in CASES:
        # both spellings: the precision setting, and the older flags
        torch.set_float32_matmul_precision("high" if tf32 else "highest")
        torch.backends.cuda.matmul.allow_tf32 = tf32
        dt = getattr(torch, dtype)
        a = torch.full((M, K), 0.5, dtype=dt, device="cuda")
        b = torch.full((K, N), 0.25, dtype=dt, device="cuda")
        c = torch.matmul(a, b)
        torch.cuda.synchronize()
        # every element is K x 0.125; a wrong kernel is an error, not a count to compare
        want = K * 0.125
        got = float(c[0, 0].item())
        if abs(got - want) > 0.01 * want:
            print("selfcheck-matmul: %s matmul gave %g, expected %g" % (name, got, want),
                  file=sys.stderr)
            return 1
        del a, b, c
        lines.append("*\t%s\t%.17g\t%g" % (quantity, 2.0 * M * N * K, BOUND))
    with open(args.manifest, "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
