"""A small CNN training step on the GPU, for scripts/gpu-acceptance.sh.

Three convolutions (3x3) with batch norm and ReLU, a pooling and a linear layer over a batch of
64 RGB images of 64x64, in fp32 with TF32 off: --steps training steps (forward, backward, SGD
update; default 2; the acceptance script runs one: each kernel is replayed once per counter pass),
all profiled alike by `rooftime profile --gpu --counters` and by ncu; the
acceptance script compares their five longest kernels, and scripts/gpu-python-check.py runs the
same steps under rooftime.gpu.profile() and rooftime.torch.profile() (it imports this file: make(),
run()). Exit 1 without CUDA.
"""
import argparse
import sys


def make(device, batch=64, size=64):
    """The model, its optimizer, the loss and one batch, on device, seeded."""
    import torch
    import torch.nn as nn

    # TF32 off through the flags PyTorch 1.12 to 2.x all honour. 2.9 added
    # torch.backends.*.fp32_precision beside them, and reading a legacy flag after the new one
    # was set raises a RuntimeError (seen on 2.15): only the legacy flags are used
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(128, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10),
    ).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(batch, 3, size, size, device=device)
    y = torch.randint(0, 10, (batch,), device=device)
    return model, opt, nn.CrossEntropyLoss(), x, y


def run(model, opt, loss_fn, x, y, steps):
    """steps training steps; the last loss, after the device finished."""
    import torch

    loss = None
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    if x.is_cuda:
        torch.cuda.synchronize()
    return float(loss.item())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=2, help="training steps (default 2)")
    args = ap.parse_args()
    if not 1 <= args.steps <= 100:
        ap.error("--steps takes 1 to 100, got %d" % args.steps)
    try:
        import torch
    except ImportError as e:
        print("gpu-cnn-step: cannot import torch: %s" % e, file=sys.stderr)
        return 1
    if not torch.cuda.is_available():
        print("gpu-cnn-step: PyTorch sees no CUDA device", file=sys.stderr)
        return 1
    loss = run(*make("cuda"), steps=args.steps)
    print("gpu-cnn-step: %d steps, loss %.4f" % (args.steps, loss))
    return 0


if __name__ == "__main__":
    sys.exit(main())
