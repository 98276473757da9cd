#!/usr/bin/python3
"""Runs small PyTorch layers on the CPU so that oneDNN prints its verbose records.

Made to record tests/data/onednn-*-torch-*.log: run it with ONEDNN_VERBOSE=1 under the python of the
torch to record (Debian's /usr/bin/python3 with torch 1.13, or a venv with the PyPI torch 2.x), with
--precision fp32 or bf16. Each layer runs one forward and backward pass twice at small shapes:
conv2d, linear, batched matmul, LSTM. Which of them reach oneDNN, and through which implementation,
is torch's choice (fp32 linear and matmul go to MKL or another BLAS and print nothing). --graph
runs a convolution and ReLU through TorchScript's oneDNN fusion (oneDNN Graph), inference only,
which prints oneDNN's `graph` records beside the primitives they ran.
"""
import argparse
import sys

import torch


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--precision", choices=["fp32", "bf16"], default="fp32")
    p.add_argument("--iters", type=int, default=2)
    p.add_argument("--graph", action="store_true")
    a = p.parse_args(argv)
    if a.graph:
        return graph(a)
    dt = torch.bfloat16 if a.precision == "bf16" else torch.float32
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(16, 32, 3, stride=1, padding=1).to(dt)
    lin = torch.nn.Linear(64, 128).to(dt)
    lstm = torch.nn.LSTM(32, 16, batch_first=True).to(dt)
    x = torch.randn(4, 16, 14, 14, dtype=dt, requires_grad=True)
    v = torch.randn(32, 64, dtype=dt, requires_grad=True)
    q = torch.randn(8, 16, 32, dtype=dt, requires_grad=True)
    k = torch.randn(8, 32, 16, dtype=dt, requires_grad=True)
    s = torch.randn(4, 8, 32, dtype=dt, requires_grad=True)
    for _ in range(a.iters):
        conv(x).sum().backward()
        lin(v).sum().backward()
        torch.bmm(q, k).sum().backward()
        lstm(s)[0].sum().backward()
    print(f"onednn-torch-recorder: torch {torch.__version__} precision={a.precision} "
          f"iters={a.iters}", file=sys.stderr)


def graph(a):
    torch.jit.enable_onednn_fusion(True)
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU()).eval()
    x = torch.randn(4, 16, 14, 14)
    with torch.no_grad():
        t = torch.jit.freeze(torch.jit.trace(m, x))
        for _ in range(a.iters + 2):  # TorchScript's profiling runs come first
            t(x)
    print(f"onednn-torch-recorder: torch {torch.__version__} graph iters={a.iters}",
          file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
